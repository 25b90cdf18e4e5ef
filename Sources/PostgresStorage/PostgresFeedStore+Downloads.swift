public import FeedModels
import Foundation
import PostgresNIO

// Download settings and records on PostgreSQL (see ``DownloadRepository``): the queries, and the one write every
// change of a record goes through (``DownloadRecordStore``), the record's row locked. Each method is one statement or
// one transaction.
extension PostgresFeedStore: DownloadRecordStore {
    static let downloadColumns = """
        subscription_id, episode_key, state, part_path, file_path, bytes, etag, last_modified, url, started_at,
        downloaded_at, last_error, deleted_by_user, removed_by_retention, permanent_failures, retry_after,
        permanent_error
        """

    public func updateDownloadSettings(id: Int64, _ settings: DownloadSettings) async throws -> Subscription {
        try await transaction { connection in
            let current = try await Self.lockedSubscription(id: id, on: connection, store: self)
            return try await applyDownloadSettings(settings, to: current, on: connection)
        }
    }

    /// Makes `settings` to `current`'s download settings inside the caller's transaction; the subscription as stored.
    func applyDownloadSettings(
        _ settings: DownloadSettings, to current: Subscription, on connection: PostgresConnection
    ) async throws -> Subscription {
        let id = current.id
        let (enabled, keep, directory, template) = settings.applied(to: current)
        let deletePlayed = settings.deletesPlayed(current)
        let filter = settings.filter(after: current).storedText
        let extras = settings.savesExtras(current)
        let (since, backlog) = settings.downloadsFrom(after: current)
        let sinceSeconds = since?.timeIntervalSince1970
        let tagMode = settings.tagMode(current).rawValue
        try await connection.query(
            """
            UPDATE subscription SET downloads_enabled = \(enabled), keep_newest = \(keep),
              download_directory = \(directory), file_name_template = \(template), delete_played = \(deletePlayed),
              download_filter = \(filter), extras = \(extras), downloads_since = \(sinceSeconds),
              download_backlog = \(backlog), tag_mode = \(tagMode)
            WHERE id = \(id)
            """, logger: logger)
        return try await Self.lockedSubscription(id: id, on: connection, store: self)
    }

    public func episodesToDownload(subscriptionID: Int64, newest: Int) async throws -> [StoredEpisode] {
        guard newest > 0 else { return [] }
        return try await transaction { connection in
            var episodes: [StoredEpisode] = []
            for try await row in try await connection.query(
                """
                SELECT \(unescaped: Self.episodeColumns) FROM episode WHERE subscription_id = \(subscriptionID)
                ORDER BY COALESCE(published, first_seen_at) DESC, id DESC LIMIT \(newest)
                """, logger: logger)
            {
                episodes.append(try Self.storedEpisode(from: row))
            }
            var records: [String: DownloadRecord] = [:]
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.downloadColumns) FROM download WHERE subscription_id = \(subscriptionID)",
                logger: logger)
            {
                let record = try Self.download(from: row)
                records[record.episodeKey] = record
            }
            return DownloadPlan.episodesToDownload(episodes, records: records)
        }
    }

    public func filesPastRetention(subscriptionID: Int64, keepNewest: Int) async throws -> [DownloadRecord] {
        let columns = Self.downloadColumns.split(separator: ",")
            .map { "d." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")
        let records = try await rows(
            """
            SELECT \(unescaped: columns) FROM download AS d
            JOIN episode AS e ON e.subscription_id = d.subscription_id AND e.key = d.episode_key
            WHERE d.subscription_id = \(subscriptionID)
            ORDER BY COALESCE(e.published, e.first_seen_at) DESC, e.id DESC
            """
        ).map(Self.download(from:))
        return DownloadPlan.pastRetention(records, keepNewest: keepNewest)
    }

    public func downloadUsage() async throws -> [Int64: DownloadUsage] {
        DownloadPlan.usage(
            of: try await rows("SELECT \(unescaped: Self.downloadColumns) FROM download").map(Self.download(from:)))
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

    public func extraFiles(subscriptionID: Int64) async throws -> [String: [ExtraFile]] {
        var files: [String: [ExtraFile]] = [:]
        for row in try await rows(
            """
            SELECT episode_key, extra_files FROM download
            WHERE subscription_id = \(subscriptionID) AND extra_files IS NOT NULL
            """)
        {
            let r = RowReader(row)
            let list = ExtraFile.files(stored: try r.text("extra_files"))
            if !list.isEmpty, let key = try r.text("episode_key") { files[key] = list }
        }
        return files
    }

    @discardableResult
    public func recordExtraFiles(
        subscriptionID: Int64, episodeKey: String, _ files: [ExtraFile]
    ) async throws -> Bool {
        let stored = ExtraFile.storedText(files)
        let updated = try await rows(
            """
            UPDATE download SET extra_files = \(stored)
            WHERE subscription_id = \(subscriptionID) AND episode_key = \(episodeKey)
            RETURNING episode_key
            """)
        return !updated.isEmpty
    }

    // MARK: - The one write every change goes through (DownloadRecordStore)

    public func applyDownloadChange(
        _ change: DownloadChange, subscriptionID: Int64, episodeKey: String
    ) async throws -> AppliedDownloadChange? {
        try await transaction { connection -> AppliedDownloadChange? in
            var current: DownloadRecord?
            for try await row in try await connection.query(
                """
                SELECT \(unescaped: Self.downloadColumns) FROM download
                WHERE subscription_id = \(subscriptionID) AND episode_key = \(episodeKey) FOR UPDATE
                """, logger: logger)
            {
                current = try Self.download(from: row)
            }
            var episodeStored = false
            if change.mayCreateRecord {
                for try await _ in try await connection.query(
                    "SELECT 1 FROM episode WHERE subscription_id = \(subscriptionID) AND key = \(episodeKey)",
                    logger: logger)
                {
                    episodeStored = true
                }
            }
            let plan = try DownloadPlan(
                change, subscriptionID: subscriptionID, episodeKey: episodeKey, current: current,
                episodeStored: episodeStored)
            guard let r = plan.record else { return nil }
            let rows = try await connection.query(
                """
                INSERT INTO download (\(unescaped: Self.downloadColumns))
                VALUES (\(r.subscriptionID), \(r.episodeKey), \(r.state.rawValue), \(r.partPath), \(r.filePath),
                  \(r.bytes), \(r.etag), \(r.lastModified), \(r.url?.absoluteString),
                  \(r.startedAt?.timeIntervalSince1970), \(r.downloadedAt?.timeIntervalSince1970), \(r.lastError),
                  \(r.deletedByUser), \(r.removedByRetention), \(Int64(r.permanentFailures)),
                  \(r.retryAfter?.timeIntervalSince1970), \(r.permanentError))
                ON CONFLICT (subscription_id, episode_key) DO UPDATE SET
                  state = excluded.state, part_path = excluded.part_path, file_path = excluded.file_path,
                  bytes = excluded.bytes, etag = excluded.etag, last_modified = excluded.last_modified,
                  url = excluded.url, started_at = excluded.started_at, downloaded_at = excluded.downloaded_at,
                  last_error = excluded.last_error, deleted_by_user = excluded.deleted_by_user,
                  removed_by_retention = excluded.removed_by_retention,
                  permanent_failures = excluded.permanent_failures, retry_after = excluded.retry_after,
                  permanent_error = excluded.permanent_error
                RETURNING \(unescaped: Self.downloadColumns)
                """, logger: logger)
            var applied: AppliedDownloadChange?
            for try await row in rows {
                applied = AppliedDownloadChange(record: try Self.download(from: row), plan: plan)
            }
            if applied != nil, case .completed(let completion) = change {
                try await Self.queueDownloadAction(completion, on: connection, logger: logger)
            }
            if let applied { return applied }
            return nil
        }
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
            removedByRetention: try r.bool("removed_by_retention") ?? false,
            permanentFailures: Int(try r.int64("permanent_failures") ?? 0), retryAfter: try r.date("retry_after"),
            permanentError: try r.text("permanent_error"))
    }
}
