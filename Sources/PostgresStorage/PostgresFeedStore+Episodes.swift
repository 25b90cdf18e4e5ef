public import FeedModels
public import Foundation
import PostgresNIO

extension PostgresFeedStore {
    static let episodeColumns = """
        subscription_id, key, guid, guid_is_permalink, title, link, description, summary, published, duration,
        enclosures, episode_number, season, episode_type, explicit, image, transcripts, chapters, persons,
        alternate_enclosures, live_item, first_seen_at, last_seen_at, first_seen_run_id
        """

    public func episodes(_ query: EpisodeQuery) async throws -> [StoredEpisode] {
        var (sql, binds) = Self.episodeSelection(query, columns: Self.episodeColumns)
        // As the SQLite store: dated episodes first, newest first; then undated ones, the latest seen first and, of
        // those seen by one check, in feed order (the order they were stored in).
        sql +=
            " ORDER BY published IS NULL, COALESCE(published, first_seen_at) DESC, CASE WHEN published IS NULL THEN id ELSE -id END"
        if let limit = query.limit {
            binds.append(limit)
            sql += " LIMIT $\(binds.count)"
        }
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map(Self.storedEpisode(from:))
    }

    public func countEpisodes(_ query: EpisodeQuery) async throws -> Int {
        let (sql, binds) = Self.episodeSelection(query, columns: "count(*) AS n")
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: binds)).first.map { try RowReader($0).integer("n") }
            .flatMap { $0 } ?? 0
    }

    /// `SELECT columns FROM episode WHERE …` for the query's filters, with its bound values (no order, no limit).
    private static func episodeSelection(_ query: EpisodeQuery, columns: String) -> (String, PostgresBindings) {
        var conditions: [String] = []
        var binds = PostgresBindings()
        if let id = query.subscriptionID {
            binds.append(id)
            conditions.append("subscription_id = $\(binds.count)")
        }
        if let since = query.since {
            binds.append(since.timeIntervalSince1970)
            conditions.append("COALESCE(published, first_seen_at) >= $\(binds.count)")
        }
        if let runID = query.runID {
            binds.append(runID)
            conditions.append("first_seen_run_id = $\(binds.count)")
        }
        if query.unplayedOnly {
            conditions.append(
                "NOT EXISTS (SELECT 1 FROM episode_play AS p WHERE p.subscription_id = episode.subscription_id AND p.episode_key = episode.key AND p.played)"
            )
        }
        var sql = "SELECT \(columns) FROM episode"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        return (sql, binds)
    }

    public func episodeCounts() async throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for row in try await rows("SELECT subscription_id, count(*) AS n FROM episode GROUP BY subscription_id") {
            let r = RowReader(row)
            if let id = try r.int64("subscription_id") { counts[id] = try r.integer("n") ?? 0 }
        }
        return counts
    }

    public func leadingEpisodes(subscriptionID: Int64, limit: Int) async throws -> [LeadingEpisode] {
        try await rows(
            """
            SELECT key, fingerprint, published FROM episode WHERE subscription_id = \(subscriptionID)
              AND published IS NOT NULL
            ORDER BY published DESC LIMIT \(limit)
            """
        ).compactMap { row in
            let r = RowReader(row)
            guard let key = try r.text("key"), let fingerprint = try r.text("fingerprint"),
                let published = try r.date("published")
            else { return nil }
            return LeadingEpisode(key: key, fingerprint: fingerprint, published: published)
        }
    }

    public func recentPublishedDates(subscriptionID: Int64, limit: Int) async throws -> [Date] {
        try await rows(
            """
            SELECT published FROM episode WHERE subscription_id = \(subscriptionID) AND published IS NOT NULL
            ORDER BY published DESC LIMIT \(limit)
            """
        ).compactMap { try RowReader($0).date("published") }
    }

    static func storedEpisode(from row: PostgresRow) throws -> StoredEpisode {
        let r = RowReader(row)
        let fields = EpisodeFields(
            guid: try r.text("guid"), guidIsPermaLink: try r.bool("guid_is_permalink"), title: try r.text("title"),
            link: try r.text("link"), description: try r.text("description"), summary: try r.text("summary"),
            published: try r.real("published"), duration: try r.real("duration"),
            enclosures: try r.text("enclosures") ?? "[]", episodeNumber: try r.integer("episode_number"),
            season: try r.integer("season"), episodeType: try r.text("episode_type"), explicit: try r.bool("explicit"),
            image: try r.text("image"), transcripts: try r.text("transcripts") ?? "[]",
            chapters: try r.text("chapters"), persons: try r.text("persons") ?? "[]",
            alternateEnclosures: try r.text("alternate_enclosures") ?? "[]", live: try r.text("live_item"))
        let key = try r.text("key") ?? ""
        return StoredEpisode(
            subscriptionID: try r.int64("subscription_id") ?? 0, key: key, episode: fields.episode(key: key),
            firstSeenAt: try r.date("first_seen_at") ?? Date(timeIntervalSince1970: 0),
            lastSeenAt: try r.date("last_seen_at") ?? Date(timeIntervalSince1970: 0),
            firstSeenRunID: try r.int64("first_seen_run_id"))
    }

    // MARK: - Runs

    public func beginRun(at date: Date) async throws -> RefreshRun {
        let rows = try await rows(
            "INSERT INTO refresh_run (started_at) VALUES (\(date.timeIntervalSince1970)) RETURNING id")
        guard let id = try rows.first.flatMap({ try RowReader($0).int64("id") }) else {
            throw StoreError(.noRunID(database: location.description))
        }
        return RefreshRun(id: id, startedAt: date)
    }

    public func finishRun(_ run: RefreshRun) async throws {
        _ = try await rows(
            """
            UPDATE refresh_run SET ended_at = \(run.endedAt?.timeIntervalSince1970),
              feeds_checked = \(run.feedsChecked), feeds_failed = \(run.feedsFailed),
              feeds_not_modified = \(run.feedsNotModified), new_episodes = \(run.newEpisodes),
              bytes_downloaded = \(run.bytesDownloaded), bytes_saved = \(run.bytesSaved),
              feeds_read_short = \(run.feedsReadShort)
            WHERE id = \(run.id)
            """)
    }

    public func lastRun(checkedFeeds: Bool) async throws -> RefreshRun? {
        let condition = checkedFeeds ? " AND feeds_checked > 0" : ""
        return try await rows(
            """
            SELECT \(unescaped: Self.runColumns), feeds_read_short
            FROM refresh_run WHERE ended_at IS NOT NULL\(unescaped: condition) ORDER BY id DESC LIMIT 1
            """
        ).first.map(Self.runWithShortReads(from:))
    }

    /// The `refresh_run` table's columns, in the order ``run(from:)`` reads and a copy writes them.
    static let runColumns = """
        id, started_at, ended_at, feeds_checked, feeds_failed, feeds_not_modified, new_episodes, bytes_downloaded,
        bytes_saved
        """

    static func run(from row: PostgresRow) throws -> RefreshRun {
        let r = RowReader(row)
        return RefreshRun(
            id: try r.int64("id") ?? 0, startedAt: try r.date("started_at") ?? Date(timeIntervalSince1970: 0),
            endedAt: try r.date("ended_at"), feedsChecked: try r.integer("feeds_checked") ?? 0,
            feedsFailed: try r.integer("feeds_failed") ?? 0, feedsNotModified: try r.integer("feeds_not_modified") ?? 0,
            newEpisodes: try r.integer("new_episodes") ?? 0, bytesDownloaded: try r.integer("bytes_downloaded") ?? 0,
            bytesSaved: try r.integer("bytes_saved") ?? 0)
    }

    /// ``run(from:)`` with the count of feeds read short (issue #36), which ``runColumns`` leaves to the first run.
    static func runWithShortReads(from row: PostgresRow) throws -> RefreshRun {
        var run = try run(from: row)
        run.feedsReadShort = try RowReader(row).integer("feeds_read_short") ?? 0
        return run
    }
}
