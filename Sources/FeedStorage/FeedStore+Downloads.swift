public import FeedModels
import Foundation
import GRDB

// Download settings and records on SQLite (see ``DownloadRepository``): the queries, and the one write every
// change of a record goes through (``DownloadRecordStore``). Each method is one transaction.
extension FeedStore {
    public func updateDownloadSettings(id: Int64, _ settings: DownloadSettings) async throws -> Subscription {
        try await write { db in
            try Self.applyDownloadSettings(settings, to: Self.existingSubscription(id: id, db: db), db: db)
        }
    }

    /// Makes `settings` to `current`'s download settings inside the caller's transaction; the subscription as stored.
    static func applyDownloadSettings(
        _ settings: DownloadSettings, to current: Subscription, db: Database
    ) throws -> Subscription {
        let (enabled, keep, directory, template) = settings.applied(to: current)
        let (since, backlog) = settings.downloadsFrom(after: current)
        try db.execute(
            sql: """
                UPDATE subscription SET downloadsEnabled = ?, keepNewest = ?, downloadDirectory = ?,
                  fileNameTemplate = ?, deletePlayed = ?, downloadFilter = ?, extras = ?, downloadsSince = ?,
                  downloadBacklog = ?, tagMode = ?
                WHERE id = ?
                """,
            arguments: [
                enabled, keep, directory, template, settings.deletesPlayed(current),
                settings.filter(after: current).storedText, settings.savesExtras(current),
                since?.timeIntervalSince1970, backlog, settings.tagMode(current).rawValue, current.id,
            ])
        return try Self.existingSubscription(id: current.id, db: db)
    }

    public func episodesToDownload(subscriptionID: Int64, newest: Int) async throws -> [StoredEpisode] {
        guard newest > 0 else { return [] }
        return try await read { db in
            let episodes = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM episode WHERE subscriptionId = ?
                    ORDER BY COALESCE(published, firstSeenAt) DESC, id DESC LIMIT ?
                    """,
                arguments: [subscriptionID, newest]
            ).map(EpisodeColumns.storedEpisode(from:))
            let records = try Row.fetchAll(
                db, sql: "SELECT * FROM download WHERE subscriptionId = ?", arguments: [subscriptionID]
            ).map(Self.download(from:))
            return DownloadPlan.episodesToDownload(
                episodes, records: Dictionary(records.map { ($0.episodeKey, $0) }, uniquingKeysWith: { a, _ in a }))
        }
    }

    public func filesPastRetention(subscriptionID: Int64, keepNewest: Int) async throws -> [DownloadRecord] {
        try await read { db in
            let records = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.* FROM download AS d
                    JOIN episode AS e ON e.subscriptionId = d.subscriptionId AND e.key = d.episodeKey
                    WHERE d.subscriptionId = ?
                    ORDER BY COALESCE(e.published, e.firstSeenAt) DESC, e.id DESC
                    """,
                arguments: [subscriptionID]
            ).map(Self.download(from:))
            return DownloadPlan.pastRetention(records, keepNewest: keepNewest)
        }
    }

    public func downloadUsage() async throws -> [Int64: DownloadUsage] {
        try await read { db in
            DownloadPlan.usage(of: try Row.fetchAll(db, sql: "SELECT * FROM download").map(Self.download(from:)))
        }
    }

    public func download(subscriptionID: Int64, episodeKey: String) async throws -> DownloadRecord? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM download WHERE subscriptionId = ? AND episodeKey = ?",
                arguments: [subscriptionID, episodeKey]
            ).map(Self.download(from:))
        }
    }

    public func downloads(subscriptionID: Int64?) async throws -> [DownloadRecord] {
        try await read { db in
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

    public func extraFiles(subscriptionID: Int64) async throws -> [String: [ExtraFile]] {
        try await read { db in
            var files: [String: [ExtraFile]] = [:]
            for row in try Row.fetchAll(
                db,
                sql: "SELECT episodeKey, extraFiles FROM download WHERE subscriptionId = ? AND extraFiles IS NOT NULL",
                arguments: [subscriptionID])
            {
                let list = ExtraFile.files(stored: row["extraFiles"] as String?)
                if !list.isEmpty { files[row["episodeKey"]] = list }
            }
            return files
        }
    }

    @discardableResult
    public func recordExtraFiles(
        subscriptionID: Int64, episodeKey: String, _ files: [ExtraFile]
    ) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE download SET extraFiles = ? WHERE subscriptionId = ? AND episodeKey = ?",
                arguments: [ExtraFile.storedText(files), subscriptionID, episodeKey])
            return db.changesCount > 0
        }
    }

    // MARK: - The one write every change goes through (DownloadRecordStore)

    public func applyDownloadChange(
        _ change: DownloadChange, subscriptionID: Int64, episodeKey: String
    ) async throws -> AppliedDownloadChange? {
        try await write { db -> AppliedDownloadChange? in
            let current = try Row.fetchOne(
                db, sql: "SELECT * FROM download WHERE subscriptionId = ? AND episodeKey = ?",
                arguments: [subscriptionID, episodeKey]
            ).map(Self.download(from:))
            let episodeStored =
                try change.mayCreateRecord
                && Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM episode WHERE subscriptionId = ? AND key = ?)",
                    arguments: [subscriptionID, episodeKey]) == true
            let plan = try DownloadPlan(
                change, subscriptionID: subscriptionID, episodeKey: episodeKey, current: current,
                episodeStored: episodeStored)
            guard let record = plan.record else { return nil }
            // An upsert, not a replace: the row keeps its rowid, which bounds an export (``exportBounds()``).
            try db.execute(
                sql: """
                    INSERT INTO download (subscriptionId, episodeKey, state, partPath, filePath, bytes, etag, lastModified,
                      url, startedAt, downloadedAt, lastError, deletedByUser, removedByRetention, permanentFailures,
                      retryAfter, permanentError)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (subscriptionId, episodeKey) DO UPDATE SET
                      state = excluded.state, partPath = excluded.partPath, filePath = excluded.filePath,
                      bytes = excluded.bytes, etag = excluded.etag, lastModified = excluded.lastModified,
                      url = excluded.url, startedAt = excluded.startedAt, downloadedAt = excluded.downloadedAt,
                      lastError = excluded.lastError, deletedByUser = excluded.deletedByUser,
                      removedByRetention = excluded.removedByRetention,
                      permanentFailures = excluded.permanentFailures, retryAfter = excluded.retryAfter,
                      permanentError = excluded.permanentError
                    """,
                arguments: [
                    record.subscriptionID, record.episodeKey, record.state.rawValue, record.partPath, record.filePath,
                    record.bytes, record.etag, record.lastModified, record.url?.absoluteString,
                    record.startedAt?.timeIntervalSince1970, record.downloadedAt?.timeIntervalSince1970,
                    record.lastError, record.deletedByUser, record.removedByRetention, record.permanentFailures,
                    record.retryAfter?.timeIntervalSince1970, record.permanentError,
                ])
            if case .completed(let completion) = change {
                try Self.queueDownloadAction(completion, db: db)
            }
            return try Row.fetchOne(
                db, sql: "SELECT * FROM download WHERE subscriptionId = ? AND episodeKey = ?",
                arguments: [subscriptionID, episodeKey]
            ).map { AppliedDownloadChange(record: Self.download(from: $0), plan: plan) }
        }
    }

    static func download(from row: Row) -> DownloadRecord {
        DownloadRecord(
            subscriptionID: row["subscriptionId"], episodeKey: row["episodeKey"],
            state: DownloadRecord.State(rawValue: row["state"]) ?? .inProgress, partPath: row["partPath"],
            filePath: row["filePath"], bytes: row["bytes"], etag: row["etag"], lastModified: row["lastModified"],
            url: (row["url"] as String?).flatMap(URL.init(string:)), startedAt: date(row["startedAt"]),
            downloadedAt: date(row["downloadedAt"]), lastError: row["lastError"], deletedByUser: row["deletedByUser"],
            removedByRetention: row["removedByRetention"], permanentFailures: (row["permanentFailures"] as Int?) ?? 0,
            retryAfter: date(row["retryAfter"]), permanentError: row["permanentError"])
    }
}
