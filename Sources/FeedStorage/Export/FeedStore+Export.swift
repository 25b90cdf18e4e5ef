public import FeedModels
import GRDB

/// Reading the whole store back out, a page at a time, every column as stored: what `podfresh migrate` copies into
/// another database. Only reads; works on a store opened with
/// ``FeedStore/openForReading(path:upgradingOlderSchema:)``.
///
/// Pages are keyset pages (`id > after … ORDER BY id LIMIT n`), so memory holds one page however large the file, and
/// a page costs the same at the end of a table as at its start. Each page is its own read: bound every page by the
/// ``ExportBounds`` taken first, so rows added while copying are left out, and compare the rows copied with its
/// counts to notice rows removed meanwhile.
extension FeedStore {
    /// How many subscriptions, episodes, runs and download records the store holds, and each table's highest id
    /// (the `download` table's highest rowid), in one read.
    public func exportBounds() async throws -> ExportBounds {
        try await read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT COUNT(*) FROM subscription) AS subscriptions,
                      (SELECT COUNT(*) FROM episode) AS episodes, (SELECT COUNT(*) FROM refreshRun) AS runs,
                      (SELECT COALESCE(MAX(id), 0) FROM subscription) AS lastSubscription,
                      (SELECT COALESCE(MAX(id), 0) FROM episode) AS lastEpisode,
                      (SELECT COALESCE(MAX(id), 0) FROM refreshRun) AS lastRun,
                      (SELECT COUNT(*) FROM download) AS downloads,
                      (SELECT COALESCE(MAX(rowid), 0) FROM download) AS lastDownload
                    """)
            guard let row else {
                return ExportBounds(
                    subscriptions: 0, episodes: 0, runs: 0, lastSubscriptionID: 0, lastEpisodeID: 0, lastRunID: 0)
            }
            return ExportBounds(
                subscriptions: row["subscriptions"], episodes: row["episodes"], runs: row["runs"],
                lastSubscriptionID: row["lastSubscription"], lastEpisodeID: row["lastEpisode"],
                lastRunID: row["lastRun"], downloads: row["downloads"], lastDownloadRowID: row["lastDownload"])
        }
    }

    /// Up to `limit` subscriptions with ids after `after` and at most `last`, by id.
    public func exportSubscriptions(after: Int64, through last: Int64, limit: Int) async throws -> [Subscription] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM subscription WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
                arguments: [after, last, limit]
            ).compactMap(Self.subscription(from:))
        }
    }

    /// Up to `limit` episodes with ids after `after` and at most `last`, by id.
    public func exportEpisodes(after: Int64, through last: Int64, limit: Int) async throws -> [ExportedEpisode] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM episode WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
                arguments: [after, last, limit]
            ).map { row in
                ExportedEpisode(
                    id: row["id"], subscriptionID: row["subscriptionId"], key: row["key"],
                    fingerprint: row["fingerprint"],
                    fields: EpisodeFields(
                        guid: row["guid"], guidIsPermaLink: row["guidIsPermaLink"], title: row["title"],
                        link: row["link"], description: row["description"], summary: row["summary"],
                        published: row["published"], duration: row["duration"], enclosures: row["enclosures"],
                        episodeNumber: row["episodeNumber"], season: row["season"], episodeType: row["episodeType"],
                        explicit: row["explicit"], image: row["image"], transcripts: row["transcripts"],
                        chapters: row["chapters"], persons: row["persons"],
                        alternateEnclosures: row["alternateEnclosures"], live: row["liveItem"]),
                    firstSeenAt: row["firstSeenAt"], lastSeenAt: row["lastSeenAt"],
                    firstSeenRunID: row["firstSeenRunId"])
            }
        }
    }

    /// Up to `limit` refresh runs with ids after `after` and at most `last`, by id.
    public func exportRuns(after: Int64, through last: Int64, limit: Int) async throws -> [RefreshRun] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM refreshRun WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
                arguments: [after, last, limit]
            ).map(Self.run(from:))
        }
    }

    /// Up to `limit` download records after `position` (from the first when nil) with a rowid at most `lastRowID`,
    /// by feed and episode key.
    ///
    /// The table has no id: pages follow its primary key, so no record is read twice, and the rowid bound leaves out
    /// records added after ``exportBounds()`` (a record changed since is read as it is now).
    public func exportDownloads(
        after position: DownloadRecord.Position?, through lastRowID: Int64, limit: Int
    ) async throws -> [DownloadRecord] {
        try await read { db in
            var sql = "SELECT * FROM download WHERE rowid <= ?"
            var arguments: StatementArguments = [lastRowID]
            if let position {
                sql += " AND (subscriptionId, episodeKey) > (?, ?)"
                arguments += [position.subscriptionID, position.episodeKey]
            }
            sql += " ORDER BY subscriptionId, episodeKey LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.download(from:))
        }
    }
}
