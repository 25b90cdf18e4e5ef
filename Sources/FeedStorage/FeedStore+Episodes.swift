public import FeedModels
public import Foundation
import GRDB

extension FeedStore {
    public func episodes(_ query: EpisodeQuery) async throws -> [StoredEpisode] {
        var (sql, arguments) = Self.episodeSelection(query, columns: "*")
        // Dated episodes first, newest first; then undated ones, the latest seen first and, of those seen by one
        // check, in feed order (the order they were stored in).
        sql +=
            " ORDER BY published IS NULL, COALESCE(published, firstSeenAt) DESC, CASE WHEN published IS NULL THEN id ELSE -id END"
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return try await read { [sql, arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map(EpisodeColumns.storedEpisode(from:))
        }
    }

    /// How many stored episodes match `query`, ignoring its limit (so a listing can say how many it left out).
    public func countEpisodes(_ query: EpisodeQuery) async throws -> Int {
        let (sql, arguments) = Self.episodeSelection(query, columns: "COUNT(*)")
        return try await read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
    }

    /// `SELECT columns FROM episode WHERE …` for the query's filters (no order, no limit).
    private static func episodeSelection(_ query: EpisodeQuery, columns: String) -> (String, StatementArguments) {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let id = query.subscriptionID {
            conditions.append("subscriptionId = ?")
            arguments += [id]
        }
        if let since = query.since {
            conditions.append("COALESCE(published, firstSeenAt) >= ?")
            arguments += [since.timeIntervalSince1970]
        }
        if let runID = query.runID {
            conditions.append("firstSeenRunId = ?")
            arguments += [runID]
        }
        if query.unplayedOnly {
            conditions.append(
                "NOT EXISTS (SELECT 1 FROM episodePlay AS p WHERE p.subscriptionId = episode.subscriptionId AND p.episodeKey = episode.key AND p.played)"
            )
        }
        var sql = "SELECT \(columns) FROM episode"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        return (sql, arguments)
    }

    public func episodeCounts() async throws -> [Int64: Int] {
        try await read { db in
            var counts: [Int64: Int] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT subscriptionId, COUNT(*) AS n FROM episode GROUP BY subscriptionId")
            {
                counts[row["subscriptionId"]] = row["n"]
            }
            return counts
        }
    }

    public func recentPublishedDates(subscriptionID: Int64, limit: Int) async throws -> [Date] {
        try await read { db in
            try Double.fetchAll(
                db,
                sql:
                    "SELECT published FROM episode WHERE subscriptionId = ? AND published IS NOT NULL ORDER BY published DESC LIMIT ?",
                arguments: [subscriptionID, limit]
            ).map(Date.init(timeIntervalSince1970:))
        }
    }

    public func leadingEpisodes(subscriptionID: Int64, limit: Int) async throws -> [LeadingEpisode] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT key, fingerprint, published FROM episode
                    WHERE subscriptionId = ? AND published IS NOT NULL ORDER BY published DESC LIMIT ?
                    """,
                arguments: [subscriptionID, limit]
            ).map {
                LeadingEpisode(
                    key: $0["key"], fingerprint: $0["fingerprint"],
                    published: Date(timeIntervalSince1970: $0["published"]))
            }
        }
    }
}
