import AsyncHTTPClient
import ConsoleOutput
import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import HTTPTransport
import RefreshEngine
import TestSupport
import Testing

/// The real refresh pipeline over loopback: a ``FeedStore`` on a temporary file, the real ``HTTPFeedSource`` over a
/// client from the fetching module's factory, a ``DataFetchCoordinator`` and the ``EpisodeUpdateService``.
struct Engine: Sendable {
    let directory: URL
    let store: FeedStore
    let service: EpisodeUpdateService

    var databasePath: String { directory.appendingPathComponent("podfresh.sqlite").path }

    /// Refreshes the given feeds now, unconditionally (so every test sees the server's answer).
    func refresh(_ ids: [Int64], policy: RefreshPolicy = .force) async throws -> RefreshSummary {
        try await service.refresh(policy: policy, feedIDs: ids)
    }

    func episodes(_ id: Int64) async throws -> [StoredEpisode] {
        try await store.episodes(EpisodeQuery(subscriptionID: id))
    }

    func subscription(_ id: Int64) async throws -> Subscription {
        try #require(try await store.subscription(id: id))
    }
}

/// Fetch limits for a run whose faults are not timeouts: long enough that a loaded machine (these suites parse
/// billion-laugh documents beside each other) never turns a good feed, or a redirect loop, into a timeout. A test of a
/// time limit passes its own.
func testFetchConfiguration(totalTimeout: Duration = .seconds(60), maxBodyBytes: Int = 4 << 20) -> FetchConfiguration {
    FetchConfiguration(
        connectTimeout: .seconds(20), totalTimeout: totalTimeout, maxBodyBytes: maxBodyBytes,
        userAgent: "podfresh-reliability-tests")
}

/// Runs `body` with a fresh engine and always shuts the HTTP client down and removes the temporary folder.
func withEngine<R: Sendable>(
    fetch: FetchConfiguration = testFetchConfiguration(),
    parser: FeedParserOptions = .init(),
    _ body: (Engine) async throws -> R
) async throws -> R {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-rel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FeedStore(path: directory.appendingPathComponent("podfresh.sqlite").path)
    let client = HTTPFeedSource.makeNetwork(configuration: fetch)
    do {
        let source = HTTPFeedSource(network: client, configuration: fetch)
        let service = EpisodeUpdateService(
            store: store, source: source, coordinator: DataFetchCoordinator(maxConcurrent: 4, maxPerHost: 4),
            configuration: EpisodeUpdateConfiguration(parserOptions: parser, retryDelay: .milliseconds(20)))
        let result = try await body(Engine(directory: directory, store: store, service: service))
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}

extension RefreshSummary {
    /// The outcome for one feed (there is exactly one per feed checked).
    func outcome(_ id: Int64) throws -> RefreshOutcome {
        try #require(outcomes.first { $0.feed.id == id })
    }
}

// MARK: - Terminal output

/// Collects what a renderer writes.
final class TextBuffer: TextSink, @unchecked Sendable {
    // @unchecked: `text` is touched only inside `lock.withLock {}`.
    private let lock = NSLock()
    private var text = ""
    func write(_ string: String) -> Result<Void, OutputFailure> {
        lock.withLock { text += string }
        return .success(())
    }
    var contents: String { lock.withLock { text } }
}

/// What the console renderer prints for a summary, in plain and in JSON Lines mode (stdout and stderr together).
func render(_ summary: RefreshSummary) -> String {
    var all = ""
    for mode in [OutputMode.plain, .json, .quiet] {
        let out = TextBuffer()
        let renderer = ConsoleRenderer(mode: mode, out: out, err: out)
        let updates = UIUpdateService(notificationCenter: nil)
        renderer.attach(to: updates)
        updates.deliver(.fetch(.batchStarted(total: summary.outcomes.count)))
        for outcome in summary.outcomes {
            updates.deliver(.fetch(.fetchStarted(outcome.feed)))
            switch outcome.result {
            case .failed: updates.deliver(.fetch(.fetchFailed(outcome)))
            case .cancelled: updates.deliver(.fetch(.fetchCancelled(outcome.feed)))
            default: updates.deliver(.fetch(.fetchCompleted(outcome)))
            }
        }
        updates.deliver(.fetch(.batchCompleted(summary)))
        all += out.contents
    }
    return all
}

/// The characters that must never reach a terminal from feed text: escape, other C0/C1 controls (newline and tab
/// excepted), and bidirectional overrides, embeddings and isolates.
func unsafeTerminalScalars(in text: String) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { scalar in
        let value = scalar.value
        if value == 0x0A || value == 0x09 { return false }
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        return (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }
}

// MARK: - The containment scenario

/// What happened to the victim feed when it turned hostile.
struct Containment {
    var outcome: RefreshOutcome
    var before: [StoredEpisode]
    var after: [StoredEpisode]
    var subscriptionBefore: Subscription
    var subscriptionAfter: Subscription
    var rendered: String
    /// Requests the server answered for the hostile feed (redirect hops and retries included).
    var hostileRequests: Int

    /// The feed failed with this kind, its episodes are exactly as before and its failure count went up.
    func expectFailedUntouched(
        kind: String, messageContains: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(outcome.failure?.kind.rawValue == kind, "outcome: \(outcome.result)", sourceLocation: sourceLocation)
        if let messageContains {
            #expect(
                outcome.failure.map(FeedFailureText.line)?.localizedCaseInsensitiveContains(messageContains) == true,
                "message: \(outcome.failure.map(FeedFailureText.line) ?? "none")", sourceLocation: sourceLocation)
        }
        expectUntouched(sourceLocation: sourceLocation)
        #expect(subscriptionAfter.failureCount == subscriptionBefore.failureCount + 1, sourceLocation: sourceLocation)
        #expect(subscriptionAfter.lastErrorKind == kind, sourceLocation: sourceLocation)
    }

    /// The stored episodes are exactly what they were before the hostile refresh.
    func expectUntouched(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(after == before, "stored episodes changed", sourceLocation: sourceLocation)
    }

    /// Every episode stored before is still stored (a recovered feed may add episodes, never lose one).
    func expectNothingLost(sourceLocation: SourceLocation = #_sourceLocation) {
        let keys = Set(after.map(\.key))
        #expect(before.allSatisfy { keys.contains($0.key) }, "an episode was lost", sourceLocation: sourceLocation)
    }
}

/// Serves a good feed and a victim feed from one server, refreshes both through the real engine, then turns the victim
/// hostile (and adds one episode to the good feed) and refreshes both again.
///
/// Checks what must hold whatever the hostile document is: the good feed merged its new episode, no stored episode of
/// the victim was lost, the database passes `PRAGMA integrity_check`, and nothing the renderer prints can drive a
/// terminal. Returns the rest for the caller's specific checks.
func refreshTurningHostile(
    _ hostile: TestResponse,
    fetch: FetchConfiguration = testFetchConfiguration(),
    parser: FeedParserOptions = .init(),
    server existing: TestHTTPServer? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> Containment {
    guard let server = existing else {
        return try await withTestHTTPServer { server in
            try await refreshTurningHostile(
                hostile, fetch: fetch, parser: parser, server: server, sourceLocation: sourceLocation)
        }
    }
    server.setRoute(
        "/good.xml", .ok(body: FeedFactory.bytes(FeedFactory.numbered(title: "Good", prefix: "good", count: 3))))
    server.setRoute(
        "/victim.xml", .ok(body: FeedFactory.bytes(FeedFactory.numbered(title: "Victim", prefix: "victim", count: 3))))
    return try await withEngine(fetch: fetch, parser: parser) { engine in
        let good = try await engine.store.addSubscription(url: server.url("/good.xml"), title: nil, at: Date())
        let victim = try await engine.store.addSubscription(url: server.url("/victim.xml"), title: nil, at: Date())

        // Given both feeds stored in a good state.
        let first = try await engine.refresh([good.id, victim.id])
        #expect(
            first.failedCount == 0, "first refresh: \(first.outcomes.map(\.result))", sourceLocation: sourceLocation)
        let before = try await engine.episodes(victim.id)
        #expect(before.count == 3, sourceLocation: sourceLocation)
        let subscriptionBefore = try await engine.subscription(victim.id)

        // When the victim turns hostile while the good feed publishes one more episode.
        server.setRoute(
            "/good.xml", .ok(body: FeedFactory.bytes(FeedFactory.numbered(title: "Good", prefix: "good", count: 4))))
        server.setRoute("/victim.xml", hostile)
        let requestsBefore = server.requests.count - server.requests(to: "/good.xml").count
        let second = try await engine.refresh([good.id, victim.id])
        let hostileRequests = server.requests.count - server.requests(to: "/good.xml").count - requestsBefore

        // Then the good feed is stored, and the database is healthy.
        let goodOutcome = try second.outcome(good.id)
        #expect(
            goodOutcome.newEpisodes.map(\.key) == ["good-3"], "good feed: \(goodOutcome.result)",
            sourceLocation: sourceLocation)
        #expect(try await engine.episodes(good.id).count == 4, sourceLocation: sourceLocation)
        #expect(try SQLiteProbe.integrityCheck(engine.databasePath) == "ok", sourceLocation: sourceLocation)
        let rendered = render(second)
        #expect(
            unsafeTerminalScalars(in: rendered).isEmpty, "unsafe output: \(rendered.debugDescription)",
            sourceLocation: sourceLocation)
        let result = Containment(
            outcome: try second.outcome(victim.id), before: before, after: try await engine.episodes(victim.id),
            subscriptionBefore: subscriptionBefore, subscriptionAfter: try await engine.subscription(victim.id),
            rendered: rendered, hostileRequests: hostileRequests)
        result.expectNothingLost(sourceLocation: sourceLocation)
        return result
    }
}
