public import FeedModels
import Foundation
import PostgresNIO

// Download settings and records on PostgreSQL (see ``AsyncDownloadRepository``). Each method is one statement or one
// transaction.
extension PostgresFeedStore: AsyncDownloadRepository {
    static let downloadColumns = """
        subscription_id, episode_key, state, part_path, file_path, bytes, etag, last_modified, url, started_at,
        downloaded_at, last_error, deleted_by_user, removed_by_retention
        """

    public func updateDownloadSettings(id: Int64, _ settings: DownloadSettings) async throws -> Subscription {
        try await transaction { connection in
            let current = try await Self.lockedSubscription(id: id, on: connection, store: self)
            let (enabled, keep, directory, template) = settings.applied(to: current)
            try await connection.query(
                """
                UPDATE subscription SET downloads_enabled = \(enabled), keep_newest = \(keep),
                  download_directory = \(directory), file_name_template = \(template)
                WHERE id = \(id)
                """, logger: logger)
            return try await Self.lockedSubscription(id: id, on: connection, store: self)
        }
    }

    public func episodesToDownload(subscriptionID: Int64, newest: Int) async throws -> [StoredEpisode] {
        guard newest > 0 else { return [] }
        let columns = Self.episodeColumns.split(separator: ",")
            .map { "e." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")
        return try await rows(
            """
            SELECT \(unescaped: columns) FROM (
              SELECT * FROM episode WHERE subscription_id = \(subscriptionID)
              ORDER BY COALESCE(published, first_seen_at) DESC, id DESC LIMIT \(newest)
            ) AS e
            LEFT JOIN download AS d ON d.subscription_id = e.subscription_id AND d.episode_key = e.key
            WHERE d.subscription_id IS NULL
               OR (d.state = 'in-progress' AND NOT d.deleted_by_user AND NOT d.removed_by_retention)
            ORDER BY COALESCE(e.published, e.first_seen_at) DESC, e.id DESC
            """
        ).map(Self.storedEpisode(from:))
    }

    @discardableResult
    public func recordDownloadStarted(_ start: DownloadStart) async throws -> DownloadRecord {
        try await transaction { connection in
            try await Self.requireEpisode(start.subscriptionID, start.episodeKey, on: connection, store: self)
            let rows = try await connection.query(
                """
                INSERT INTO download (subscription_id, episode_key, state, part_path, file_path, etag, last_modified,
                  url, started_at)
                VALUES (\(start.subscriptionID), \(start.episodeKey), 'in-progress', \(start.partPath),
                  \(start.filePath), \(start.etag), \(start.lastModified), \(start.url.absoluteString),
                  \(start.startedAt.timeIntervalSince1970))
                ON CONFLICT (subscription_id, episode_key) DO UPDATE SET
                  state = 'in-progress', part_path = excluded.part_path, file_path = excluded.file_path, bytes = NULL,
                  etag = excluded.etag, last_modified = excluded.last_modified, url = excluded.url,
                  started_at = excluded.started_at, downloaded_at = NULL, last_error = NULL, deleted_by_user = false,
                  removed_by_retention = false
                RETURNING \(unescaped: Self.downloadColumns)
                """, logger: logger)
            return try await Self.firstDownload(rows, start.subscriptionID, start.episodeKey)
        }
    }

    @discardableResult
    public func recordDownloadCompleted(_ completion: DownloadCompletion) async throws -> DownloadRecord {
        try await transaction { connection in
            try await Self.requireEpisode(
                completion.subscriptionID, completion.episodeKey, on: connection, store: self)
            let at = completion.downloadedAt.timeIntervalSince1970
            let rows = try await connection.query(
                """
                INSERT INTO download (subscription_id, episode_key, state, file_path, bytes, etag, last_modified, url,
                  started_at, downloaded_at)
                VALUES (\(completion.subscriptionID), \(completion.episodeKey), 'complete', \(completion.filePath),
                  \(completion.bytes), \(completion.etag), \(completion.lastModified), \(completion.url.absoluteString),
                  \(at), \(at))
                ON CONFLICT (subscription_id, episode_key) DO UPDATE SET
                  state = 'complete', part_path = NULL, file_path = excluded.file_path, bytes = excluded.bytes,
                  etag = excluded.etag, last_modified = excluded.last_modified, url = excluded.url,
                  started_at = COALESCE(download.started_at, excluded.started_at),
                  downloaded_at = excluded.downloaded_at, last_error = NULL, deleted_by_user = false,
                  removed_by_retention = false
                RETURNING \(unescaped: Self.downloadColumns)
                """, logger: logger)
            return try await Self.firstDownload(rows, completion.subscriptionID, completion.episodeKey)
        }
    }

    @discardableResult
    public func recordDownloadFailed(
        subscriptionID: Int64, episodeKey: String, error: String, partialBytes: Int64?
    ) async throws -> Bool {
        try await !rows(
            """
            UPDATE download SET last_error = \(error), bytes = COALESCE(\(partialBytes), bytes)
            WHERE subscription_id = \(subscriptionID) AND episode_key = \(episodeKey) AND state = 'in-progress'
            RETURNING 1
            """
        ).isEmpty
    }

    public func filesPastRetention(subscriptionID: Int64, keepNewest: Int) async throws -> [DownloadRecord] {
        let columns = Self.downloadColumns.split(separator: ",")
            .map { "d." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")
        return try await rows(
            """
            SELECT \(unescaped: columns) FROM download AS d
            JOIN episode AS e ON e.subscription_id = d.subscription_id AND e.key = d.episode_key
            WHERE d.subscription_id = \(subscriptionID) AND d.state = 'complete' AND NOT d.removed_by_retention
              AND NOT d.deleted_by_user
            ORDER BY COALESCE(e.published, e.first_seen_at) DESC, e.id DESC
            OFFSET \(max(keepNewest, 0))
            """
        ).map(Self.download(from:))
    }

    @discardableResult
    public func markRemovedByRetention(subscriptionID: Int64, episodeKey: String) async throws -> Bool {
        try await !rows(
            """
            UPDATE download SET removed_by_retention = true
            WHERE subscription_id = \(subscriptionID) AND episode_key = \(episodeKey) RETURNING 1
            """
        ).isEmpty
    }

    @discardableResult
    public func markDeletedByUser(subscriptionID: Int64, episodeKey: String) async throws -> Bool {
        try await !rows(
            """
            UPDATE download SET deleted_by_user = true
            WHERE subscription_id = \(subscriptionID) AND episode_key = \(episodeKey) RETURNING 1
            """
        ).isEmpty
    }

    @discardableResult
    public func allowDownloadAgain(subscriptionID: Int64, episodeKey: String) async throws -> Bool {
        try await !rows(
            """
            UPDATE download SET
              state = CASE WHEN deleted_by_user OR removed_by_retention THEN 'in-progress' ELSE state END,
              downloaded_at = CASE WHEN deleted_by_user OR removed_by_retention THEN NULL ELSE downloaded_at END,
              deleted_by_user = false, removed_by_retention = false
            WHERE subscription_id = \(subscriptionID) AND episode_key = \(episodeKey) RETURNING 1
            """
        ).isEmpty
    }

    public func downloadUsage() async throws -> [Int64: DownloadUsage] {
        var usage: [Int64: DownloadUsage] = [:]
        for row in try await rows(
            """
            SELECT subscription_id, count(*) AS files, COALESCE(sum(bytes), 0)::bigint AS bytes FROM download
            WHERE state = 'complete' AND NOT removed_by_retention AND NOT deleted_by_user
            GROUP BY subscription_id
            """)
        {
            let r = RowReader(row)
            if let id = try r.int64("subscription_id") {
                usage[id] = DownloadUsage(files: try r.integer("files") ?? 0, bytes: try r.int64("bytes") ?? 0)
            }
        }
        return usage
    }

    public func download(subscriptionID: Int64, episodeKey: String) async throws -> DownloadRecord? {
        try await rows(
            """
            SELECT \(unescaped: Self.downloadColumns) FROM download
            WHERE subscription_id = \(subscriptionID) AND episode_key = \(episodeKey)
            """
        ).map(Self.download(from:)).first
    }

    public func downloads(subscriptionID: Int64?) async throws -> [DownloadRecord] {
        if let subscriptionID {
            return try await rows(
                """
                SELECT \(unescaped: Self.downloadColumns) FROM download WHERE subscription_id = \(subscriptionID)
                ORDER BY episode_key
                """
            ).map(Self.download(from:))
        }
        return try await rows(
            "SELECT \(unescaped: Self.downloadColumns) FROM download ORDER BY subscription_id, episode_key"
        ).map(Self.download(from:))
    }

    // MARK: - Helpers

    private static func requireEpisode(
        _ subscriptionID: Int64, _ key: String, on connection: PostgresConnection, store: PostgresFeedStore
    ) async throws {
        let rows = try await connection.query(
            "SELECT 1 FROM episode WHERE subscription_id = \(subscriptionID) AND key = \(key)", logger: store.logger)
        for try await _ in rows { return }
        throw StoreError(kind: .notFound, message: "no episode \"\(key)\" in subscription \(subscriptionID)")
    }

    private static func firstDownload(
        _ rows: PostgresRowSequence, _ subscriptionID: Int64, _ key: String
    )
        async throws -> DownloadRecord
    {
        for try await row in rows { return try download(from: row) }
        throw StoreError(kind: .notFound, message: "no download of \"\(key)\" in subscription \(subscriptionID)")
    }

    static func download(from row: PostgresRow) throws -> DownloadRecord {
        let r = RowReader(row)
        return DownloadRecord(
            subscriptionID: try r.int64("subscription_id") ?? 0, episodeKey: try r.text("episode_key") ?? "",
            state: DownloadRecord.State(rawValue: try r.text("state") ?? "") ?? .inProgress,
            partPath: try r.text("part_path"), filePath: try r.text("file_path"), bytes: try r.int64("bytes"),
            etag: try r.text("etag"), lastModified: try r.text("last_modified"), url: try r.url("url"),
            startedAt: try r.date("started_at"), downloadedAt: try r.date("downloaded_at"),
            lastError: try r.text("last_error"), deletedByUser: try r.bool("deleted_by_user") ?? false,
            removedByRetention: try r.bool("removed_by_retention") ?? false)
    }
}
