public import FeedModels
public import Foundation
import GRDB

extension FeedStore {
    public func beginRun(at date: Date) async throws -> RefreshRun {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO refreshRun (startedAt) VALUES (?)", arguments: [date.timeIntervalSince1970])
            return RefreshRun(id: db.lastInsertedRowID, startedAt: date)
        }
    }

    public func finishRun(_ run: RefreshRun) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE refreshRun SET endedAt = ?, feedsChecked = ?, feedsFailed = ?, feedsNotModified = ?, newEpisodes = ?,
                      bytesDownloaded = ?, bytesSaved = ?, feedsReadShort = ?
                    WHERE id = ?
                    """,
                arguments: [
                    run.endedAt?.timeIntervalSince1970, run.feedsChecked, run.feedsFailed, run.feedsNotModified,
                    run.newEpisodes, run.bytesDownloaded, run.bytesSaved, run.feedsReadShort, run.id,
                ])
        }
    }

    /// The newest finished run.
    public func lastRun() async throws -> RefreshRun? {
        try await lastRun(checkedFeeds: false)
    }

    /// The newest finished run; with `checkedFeeds`, the newest that checked at least one feed (what `episodes --new`
    /// means by "the last refresh": a run that had nothing due found nothing, but hid nothing either).
    public func lastRun(checkedFeeds: Bool) async throws -> RefreshRun? {
        let condition = checkedFeeds ? " AND feedsChecked > 0" : ""
        return try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM refreshRun WHERE endedAt IS NOT NULL\(condition) ORDER BY id DESC LIMIT 1"
            ).map(Self.run(from:))
        }
    }

    static func run(from row: Row) -> RefreshRun {
        var run = RefreshRun(
            id: row["id"], startedAt: Date(timeIntervalSince1970: row["startedAt"]), endedAt: Self.date(row["endedAt"]),
            feedsChecked: row["feedsChecked"], feedsFailed: row["feedsFailed"],
            feedsNotModified: row["feedsNotModified"], newEpisodes: row["newEpisodes"],
            bytesDownloaded: row["bytesDownloaded"], bytesSaved: row["bytesSaved"])
        run.feedsReadShort = row["feedsReadShort"] ?? 0
        return run
    }

    /// Runs `PRAGMA integrity_check` and returns its answer (`ok` when the file is sound).
    public func integrityCheck() async throws -> String {
        try await read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }
}
