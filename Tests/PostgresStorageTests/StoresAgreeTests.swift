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
            let summary = try await store.apply(check)
            let announced = summary.newEpisodes.map { "\($0.key)@\($0.firstSeenRunID.map(String.init) ?? "-")" }
            outcome.summaries.append(
                "\(name) \(merge): new \(announced), updated \(summary.updatedCount), back \(summary.backlogCount)")
        }
        let stored = try await store.episodes(EpisodeQuery(subscriptionID: subscription.id))
        outcome.episodes.append(Dictionary(stored.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a }))
    }
    return (outcome, ids)
}

/// What a store holds after one script of download changes, in words both stores can be compared in.
private struct DownloadOutcome: Equatable {
    /// Every record, by feed and key.
    var records: [DownloadRecord] = []
    var usage: [Int64: DownloadUsage] = [:]
    /// Per feed: the files past keeping the newest one, and which of the newest four episodes are to download.
    var pastRetention: [[String]] = []
    var toDownload: [[String]] = []
}

/// The changes the script makes to a feed's `n`th newest episode (from 0): every one starts; the second fails twice;
/// all but the third complete; then a late failure; the first is deleted by the user and allowed again, the fourth
/// removed by retention. The second and fifth files stay on disk.
private func downloadScript(_ n: Int, _ id: Int64, _ key: String) -> [DownloadChange] {
    let start = DownloadStart(
        subscriptionID: id, episodeKey: key, url: URL(string: "https://cdn.example.com/\(id)/\(n).mp3")!,
        partPath: "/d/\(id)/\(n).part", filePath: "/d/\(id)/\(n).mp3", etag: n.isMultiple(of: 2) ? "\"e\(n)\"" : nil,
        lastModified: nil, startedAt: t0 + Double(n))
    let done = DownloadCompletion(
        subscriptionID: id, episodeKey: key, filePath: "/d/\(id)/\(n).mp3", bytes: Int64(1000 + n),
        url: URL(string: "https://media.example.net/\(id)/\(n).mp3")!, etag: nil, lastModified: "Mon",
        downloadedAt: t0 + 60 + Double(n))
    var script: [DownloadChange] = [.started(start)]
    if n == 1 { script += [.failed(error: "stalled", partialBytes: 300), .failed(error: "reset", partialBytes: nil)] }
    if n == 2 || n == 4 {
        // A broken link: counted, waiting, restarted (the count kept), retried now, failed again differently.
        script += [
            .failedPermanently(error: "HTTP 404", partialBytes: nil, at: t0 + 100), .started(start), .retryNow,
            .failedPermanently(error: "HTTP 410", partialBytes: 5, at: t0 + 200),
        ]
    }
    if n == 3 {
        // A host that does not answer: counted and waiting as a failing feed does, then the same again.
        script += [
            .failedTransiently(error: "no answer", partialBytes: nil, at: t0 + 50), .started(start),
            .failedTransiently(error: "no answer", partialBytes: nil, at: t0 + 80),
        ]
    }
    if n != 2 { script.append(.completed(done)) }
    script.append(.failed(error: "late", partialBytes: 1))
    if n == 0 { script += [.deletedByUser, .allowedAgain] }
    if n == 3 { script.append(.removedByRetention) }
    return script
}

/// Makes `change` through the repository method that asks for it; returns whether the store wrote a record, and the
/// record a start or completion returned.
private func make(
    _ change: DownloadChange, _ id: Int64, _ key: String, in store: any SpecifiedStore
) async throws -> (wrote: Bool, returned: DownloadRecord?) {
    switch change {
    case .started(let start): return (true, try await store.recordDownloadStarted(start))
    case .completed(let completion): return (true, try await store.recordDownloadCompleted(completion))
    case .failed(let error, let bytes):
        return (
            try await store.recordDownloadFailed(
                subscriptionID: id, episodeKey: key, error: error, partialBytes: bytes),
            nil
        )
    case .removedByRetention: return (try await store.markRemovedByRetention(subscriptionID: id, episodeKey: key), nil)
    case .deletedByUser: return (try await store.markDeletedByUser(subscriptionID: id, episodeKey: key), nil)
    case .allowedAgain: return (try await store.allowDownloadAgain(subscriptionID: id, episodeKey: key), nil)
    case .failedPermanently(let error, let bytes, let at):
        let recorded = try await store.recordPermanentFailure(
            subscriptionID: id, episodeKey: key, error: error, partialBytes: bytes, at: at)
        return (recorded != nil, recorded?.record)
    case .failedTransiently(let error, let bytes, let at):
        let recorded = try await store.recordTransientFailure(
            subscriptionID: id, episodeKey: key, error: error, partialBytes: bytes, at: at)
        return (recorded != nil, recorded?.record)
    case .retryNow: return (try await store.allowRetryNow(subscriptionID: id, episodeKey: key), nil)
    }
}

/// Runs the download script on the newest five episodes of every feed of `ids` in `store`, checking each step
/// against the ``DownloadPlan`` worked out without a database, and reads back what the store holds.
private func downloadEveryFeed(in store: any SpecifiedStore, ids: [Int64]) async throws -> DownloadOutcome {
    var predicted: [String: DownloadRecord] = [:]
    for id in ids {
        let keys = try await store.episodes(EpisodeQuery(subscriptionID: id)).map(\.key)
        for (n, key) in keys.prefix(5).enumerated() {
            for change in downloadScript(n, id, key) {
                let plan = try DownloadPlan(
                    change, subscriptionID: id, episodeKey: key, current: predicted["\(id) \(key)"],
                    episodeStored: true)
                if let record = plan.record { predicted["\(id) \(key)"] = record }

                let (wrote, returned) = try await make(change, id, key, in: store)

                #expect(wrote == (plan.record != nil), "\(change)")
                if let returned { #expect(returned == plan.record, "\(change)") }
                #expect(try await store.download(subscriptionID: id, episodeKey: key) == predicted["\(id) \(key)"])
            }
        }
        #expect(try await store.markDeletedByUser(subscriptionID: id, episodeKey: "no such episode") == false)
    }
    var outcome = DownloadOutcome()
    for id in ids {
        outcome.pastRetention.append(
            try await store.filesPastRetention(subscriptionID: id, keepNewest: 1).map(\.episodeKey))
        outcome.toDownload.append(try await store.episodesToDownload(subscriptionID: id, newest: 4).map(\.key))
    }
    outcome.records = try await store.downloads(subscriptionID: nil)
    outcome.usage = try await store.downloadUsage()
    #expect(outcome.usage == DownloadPlan.usage(of: predicted.values))
    #expect(outcome.records.count == predicted.count)
    return outcome
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
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "agree")

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
        let sqliteFingerprints = try await sqlite.exportEpisodes(after: 0, through: .max, limit: 100_000)
            .map { "\($0.subscriptionID) \(hex($0.key)) \($0.fingerprint)" }.sorted()
        let postgresFingerprints = try await cluster.psql(
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
    @Test func bothStoresCarryOutTheSameDownloadPlansForTheSameEpisodes() async throws {
        // Given: the real feeds merged into one new SQLite file and one new PostgreSQL database
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-agree-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try FeedStore(path: directory.appendingPathComponent("podfresh.sqlite").path)
        let url = try await TestPostgres.shared().makeDatabase(prefix: "agree")
        let (_, ids) = try await mergeEveryFeed(into: sqlite)

        // When: the same downloads start, fail, complete and are deleted in each (every step as the plan says)
        let sqliteOutcome = try await downloadEveryFeed(in: sqlite, ids: ids)
        let postgresOutcome = try await PostgresFeedStore.withStore(url: url) { store in
            _ = try await mergeEveryFeed(into: store)
            return try await downloadEveryFeed(in: store, ids: ids)
        }

        // Then: both hold the same records, count the same files and select the same episodes and files
        #expect(sqliteOutcome.records.count > ids.count)
        #expect(sqliteOutcome.usage.values.map(\.files).reduce(0, +) >= 10)
        #expect(sqliteOutcome.pastRetention.contains { $0.count == 1 }, "the fifth file, past the second")
        #expect(sqliteOutcome == postgresOutcome)
    }
}
