public import FeedModels
import Foundation
import GRDB

// The settings new subscriptions start with, on SQLite (see ``NewFeedSettingsRepository``): the one row of
// `newFeedSettings`, or none for the defaults.
extension FeedStore: NewFeedSettingsRepository {
    public func newFeedSettings() async throws -> NewFeedSettings? {
        try await read { db in try Self.newFeedSettings(db: db) }
    }

    @discardableResult
    public func updateNewFeedSettings(_ change: DownloadSettings) async throws -> NewFeedSettings {
        try await write { db in
            let settings = (try Self.newFeedSettings(db: db) ?? NewFeedSettings()).changed(by: change)
            try Self.storeNewFeedSettings(settings, db: db)
            return settings
        }
    }

    @discardableResult
    public func resetNewFeedSettings() async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM newFeedSettings")
            return db.changesCount > 0
        }
    }

    /// The stored settings inside the caller's transaction; nil when none are stored.
    static func newFeedSettings(db: Database) throws -> NewFeedSettings? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM newFeedSettings WHERE id = 1") else { return nil }
        var settings = NewFeedSettings()
        settings.downloadsEnabled = row["downloadsEnabled"]
        settings.keepNewest = row["keepNewest"]
        settings.directory = row["downloadDirectory"]
        settings.fileNameTemplate = row["fileNameTemplate"]
        settings.deletePlayed = row["deletePlayed"]
        settings.filter = DownloadFilter(storedText: row["downloadFilter"])
        settings.extras = row["extras"]
        settings.backlog = row["downloadBacklog"]
        settings.tagMode = (row["tagMode"] as String?).flatMap(TagMode.init(rawValue:)) ?? .off
        return settings
    }

    /// Stores `settings` inside the caller's transaction: the defaults are kept as no row at all.
    static func storeNewFeedSettings(_ settings: NewFeedSettings, db: Database) throws {
        guard !settings.isDefault else {
            try db.execute(sql: "DELETE FROM newFeedSettings")
            return
        }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO newFeedSettings (id, downloadsEnabled, keepNewest, downloadDirectory,
                  fileNameTemplate, deletePlayed, downloadFilter, extras, downloadBacklog, tagMode)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                settings.downloadsEnabled, settings.keepNewest, settings.directory, settings.fileNameTemplate,
                settings.deletePlayed, settings.filter.storedText, settings.extras, settings.backlog,
                settings.tagMode.rawValue,
            ])
    }
}
