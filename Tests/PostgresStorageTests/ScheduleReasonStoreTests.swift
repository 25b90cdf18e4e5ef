import FeedModels
import FeedStorage
import Foundation
import GRDB
import PostgresStorage
import TestSupport
import Testing

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

/// The reason for a feed's next check is stored as facts, the same way in SQLite and PostgreSQL, and a sentence an
/// older podfresh stored reads back as that sentence.
struct ScheduleReasonStoreTests {
    static let reasons: [ScheduleReason] =
        [
            .cadence(interval: .seconds(6 * 3600), basis: .noRhythmYet),
            .cadence(interval: .seconds(7_654.25), basis: .medianGap(episodes: 12)),
            .cadence(interval: .seconds(900), basis: .shortestAllowed),
            .cadence(interval: .seconds(86_400), basis: .longestAllowed),
        ] + ScheduleReason.PollingHint.allCases.map { .cadence(interval: .seconds(3 * 3600), basis: .hint($0)) } + [
            .backoff(failures: 1), .backoff(failures: 7), .retryAfter, .complete, .networkOffline, .podping,
            .stored("every 2h (an older sentence)"),
        ]

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func everyReasonReadsBackAsItWasWritten(_ backend: Backend) async throws {
        try await backend.withStore { store in
            for (index, reason) in Self.reasons.enumerated() {
                let feed = try await store.addSubscription(
                    url: URL(string: "https://a.example/\(index).xml")!, title: nil, at: t0, backlog: nil)
                _ = try await store.apply(
                    FeedCheck(
                        subscriptionID: feed.id, checkedAt: t0, status: 304, result: .notModified,
                        nextCheckAt: t0.addingTimeInterval(3600), nextCheckReason: reason))
                let stored = try #require(try await store.subscription(id: feed.id))
                #expect(stored.nextCheckReason == reason)
            }
            let gone = try await store.addSubscription(
                url: URL(string: "https://a.example/gone.xml")!, title: nil, at: t0, backlog: nil)
            _ = try await store.apply(
                FeedCheck(subscriptionID: gone.id, checkedAt: t0, status: 410, result: .gone(message: "HTTP 410")))
            #expect(try await store.subscription(id: gone.id)?.nextCheckReason == .gone)
        }
    }

    @Test func sqliteStoresTheFactsAsJSONAndReadsAnOlderSentenceAsWritten() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-reason-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("podfresh.sqlite").path
        let store = try FeedStore(path: path)
        let feed = try await store.addSubscription(
            url: URL(string: "https://a.example/feed.xml")!, title: nil, at: t0, backlog: nil)
        _ = try await store.apply(
            FeedCheck(
                subscriptionID: feed.id, checkedAt: t0, status: 304, result: .notModified,
                nextCheckAt: t0.addingTimeInterval(3600), nextCheckReason: .backoff(failures: 3)))
        #expect(try Self.sqliteColumn(path: path, id: feed.id) == #"{"failures":3,"kind":"backoff"}"#)

        for (older, reason) in Self.olderSentences {
            try Self.sqliteSet(path: path, id: feed.id, older)
            #expect(try await store.subscription(id: feed.id)?.nextCheckReason == reason, "\(older)")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func postgresStoresTheFactsAsJSONAndReadsAnOlderSentenceAsWritten() async throws {
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "reason")
        let database = String(url.split(separator: "/").last ?? "")
        try await PostgresFeedStore.withStore(url: url) { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed.xml")!, title: nil, at: t0, backlog: nil)
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: t0, status: 304, result: .notModified,
                    nextCheckAt: t0.addingTimeInterval(3600), nextCheckReason: .backoff(failures: 3)))
            #expect(
                try await cluster.psql(
                    database: database, "SELECT next_check_reason FROM subscription WHERE id = \(feed.id)")
                    == #"{"failures":3,"kind":"backoff"}"#)

            for (older, reason) in Self.olderSentences {
                let quoted = older.replacingOccurrences(of: "'", with: "''")
                _ = try await cluster.psql(
                    database: database, "UPDATE subscription SET next_check_reason = '\(quoted)' WHERE id = \(feed.id)")
                #expect(try await store.subscription(id: feed.id)?.nextCheckReason == reason, "\(older)")
            }
        }
    }

    /// What an older podfresh (or an older worker of a fleet) wrote, and what it reads back as.
    static let olderSentences: [(String, ScheduleReason)] = [
        ("every 2h (half the median gap of 12 episodes)", .stored("every 2h (half the median gap of 12 episodes)")),
        ("backoff after 3 failures", .stored("backoff after 3 failures")),
        ("{not json", .stored("{not json")),
        (#"{"kind":"someday"}"#, .stored(#"{"kind":"someday"}"#)),
        ("podping", .podping),
    ]

    private static func sqliteColumn(path: String, id: Int64) throws -> String? {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchOne(db, sql: "SELECT nextCheckReason FROM subscription WHERE id = ?", arguments: [id])
        }
    }

    private static func sqliteSet(path: String, id: Int64, _ text: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(sql: "UPDATE subscription SET nextCheckReason = ? WHERE id = ?", arguments: [text, id])
        }
    }
}
