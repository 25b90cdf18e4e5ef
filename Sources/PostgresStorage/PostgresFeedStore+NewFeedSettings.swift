public import FeedModels
import Foundation
import Logging
import PostgresNIO

// The settings new subscriptions start with, on PostgreSQL (see ``NewFeedSettingsRepository``): the one row of
// `new_feed_settings`, or none for the defaults. Every worker of a fleet reads them in the transaction that adds a
// subscription.
extension PostgresFeedStore: NewFeedSettingsRepository {
    static let newFeedSettingsColumns = """
        downloads_enabled, keep_newest, download_directory, file_name_template, delete_played, download_filter,
        extras, download_backlog, tag_mode
        """

    public func newFeedSettings() async throws -> NewFeedSettings? {
        try await transaction { connection in try await Self.newFeedSettings(on: connection, logger: logger) }
    }

    @discardableResult
    public func updateNewFeedSettings(_ change: DownloadSettings) async throws -> NewFeedSettings {
        try await transaction { connection in
            let current = try await Self.newFeedSettings(on: connection, logger: logger, locking: true)
            let settings = (current ?? NewFeedSettings()).changed(by: change)
            try await Self.storeNewFeedSettings(settings, on: connection, logger: logger)
            return settings
        }
    }

    @discardableResult
    public func resetNewFeedSettings() async throws -> Bool {
        !(try await rows("DELETE FROM new_feed_settings RETURNING singleton")).isEmpty
    }

    /// The stored settings inside the caller's transaction (the row locked with `locking`); nil when none are stored.
    static func newFeedSettings(
        on connection: PostgresConnection, logger: Logger, locking: Bool = false
    ) async throws -> NewFeedSettings? {
        let lock = locking ? " FOR UPDATE" : ""
        let rows = try await connection.query(
            "SELECT \(unescaped: newFeedSettingsColumns) FROM new_feed_settings\(unescaped: lock)", logger: logger)
        for try await row in rows {
            let r = RowReader(row)
            var settings = NewFeedSettings()
            settings.downloadsEnabled = try r.bool("downloads_enabled") ?? false
            settings.keepNewest = try r.integer("keep_newest")
            settings.directory = try r.text("download_directory")
            settings.fileNameTemplate = try r.text("file_name_template")
            settings.deletePlayed = try r.bool("delete_played") ?? false
            settings.filter = DownloadFilter(storedText: try r.text("download_filter"))
            settings.extras = try r.bool("extras") ?? false
            settings.backlog = try r.integer("download_backlog")
            settings.tagMode = try r.text("tag_mode").flatMap(TagMode.init(rawValue:)) ?? .off
            return settings
        }
        return nil
    }

    /// Stores `settings` inside the caller's transaction: the defaults are kept as no row at all.
    static func storeNewFeedSettings(
        _ settings: NewFeedSettings, on connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !settings.isDefault else {
            try await connection.query("DELETE FROM new_feed_settings", logger: logger)
            return
        }
        let filter = settings.filter.storedText
        // An upsert: two changes at once both find no row, and the second then waits for the first and replaces it.
        try await connection.query(
            """
            INSERT INTO new_feed_settings (\(unescaped: newFeedSettingsColumns))
            VALUES (\(settings.downloadsEnabled), \(settings.keepNewest), \(settings.directory),
              \(settings.fileNameTemplate), \(settings.deletePlayed), \(filter), \(settings.extras),
              \(settings.backlog), \(settings.tagMode.rawValue))
            ON CONFLICT (singleton) DO UPDATE SET downloads_enabled = EXCLUDED.downloads_enabled,
              keep_newest = EXCLUDED.keep_newest, download_directory = EXCLUDED.download_directory,
              file_name_template = EXCLUDED.file_name_template, delete_played = EXCLUDED.delete_played,
              download_filter = EXCLUDED.download_filter, extras = EXCLUDED.extras,
              download_backlog = EXCLUDED.download_backlog, tag_mode = EXCLUDED.tag_mode
            """, logger: logger)
    }
}
