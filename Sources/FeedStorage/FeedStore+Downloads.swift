public import FeedModels
import Foundation
import GRDB

// Download settings and records on SQLite (see ``AsyncDownloadRepository``). Each method is one transaction.
extension FeedStore {
    public func updateDownloadSettings(id: Int64, _ settings: DownloadSettings) throws -> Subscription {
        try write { db in
            let current = try Self.existingSubscription(id: id, db: db)
            let (enabled, keep, directory, template) = settings.applied(to: current)
            try db.execute(
                sql: """
                    UPDATE subscription SET downloadsEnabled = ?, keepNewest = ?, downloadDirectory = ?,
                      fileNameTemplate = ?
                    WHERE id = ?
                    """,
                arguments: [enabled, keep, directory, template, id])
            return try Self.existingSubscription(id: id, db: db)
        }
    }

    public func episodesToDownload(subscriptionID: Int64, newest: Int) throws -> [StoredEpisode] {
        guard newest > 0 else { return [] }
        return try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT e.* FROM (
                      SELECT * FROM episode WHERE subscriptionId = ?
                      ORDER BY COALESCE(published, firstSeenAt) DESC, id DESC LIMIT ?
                    ) AS e
                    LEFT JOIN download AS d ON d.subscriptionId = e.subscriptionId AND d.episodeKey = e.key
                    WHERE d.subscriptionId IS NULL
                       OR (d.state = 'in-progress' AND NOT d.deletedByUser AND NOT d.removedByRetention)
                    ORDER BY COALESCE(e.published, e.firstSeenAt) DESC, e.id DESC
                    """,
                arguments: [subscriptionID, newest]
            ).map(EpisodeColumns.storedEpisode(from:))
        }
    }

    @discardableResult
    public func recordDownloadStarted(_ start: DownloadStart) throws -> DownloadRecord {
        try write { db in
            try Self.requireEpisode(start.subscriptionID, start.episodeKey, db: db)
            try db.execute(
                sql: """
                    INSERT INTO download (subscriptionId, episodeKey, state, partPath, filePath, bytes, etag, lastModified,
                      url, startedAt, downloadedAt, lastError, deletedByUser, removedByRetention)
                    VALUES (?, ?, 'in-progress', ?, ?, NULL, ?, ?, ?, ?, NULL, NULL, 0, 0)
                    ON CONFLICT (subscriptionId, episodeKey) DO UPDATE SET
                      state = 'in-progress', partPath = excluded.partPath, filePath = excluded.filePath, bytes = NULL,
                      etag = excluded.etag, lastModified = excluded.lastModified, url = excluded.url,
                      startedAt = excluded.startedAt, downloadedAt = NULL, lastError = NULL, deletedByUser = 0,
                      removedByRetention = 0
                    """,
                arguments: [
                    start.subscriptionID, start.episodeKey, start.partPath, start.filePath, start.etag,
                    start.lastModified, start.url.absoluteString, start.startedAt.timeIntervalSince1970,
                ])
            return try Self.existingDownload(start.subscriptionID, start.episodeKey, db: db)
        }
    }

    @discardableResult
    public func recordDownloadCompleted(_ completion: DownloadCompletion) throws -> DownloadRecord {
        try write { db in
            try Self.requireEpisode(completion.subscriptionID, completion.episodeKey, db: db)
            try db.execute(
                sql: """
                    INSERT INTO download (subscriptionId, episodeKey, state, partPath, filePath, bytes, etag, lastModified,
                      url, startedAt, downloadedAt, lastError, deletedByUser, removedByRetention)
                    VALUES (?, ?, 'complete', NULL, ?, ?, ?, ?, ?, ?, ?, NULL, 0, 0)
                    ON CONFLICT (subscriptionId, episodeKey) DO UPDATE SET
                      state = 'complete', partPath = NULL, filePath = excluded.filePath, bytes = excluded.bytes,
                      etag = excluded.etag, lastModified = excluded.lastModified, url = excluded.url,
                      startedAt = COALESCE(download.startedAt, excluded.startedAt),
                      downloadedAt = excluded.downloadedAt, lastError = NULL, deletedByUser = 0, removedByRetention = 0
                    """,
                arguments: [
                    completion.subscriptionID, completion.episodeKey, completion.filePath, completion.bytes,
                    completion.etag, completion.lastModified, completion.url.absoluteString,
                    completion.downloadedAt.timeIntervalSince1970, completion.downloadedAt.timeIntervalSince1970,
                ])
            return try Self.existingDownload(completion.subscriptionID, completion.episodeKey, db: db)
        }
    }

    @discardableResult
    public func recordDownloadFailed(
        subscriptionID: Int64, episodeKey: String, error: String, partialBytes: Int64?
    ) throws -> Bool {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE download SET lastError = ?, bytes = COALESCE(?, bytes)
                    WHERE subscriptionId = ? AND episodeKey = ? AND state = 'in-progress'
                    """,
                arguments: [error, partialBytes, subscriptionID, episodeKey])
            return db.changesCount > 0
        }
    }

    public func filesPastRetention(subscriptionID: Int64, keepNewest: Int) throws -> [DownloadRecord] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT d.* FROM download AS d
                    JOIN episode AS e ON e.subscriptionId = d.subscriptionId AND e.key = d.episodeKey
                    WHERE d.subscriptionId = ? AND d.state = 'complete' AND NOT d.removedByRetention
                      AND NOT d.deletedByUser
                    ORDER BY COALESCE(e.published, e.firstSeenAt) DESC, e.id DESC
                    LIMIT -1 OFFSET ?
                    """,
                arguments: [subscriptionID, max(keepNewest, 0)]
            ).map(Self.download(from:))
        }
    }

    @discardableResult
    public func markRemovedByRetention(subscriptionID: Int64, episodeKey: String) throws -> Bool {
        try updateDownload(subscriptionID, episodeKey, set: "removedByRetention = 1")
    }

    @discardableResult
    public func markDeletedByUser(subscriptionID: Int64, episodeKey: String) throws -> Bool {
        try updateDownload(subscriptionID, episodeKey, set: "deletedByUser = 1")
    }

    @discardableResult
    public func allowDownloadAgain(subscriptionID: Int64, episodeKey: String) throws -> Bool {
        // A complete file that was removed or deleted is no longer complete on disk: downloading it again resumes.
        try updateDownload(
            subscriptionID, episodeKey,
            set: """
                state = CASE WHEN deletedByUser OR removedByRetention THEN 'in-progress' ELSE state END,
                downloadedAt = CASE WHEN deletedByUser OR removedByRetention THEN NULL ELSE downloadedAt END,
                deletedByUser = 0, removedByRetention = 0
                """)
    }

    public func downloadUsage() throws -> [Int64: DownloadUsage] {
        try read { db in
            var usage: [Int64: DownloadUsage] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT subscriptionId, COUNT(*) AS files, COALESCE(SUM(bytes), 0) AS bytes FROM download
                    WHERE state = 'complete' AND NOT removedByRetention AND NOT deletedByUser
                    GROUP BY subscriptionId
                    """)
            {
                usage[row["subscriptionId"]] = DownloadUsage(files: row["files"], bytes: row["bytes"])
            }
            return usage
        }
    }

    public func download(subscriptionID: Int64, episodeKey: String) throws -> DownloadRecord? {
        try read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM download WHERE subscriptionId = ? AND episodeKey = ?",
                arguments: [subscriptionID, episodeKey]
            ).map(Self.download(from:))
        }
    }

    public func downloads(subscriptionID: Int64?) throws -> [DownloadRecord] {
        try read { db in
            if let subscriptionID {
                return try Row.fetchAll(
                    db, sql: "SELECT * FROM download WHERE subscriptionId = ? ORDER BY episodeKey",
                    arguments: [subscriptionID]
                ).map(Self.download(from:))
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM download ORDER BY subscriptionId, episodeKey")
                .map(Self.download(from:))
        }
    }

    // MARK: - Helpers

    private func updateDownload(_ subscriptionID: Int64, _ episodeKey: String, set assignments: String) throws -> Bool {
        try write { db in
            try db.execute(
                sql: "UPDATE download SET \(assignments) WHERE subscriptionId = ? AND episodeKey = ?",
                arguments: [subscriptionID, episodeKey])
            return db.changesCount > 0
        }
    }

    private static func requireEpisode(_ subscriptionID: Int64, _ key: String, db: Database) throws {
        guard
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM episode WHERE subscriptionId = ? AND key = ?)",
                arguments: [subscriptionID, key]) == true
        else {
            throw StoreError(kind: .notFound, message: "no episode \"\(key)\" in subscription \(subscriptionID)")
        }
    }

    private static func existingDownload(
        _ subscriptionID: Int64, _ key: String, db: Database
    ) throws
        -> DownloadRecord
    {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM download WHERE subscriptionId = ? AND episodeKey = ?",
                arguments: [subscriptionID, key])
        else {
            throw StoreError(kind: .notFound, message: "no download of \"\(key)\" in subscription \(subscriptionID)")
        }
        return download(from: row)
    }

    static func download(from row: Row) -> DownloadRecord {
        DownloadRecord(
            subscriptionID: row["subscriptionId"], episodeKey: row["episodeKey"],
            state: DownloadRecord.State(rawValue: row["state"]) ?? .inProgress, partPath: row["partPath"],
            filePath: row["filePath"], bytes: row["bytes"], etag: row["etag"], lastModified: row["lastModified"],
            url: (row["url"] as String?).flatMap(URL.init(string:)), startedAt: date(row["startedAt"]),
            downloadedAt: date(row["downloadedAt"]), lastError: row["lastError"], deletedByUser: row["deletedByUser"],
            removedByRetention: row["removedByRetention"])
    }
}
