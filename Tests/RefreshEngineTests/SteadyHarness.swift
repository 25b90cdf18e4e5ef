import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import HTTPTransport
import Measures
import RefreshEngine
import TestSupport
import Testing

/// A store on a temporary file, the loopback test server and the engine, with the refresh's dates on a manual clock
/// (so a test can let a day pass) and the transfer limits on the machine's (a body stalled by the server ends a
/// fetch that waits for it after the stall limit).
final class SteadyHarness: @unchecked Sendable {
    let server: TestHTTPServer
    let store: FeedStore
    let network: HTTPNetwork
    let service: EpisodeUpdateService
    let clock = ManualClock(date: Date(timeIntervalSince1970: 1_793_500_000))
    let directory: URL

    /// - Parameters:
    ///   - maxBodyBytes: The fetch's limit on a body's size (after gzip).
    ///   - configure: Changes to the engine's configuration (`readsWhole`, `earlyMergeBytes` …).
    init(maxBodyBytes: Int = 10_000_000, configure: (inout EpisodeUpdateConfiguration) -> Void = { _ in }) async throws
    {
        server = try await TestHTTPServer.start()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-steady-\(UUID().uuidString)")
        store = try await FeedStore.open(path: directory.appendingPathComponent("test.sqlite").path)
        var fetch = FetchConfiguration(
            connectTimeout: .seconds(5), totalTimeout: .seconds(30), maxBodyBytes: maxBodyBytes,
            userAgent: "podfresh-test")
        fetch.stallTimeout = .seconds(3)
        network = HTTPFeedSource.makeNetwork(configuration: fetch)
        var configuration = EpisodeUpdateConfiguration(retryTransientFailures: false, clock: .manual(clock))
        configure(&configuration)
        service = EpisodeUpdateService(
            store: store,
            source: RoutingFeedSource(
                http: HTTPFeedSource(network: network, configuration: fetch), file: FileFeedSource()),
            coordinator: DataFetchCoordinator(maxConcurrent: 4, maxPerHost: 2), configuration: configuration)
    }

    /// Serves `text` at `path` with no validators at all (a host that sends none), the same bytes every time unless
    /// changed; `stallAfter` sends only that many bytes of it and then holds the connection, never ending the body.
    func serve(_ path: String, _ text: String, stallAfter: Int? = nil, headers: [(String, String)] = []) {
        let bytes = Array(text.utf8)
        server.setRoute(
            path,
            TestResponse(
                status: 200, headers: [("Content-Type", "application/rss+xml")] + headers, body: bytes,
                fault: stallAfter.map { .stall(afterBytes: $0) }, compressible: stallAfter == nil))
    }

    func subscribe(_ path: String, backlog: Int = 10_000) async throws -> Subscription {
        try await store.addSubscription(url: server.url(path), title: nil, at: clock.date, backlog: backlog)
    }

    /// One refresh of every feed; its only outcome.
    func refresh() async throws -> RefreshOutcome {
        let summary = try await service.refresh(policy: .all)
        return try #require(summary.outcomes.first)
    }

    func titles(_ id: Int64) async throws -> [String: String] {
        var titles: [String: String] = [:]
        for stored in try await store.episodes(EpisodeQuery(subscriptionID: id)) {
            titles[stored.key] = stored.episode.title
        }
        return titles
    }

    func close() async {
        await network.shutdown()
        try? await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    static func with(
        maxBodyBytes: Int = 10_000_000, configure: (inout EpisodeUpdateConfiguration) -> Void = { _ in },
        _ body: (SteadyHarness) async throws -> Void
    ) async throws {
        let harness = try await SteadyHarness(maxBodyBytes: maxBodyBytes, configure: configure)
        try await withClosing(harness, close: { await $0.close() }, body)
    }
}
