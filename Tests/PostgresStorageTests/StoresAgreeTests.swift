import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import PostgresStorage
import TestSupport
import Testing

/// The real feeds of the parser's fixtures and the demo feeds, parsed; those the parser refuses or that list no
/// episode are left out.
private let realFeeds: [(name: String, feed: ParsedFeed)] = {
    var root = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
        root.deleteLastPathComponent()
    }
    let folders = [
        root.appendingPathComponent("Tests/FeedParsingTests/Fixtures"), root.appendingPathComponent("Feeds"),
    ]
    var feeds: [(String, ParsedFeed)] = []
    for folder in folders {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
                let feed = try? FeedParser.parse(
                    Array(data), baseURL: URL(string: "https://feeds.example.org/\(name)")),
                !feed.episodes.isEmpty
            else { continue }
            feeds.append((name, feed))
        }
    }
    return feeds
}()

private let t0 = Date(timeIntervalSince1970: 1_731_400_000.125)

/// The feed as a later fetch finds it: its first episode retitled, its last one gone.
private func later(_ feed: ParsedFeed) -> ParsedFeed {
    var feed = feed
    feed.episodes[0].title = (feed.episodes[0].title ?? "") + " (corrected)"
    if feed.episodes.count > 1 { feed.episodes.removeLast() }
    return feed
}

private func fetched(
    _ feed: ParsedFeed, _ subscription: Subscription, at date: Date, run: RefreshRun, limit: Int?
)
    -> FeedCheck
{
    FeedCheck(
        subscriptionID: subscription.id, checkedAt: date, status: 200,
        result: .fetched(feed, etag: nil, lastModified: nil, unconditional: true), runID: run.id,
        announceLimit: limit)
}

/// What a store did with every real feed, merged twice, in words both stores can be compared in.
private struct Outcome: Equatable {
    /// Per feed, per merge: the announced keys with their run, the updated count, the back catalogue.
    var summaries: [String] = []
    /// Per feed: every stored episode as the repository reads it back.
    var episodes: [[String: StoredEpisode]] = []
}

/// Merges every real feed into `store` (first fetch announcing three, then a later fetch) and records the outcome.
private func mergeEveryFeed(into store: any SpecifiedStore) async throws -> (Outcome, [Int64]) {
    var outcome = Outcome()
    var ids: [Int64] = []
    let first = try await store.beginRun(at: t0)
    let second = try await store.beginRun(at: t0 + 3600)
    for (name, feed) in realFeeds {
        let subscription = try await store.addSubscription(
            url: URL(string: "https://feeds.example.org/\(name)")!, title: nil, at: t0, backlog: 3)
        ids.append(subscription.id)
        for (check, merge) in [
            (fetched(feed, subscription, at: t0, run: first, limit: 3), "first"),
            (fetched(later(feed), subscription, at: t0 + 3600, run: second, limit: nil), "later"),
        ] {
            let summary = try await store.applyAsync(check)
            let announced = summary.newEpisodes.map { "\($0.key)@\($0.firstSeenRunID.map(String.init) ?? "-")" }
            outcome.summaries.append(
                "\(name) \(merge): new \(announced), updated \(summary.updatedCount), back \(summary.backlogCount)")
        }
        let stored = try await store.episodes(EpisodeQuery(subscriptionID: subscription.id))
        outcome.episodes.append(Dictionary(stored.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a }))
    }
    return (outcome, ids)
}

/// Text as hexadecimal UTF-8, so keys with any characters compare line by line.
private func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }

/// The rules written once: the SQLite and PostgreSQL stores store the same fingerprint for every episode of the same
/// real feeds (the one ``EpisodeFields/fingerprint``), and carry out the same merge plan.
@Suite(.serialized)
struct StoresAgreeTests {
    @Test func theFixturesGiveEnoughRealFeedsToCompare() {
        #expect(realFeeds.count >= 20)
        #expect(realFeeds.map(\.feed.episodes.count).reduce(0, +) >= 90)
    }

    @Test func bothStoresStoreTheOneFingerprintAndMergeTheSameWayForTheSameFeeds() async throws {
        // Given: one new SQLite file and one new PostgreSQL database
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-agree-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try FeedStore(path: directory.appendingPathComponent("podfresh.sqlite").path)
        let cluster = try TestPostgres.shared()
        let url = try cluster.makeDatabase(prefix: "agree")

        // When: every real feed is merged into each, twice (a first fetch, then a changed one)
        let (sqliteOutcome, sqliteIDs) = try await mergeEveryFeed(into: sqlite)
        let (postgresOutcome, postgresIDs) = try await PostgresFeedStore.withStore(url: url) { store in
            try await mergeEveryFeed(into: store)
        }

        // Then: both announced, updated and kept the same episodes, and read them back the same
        #expect(sqliteIDs == postgresIDs)
        #expect(sqliteOutcome.summaries == postgresOutcome.summaries)
        for (index, (name, _)) in realFeeds.enumerated() {
            #expect(sqliteOutcome.episodes[index] == postgresOutcome.episodes[index], "\(name)")
        }
        // and every episode carries the same fingerprint in both, the one of its fields as last merged
        let sqliteFingerprints = try sqlite.exportEpisodes(after: 0, through: .max, limit: 100_000)
            .map { "\($0.subscriptionID) \(hex($0.key)) \($0.fingerprint)" }.sorted()
        let postgresFingerprints = try cluster.psql(
            database: String(url.split(separator: "/").last ?? ""),
            "SELECT subscription_id || ' ' || encode(convert_to(key, 'UTF8'), 'hex') || ' ' || fingerprint FROM episode"
        ).split(separator: "\n").map(String.init).sorted()
        #expect(sqliteFingerprints.count >= 90)
        #expect(sqliteFingerprints == postgresFingerprints)
        var expected: [String] = []
        for ((_, feed), id) in zip(realFeeds, sqliteIDs) {
            var latest: [String: String] = [:]
            for episode in feed.episodes.reversed() { latest[episode.id] = EpisodeFields(episode).fingerprint }
            for episode in later(feed).episodes.reversed() { latest[episode.id] = EpisodeFields(episode).fingerprint }
            expected += latest.map { "\(id) \(hex($0.key)) \($0.value)" }
        }
        #expect(sqliteFingerprints == expected.sorted())
    }
}
