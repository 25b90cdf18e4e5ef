import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import RefreshEngine
import Synchronization
import Testing

/// A feed source serving documents from memory through the real consumer (parser), with a tiny pause so that
/// fetches overlap.
struct MemoryFeedSource: FeedSource {
    let documents: [URL: [UInt8]]

    func fetch<Consumer: FeedBodyConsumer>(
        _ request: FeedRequest,
        consumer makeConsumer: (FeedResponseHead) async throws -> Consumer
    ) async throws -> FeedFetchResult<Consumer> {
        guard let bytes = documents[request.url] else {
            throw FeedFetchError(.httpStatus(404, reasonPhrase: "Not Found", retryAfter: nil))
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...3)))
        let head = FeedResponseHead(url: request.url, status: 200)
        let consumer = try await makeConsumer(head)
        // Two chunks, so the parser's streaming path runs.
        let middle = bytes.count / 2
        try bytes[..<middle].withUnsafeBytes { try consumer.consume($0) }
        try bytes[middle...].withUnsafeBytes { try consumer.consume($0) }
        return .fetched(head, consumer, byteCount: bytes.count)
    }
}

/// A value behind a `Mutex`, shareable between tasks (a `Mutex` itself cannot be captured by escaping closures).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// Shared-state stress for the coordinator, the engine and the store. Meant to run under ThreadSanitizer too:
/// `swift test --sanitize=thread --scratch-path .build-tsan --filter "RefreshEngineTests|ReliabilityTests.ConcurrencyTests"`.
@Suite("Concurrency")
struct ConcurrencyTests {
    @Test(.timeLimit(.minutes(1)))
    func overlappingBatchesNeverFetchOneFeedTwiceAtOnce() async throws {
        let coordinator = DataFetchCoordinator(maxConcurrent: 4, maxPerHost: 2)
        let running = Locked<Set<Int64>>([])
        let overlaps = Locked(0)
        let feeds = (0..<40).map {
            FeedTarget(id: Int64($0), url: URL(string: "https://host\($0 % 5).example/\($0).xml")!)
        }

        let results = await withTaskGroup(of: (Int, [RefreshOutcome]).self) { group in
            // Subscribers come and go while batches run.
            for _ in 0..<4 {
                group.addTask {
                    var seen = 0
                    for await _ in coordinator.events.subscribe() {
                        seen += 1
                        if seen > 50 { break }
                    }
                    return (-1, [])
                }
            }
            for batch in 0..<8 {
                let mine = Array(feeds.shuffled().prefix(25))
                group.addTask {
                    let outcomes = await coordinator.run(mine) { feed in
                        let fresh = running.withLock { $0.insert(feed.id).inserted }
                        if !fresh { overlaps.withLock { $0 += 1 } }
                        await Task.yield()
                        try? await Task.sleep(for: .microseconds(200))
                        _ = coordinator.activeFeedIDs
                        running.withLock { _ = $0.remove(feed.id) }
                        return RefreshOutcome(feed: feed, result: .notModified)
                    }
                    return (batch, outcomes)
                }
            }
            var all: [(Int, [RefreshOutcome])] = []
            for await result in group where result.0 >= 0 {
                all.append(result)
                if all.count == 8 { coordinator.events.finish() }
            }
            return all
        }

        #expect(overlaps.withLock { $0 } == 0, "a feed was fetched twice at once")
        #expect(results.count == 8)
        for (_, outcomes) in results {
            #expect(outcomes.count == 25)
            #expect(Set(outcomes.map(\.feed.id)).count == 25)
        }
        let fetched = results.flatMap(\.1).filter { $0.result == .notModified }.count
        let refused = results.flatMap(\.1).filter { $0.result == .cancelled }.count
        #expect(fetched + refused == 200)
        #expect(fetched >= 25, "at least one batch ran")
        #expect(coordinator.activeFeedIDs.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func twoRefreshesOfOneStoreAtOnceStoreEveryFeedOnce() async throws {
        let store = try FeedStore.inMemory()
        var documents: [URL: [UInt8]] = [:]
        var ids: [Int64] = []
        for index in 0..<30 {
            let url = URL(string: "https://host\(index % 3).example/feed\(index).xml")!
            documents[url] = FeedFactory.bytes(
                FeedFactory.numbered(title: "Feed \(index)", prefix: "f\(index)", count: 20))
            ids.append(try await store.addSubscription(url: url, title: nil, at: Date(), backlog: 100).id)
        }
        let service = EpisodeUpdateService(
            store: store, source: MemoryFeedSource(documents: documents),
            coordinator: DataFetchCoordinator(maxConcurrent: 6, maxPerHost: 3))

        let forward = ids
        let backward = Array(ids.reversed())
        async let first = service.refresh(policy: .force, feedIDs: forward)
        async let second = service.refresh(policy: .force, feedIDs: backward)
        let summaries = try await [first, second]

        let updated = summaries.flatMap(\.outcomes).filter { if case .updated = $0.result { true } else { false } }
        #expect(
            summaries.allSatisfy { $0.failedCount == 0 },
            "\(summaries.flatMap(\.outcomes).filter(\.isFailure).map(\.result))")
        #expect(updated.count >= 30, "every feed refreshed at least once")
        #expect(
            summaries.flatMap(\.outcomes).reduce(0) { $0 + $1.newEpisodes.count } == 600,
            "each episode is new exactly once")
        for id in ids { #expect(try await store.episodes(EpisodeQuery(subscriptionID: id)).count == 20) }
    }

    @Test(.timeLimit(.minutes(1)))
    func twoStoresOnOneFileWritingAtOnceNeverSurfaceBusy() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-busy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("podfresh.sqlite").path
        // Two independent connections to one file, as two podfresh processes would have.
        let stores = [try FeedStore(path: path), try FeedStore(path: path)]
        var ids: [Int64] = []
        for index in 0..<8 {
            ids.append(
                try await stores[0].addSubscription(
                    url: URL(string: "https://example.org/\(index).xml")!, title: nil, at: Date()
                ).id)
        }
        let errors = Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for (index, id) in ids.enumerated() {
                let store = stores[index % 2]
                group.addTask {
                    for round in 0..<25 {
                        let episodes = (0..<(10 + round)).map {
                            ParsedEpisode(id: "e\($0)", title: "Episode \($0) r\(round)")
                        }
                        let check = FeedCheck(
                            subscriptionID: id, checkedAt: Date(), status: 200,
                            result: .fetched(
                                ParsedFeed(format: .rss2, title: "Feed \(id)", episodes: episodes), etag: nil,
                                lastModified: nil, unconditional: true))
                        do {
                            _ = try await store.apply(check)
                            _ = try await store.episodeCounts()
                            _ = try await store.subscriptions()
                        } catch {
                            errors.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
        }
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0 }.prefix(3))")
        let counts = try await stores[1].episodeCounts()
        for id in ids { #expect(counts[id] == 34) }
        #expect(try SQLiteProbe.integrityCheck(path) == "ok")
    }
}
