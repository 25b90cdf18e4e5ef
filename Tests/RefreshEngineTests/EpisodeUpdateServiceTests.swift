import AsyncHTTPClient
import FeedFetching
import FeedModels
import FeedParsing
import FeedScheduling
import FeedStorage
import Foundation
import HTTPTransport
import RefreshEngine
import TestSupport
import Testing

/// A feed document with the given items (newest first).
func rss(title: String = "Show", items: [String], extra: String = "") -> String {
    let entries = items.enumerated().map { index, item in
        """
        <item><title>\(item)</title><guid>\(item)</guid>
        <pubDate>\(["Tue, 12 Nov 2024", "Tue, 05 Nov 2024", "Tue, 29 Oct 2024", "Tue, 22 Oct 2024"][index % 4]) 05:00:00 GMT</pubDate>
        <enclosure url="https://cdn.example.com/\(item).mp3" length="1000" type="audio/mpeg"/></item>
        """
    }
    return
        "<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel><title>\(title)</title>\(extra)\(entries.joined())</channel></rss>"
}

/// A store on a temporary file, a real HTTP client and the loopback test server, wired as the binary wires them.
final class EngineHarness: @unchecked Sendable {
    let server: TestHTTPServer
    let store: FeedStore
    let client: HTTPNetwork
    let coordinator: DataFetchCoordinator
    let service: EpisodeUpdateService
    let directory: URL

    init(
        jobs: Int = 5, perHost: Int = 2, totalTimeout: Duration = .seconds(10),
        retryDelay: Duration = .milliseconds(10),
        hook: String? = nil, configure: (inout EpisodeUpdateConfiguration) -> Void = { _ in }
    ) async throws {
        server = try await TestHTTPServer.start()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-engine-\(UUID().uuidString)")
        store = try await FeedStore.open(path: directory.appendingPathComponent("test.sqlite").path)
        let configuration = FetchConfiguration(
            connectTimeout: .seconds(2), totalTimeout: totalTimeout, maxBodyBytes: 1_000_000, userAgent: "podfresh-test"
        )
        client = HTTPFeedSource.makeNetwork(configuration: configuration)
        coordinator = DataFetchCoordinator(maxConcurrent: jobs, maxPerHost: perHost)
        let source = RoutingFeedSource(
            http: HTTPFeedSource(network: client, configuration: configuration), file: FileFeedSource())
        var settings = EpisodeUpdateConfiguration(hookCommand: hook, retryDelay: retryDelay)
        configure(&settings)
        service = EpisodeUpdateService(
            store: store, source: source, coordinator: coordinator, configuration: settings)
    }

    /// Subscribes to a path of the test server; its first fetch announces every episode (tests of the back
    /// catalogue subscribe through the store themselves).
    func subscribe(_ path: String) async throws -> Subscription {
        try await store.addSubscription(url: server.url(path), title: nil, at: Date(), backlog: 10_000)
    }

    func titles(_ id: Int64) async throws -> Set<String> {
        Set(try await store.episodes(EpisodeQuery(subscriptionID: id)).compactMap(\.episode.title))
    }

    func close() async {
        await client.shutdown()
        try? await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `body` with a new harness, and closes it (client, server, folder) before returning, whether `body`
    /// throws or not.
    static func with<R>(
        jobs: Int = 5, perHost: Int = 2, totalTimeout: Duration = .seconds(10),
        retryDelay: Duration = .milliseconds(10), hook: String? = nil,
        configure: (inout EpisodeUpdateConfiguration) -> Void = { _ in }, _ body: (EngineHarness) async throws -> R
    ) async throws -> R {
        let harness = try await EngineHarness(
            jobs: jobs, perHost: perHost, totalTimeout: totalTimeout, retryDelay: retryDelay, hook: hook,
            configure: configure)
        return try await withClosing(harness, close: { await $0.close() }, body)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct EpisodeUpdateServiceTests {
    @Test func aSecondRefreshIsAllConditionalAndFindsNothingNew() async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed("/a.xml", rss(items: ["a2", "a1"]))
            h.server.serveFeed("/b.xml", rss(items: ["b1"]), etag: false)
            let a = try await h.subscribe("/a.xml")
            let b = try await h.subscribe("/b.xml")

            let first = try await h.service.refresh(policy: .due)
            #expect(first.newEpisodeCount == 3)
            #expect(first.failedCount == 0)
            #expect(try await h.titles(a.id) == ["a1", "a2"])

            let second = try await h.service.refresh(policy: .all)
            #expect(second.newEpisodeCount == 0)
            #expect(second.notModifiedCount == 2)
            #expect(h.server.requests(to: "/a.xml").last?.headers["if-none-match"] != nil)
            #expect(
                h.server.requests(to: "/b.xml").last?.headers["if-modified-since"] == "Tue, 12 Nov 2024 05:00:00 GMT")
            #expect(h.server.requests.allSatisfy { $0.headers["user-agent"] == "podfresh-test" })
            #expect(h.server.requests.allSatisfy { $0.headers["accept-encoding"]?.contains("gzip") == true })
            _ = b
        }
    }

    @Test func theLastFetchOfAHostInARunAsksTheServerToCloseTheConnection() async throws {
        try await EngineHarness.with(perHost: 1) { h in
            for name in ["a", "b", "c"] { h.server.serveFeed("/\(name).xml", rss(items: [name])) }
            for name in ["a", "b", "c"] { _ = try await h.subscribe("/\(name).xml") }

            _ = try await h.service.refresh(policy: .all)
            let asked = h.server.requests.map { $0.headers["connection"] }
            // One host, one feed at a time: the first two leave the connection for the next, the last closes it.
            #expect(asked == [nil, nil, "close"])
        }
    }

    @Test func aRunWithNothingDueSaysWhenTheFirstFeedIsDueNext() async throws {
        try await EngineHarness.with { h in
            // Given no subscription, nothing is due and nothing is said about when.
            let empty = try await h.service.refresh(policy: .due)
            #expect(empty.outcomes.isEmpty && empty.nothingDue == nil)
            // When both feeds were just checked, the next run finds none due and names the earliest next check.
            h.server.serveFeed("/a.xml", rss(items: ["a1"]))
            h.server.serveFeed("/b.xml", rss(items: ["b1"]))
            let a = try await h.subscribe("/a.xml")
            let b = try await h.subscribe("/b.xml")
            _ = try await h.service.refresh(policy: .due)
            let idle = try await h.service.refresh(policy: .due)
            #expect(idle.outcomes.isEmpty)
            var checks: [Date] = []
            for id in [a.id, b.id] {
                if let next = try await h.store.subscription(id: id)?.nextCheckAt { checks.append(next) }
            }
            #expect(checks.count == 2)
            #expect(idle.nothingDue == .nextAt(try #require(checks.min())))
            // A run of every feed is not "nothing due".
            #expect(try await h.service.refresh(policy: .all).nothingDue == nil)
        }
    }

    @Test func aFeedThatGainsAnEpisodeReportsExactlyThatOne() async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed("/a.xml", rss(items: ["e1"]))
            let a = try await h.subscribe("/a.xml")
            _ = try await h.service.refresh(policy: .due)
            h.server.serveFeed("/a.xml", rss(items: ["e2", "e1"]))
            let summary = try await h.service.refresh(policy: .all)
            #expect(summary.outcomes.first?.newEpisodes.map(\.key) == ["e2"])
            #expect(try await h.titles(a.id) == ["e1", "e2"])
        }
    }

    @Test func episodesDroppedByTheFeedAreKeptAndAnEmptyFeedChangesNothing() async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed("/a.xml", rss(items: ["e3", "e2", "e1"]))
            let a = try await h.subscribe("/a.xml")
            _ = try await h.service.refresh(policy: .due)
            h.server.serveFeed("/a.xml", rss(items: ["e3"]))
            _ = try await h.service.refresh(policy: .all)
            h.server.serveFeed("/a.xml", rss(items: []))
            _ = try await h.service.refresh(policy: .all)
            #expect(try await h.titles(a.id) == ["e1", "e2", "e3"])
        }
    }

    @Test func brokenAnswersFailOnlyTheirFeedAndKeepItsEpisodes() async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed("/good.xml", rss(items: ["g1"]))
            h.server.serveFeed("/bad.xml", rss(items: ["b1"]))
            let good = try await h.subscribe("/good.xml")
            let bad = try await h.subscribe("/bad.xml")
            _ = try await h.service.refresh(policy: .due)

            for (response, kind) in [
                (TestResponse(status: 500, text: "oops"), "http-status"),
                (
                    TestResponse(
                        status: 200, headers: [("Content-Type", "text/html")], text: "<html><body>login</body></html>"),
                    "not-a-feed"
                ),
                (TestResponse(status: 200, text: ""), "empty"),
                (TestResponse(status: 404, text: "missing"), "http-status"),
            ] {
                h.server.setRoute("/bad.xml", response)
                h.server.serveFeed("/good.xml", rss(items: ["g\(Int.random(in: 2...1_000_000))", "g1"]))
                let summary = try await h.service.refresh(policy: .all)
                let outcome = try #require(summary.outcomes.first { $0.feed.id == bad.id })
                guard case .failed(let failure) = outcome.result else {
                    Issue.record("expected a failure for \(kind), got \(outcome.result)")
                    continue
                }
                #expect(failure.kind.rawValue == kind)
                #expect(summary.outcomes.first { $0.feed.id == good.id }?.newEpisodes.count == 1)
                #expect(try await h.titles(bad.id) == ["b1"])
            }
            let stored = try #require(try await h.store.subscription(id: bad.id))
            #expect(stored.failureCount == 4)
            // The store keeps the last failure's facts, not a sentence.
            let cause = try #require(stored.lastError.flatMap(RefreshFailure.cause(stored:)))
            guard case .fetch(let error) = cause else {
                Issue.record("not a fetch failure: \(cause)")
                return
            }
            #expect(error.status == 404)
            #expect(try await h.store.integrityCheck() == "ok")
        }
    }

    @Test func permanentRedirectsAndNewFeedURLMoveTheSubscription() async throws {
        try await EngineHarness.with { h in
            h.server.setRoute("/old.xml", .redirect(301, to: "/middle.xml"))
            h.server.setRoute("/middle.xml", .redirect(308, to: "/new.xml"))
            h.server.serveFeed("/new.xml", rss(items: ["n1"]))
            h.server.setRoute("/temp.xml", .redirect(302, to: "/new2.xml"))
            h.server.serveFeed("/new2.xml", rss(items: ["t1"]))
            h.server.serveFeed(
                "/announces.xml",
                rss(
                    items: ["x1"],
                    extra: "<itunes:new-feed-url>\(h.server.url("/moved-here.xml"))</itunes:new-feed-url>"))
            h.server.serveFeed("/moved-here.xml", rss(items: ["x1"]))
            let moved = try await h.subscribe("/old.xml")
            let temporary = try await h.subscribe("/temp.xml")
            let announcing = try await h.subscribe("/announces.xml")
            _ = try await h.service.refresh(policy: .due)
            #expect(try await h.store.subscription(id: moved.id)?.url == h.server.url("/new.xml"))
            #expect(try await h.store.subscription(id: moved.id)?.movedFrom == h.server.url("/old.xml"))
            #expect(try await h.store.subscription(id: temporary.id)?.url == h.server.url("/temp.xml"))
            #expect(try await h.store.subscription(id: announcing.id)?.url == h.server.url("/moved-here.xml"))
        }
    }

    @Test func aMoveOntoAnAlreadySubscribedURLIsRefusedAndSaid() async throws {
        try await EngineHarness.with { h in
            h.server.setRoute("/old.xml", .redirect(301, to: "/taken.xml"))
            h.server.serveFeed("/taken.xml", rss(items: ["n1"]))
            let old = try await h.subscribe("/old.xml")
            _ = try await h.subscribe("/taken.xml")
            let summary = try await h.service.refresh(policy: .due)
            let outcome = try #require(summary.outcomes.first { $0.feed.id == old.id })
            guard case .taken(let taken) = outcome.moveRefused else {
                Issue.record("not refused as taken: \(String(describing: outcome.moveRefused))")
                return
            }
            #expect(taken.target == h.server.url("/taken.xml"))
            #expect(try await h.store.subscription(id: old.id)?.url == h.server.url("/old.xml"))
        }
    }

    @Test func goneFeedsAreMarkedAndNotCheckedAgainUnlessForcedOrNamed() async throws {
        try await EngineHarness.with { h in
            h.server.setRoute("/gone.xml", TestResponse(status: 410, text: "gone"))
            let gone = try await h.subscribe("/gone.xml")
            let first = try await h.service.refresh(policy: .due)
            #expect(first.outcomes.first?.result == .gone(FeedFetchError(.gone)))
            #expect(try await h.store.subscription(id: gone.id)?.isGone == true)
            let second = try await h.service.refresh(policy: .all)
            #expect(second.outcomes.isEmpty)
            #expect(h.server.requests(to: "/gone.xml").count == 1)
        }
    }

    @Test func retryAfterSetsTheNextCheck() async throws {
        try await EngineHarness.with { h in
            h.server.setRoute(
                "/busy.xml", TestResponse(status: 429, headers: [("Retry-After", "7200")], text: "slow down"))
            let busy = try await h.subscribe("/busy.xml")
            let before = Date()
            _ = try await h.service.refresh(policy: .due)
            let stored = try #require(try await h.store.subscription(id: busy.id))
            let next = try #require(stored.nextCheckAt)
            #expect(next.timeIntervalSince(before) >= 7190)
            #expect(stored.nextCheckReason == .retryAfter)
            #expect(try await h.store.dueSubscriptions(at: Date()).isEmpty)
        }
    }

    @Test func forceSendsNoValidatorsAndOfflineSendsNothing() async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed("/a.xml", rss(items: ["e1"]))
            _ = try await h.subscribe("/a.xml")
            _ = try await h.service.refresh(policy: .due)
            _ = try await h.service.refresh(policy: .force)
            let forced = try #require(h.server.requests(to: "/a.xml").last)
            #expect(forced.headers["if-none-match"] == nil && forced.headers["if-modified-since"] == nil)
            let count = h.server.requests.count
            let offline = try await h.service.refresh(policy: .offline)
            #expect(offline.outcomes.map(\.result) == [.offline])
            #expect(h.server.requests.count == count)
        }
    }

    @Test func dueOnlyLeavesFeedsThatAreNotDueAlone() async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed("/a.xml", rss(items: ["e1"]))
            _ = try await h.subscribe("/a.xml")
            _ = try await h.service.refresh(policy: .due)
            let again = try await h.service.refresh(policy: .due)
            #expect(again.outcomes.isEmpty)
            #expect(h.server.requests(to: "/a.xml").count == 1)
        }
    }

    @Test func noHostServesMoreThanTwoFetchesAtOnce() async throws {
        try await EngineHarness.with(jobs: 8, perHost: 2) { h in
            for index in 0..<8 {
                let body = Array(rss(items: ["e\(index)"]).utf8)
                h.server.setRoute("/f\(index).xml", TestResponse(status: 200, body: body, delay: .milliseconds(150)))
                _ = try await h.subscribe("/f\(index).xml")
            }
            let summary = try await h.service.refresh(policy: .due)
            #expect(summary.newEpisodeCount == 8)
            #expect(h.server.maxConcurrentRequests <= 2)
            #expect(h.server.maxConcurrentRequests == 2, "fetches of one host still overlap up to the cap")
        }
    }

    @Test func whenEveryConnectionTimesOutTheNetworkIsOfflineAndNoFeedIsBlamed() async throws {
        try await EngineHarness.with { h in
            // Connecting times out (a full accept queue drops the SYNs), as when the network is down.
            let unanswered = try UnansweredPort()
            defer { unanswered.close() }
            let a = try await h.store.addSubscription(url: unanswered.url("/a.xml"), title: nil, at: Date())
            let b = try await h.store.addSubscription(url: unanswered.url("/b.xml"), title: nil, at: Date())
            let events = h.coordinator.events.subscribe()
            let summary = try await h.service.refresh(policy: .due)
            h.coordinator.events.finish()
            var verdicts: [String] = []
            for await case .fetch(let event) in events {
                switch event {
                case .fetchFailed(let outcome):
                    #expect(outcome.failure?.awaitsNetworkVerdict == true, "held until the verdict")
                case .networkOffline: verdicts.append("offline")
                case .failuresConfirmed: verdicts.append("confirmed")
                default: break
                }
            }
            #expect(verdicts == ["offline"], "the held failures are never confirmed")
            #expect(summary.networkOffline)
            for id in [a.id, b.id] {
                let stored = try #require(try await h.store.subscription(id: id))
                #expect(stored.failureCount == 0)
                #expect(stored.nextCheckAt == nil)
                #expect(stored.lastCheckedAt == nil)
            }
        }
    }

    @Test func refusedConnectionsAreFailuresOfTheirFeedsNeverOffline() async throws {
        try await EngineHarness.with { h in
            // A port that was bound and released: the host answers that nothing listens there.
            let closed = try await TestHTTPServer.start()
            let port = closed.port
            try await closed.shutdown()
            let a = try await h.store.addSubscription(
                url: URL(string: "http://127.0.0.1:\(port)/a.xml")!, title: nil, at: Date())
            let b = try await h.store.addSubscription(
                url: URL(string: "http://127.0.0.1:\(port)/b.xml")!, title: nil, at: Date())
            let summary = try await h.service.refresh(policy: .due)
            #expect(!summary.networkOffline)
            #expect(summary.failedCount == 2)
            for id in [a.id, b.id] {
                #expect(try await h.store.subscription(id: id)?.failureCount == 1)
                #expect(try await h.store.subscription(id: id)?.lastErrorKind == "connection-refused")
            }
        }
    }

    @Test func anUnreachableHostIsAFailureWhenOthersAnswer() async throws {
        try await EngineHarness.with { h in
            let unanswered = try UnansweredPort()
            defer { unanswered.close() }
            h.server.serveFeed("/ok.xml", rss(items: ["e1"]))
            _ = try await h.subscribe("/ok.xml")
            let down = try await h.store.addSubscription(url: unanswered.url("/a.xml"), title: nil, at: Date())
            let events = h.coordinator.events.subscribe()
            let summary = try await h.service.refresh(policy: .due)
            h.coordinator.events.finish()
            var confirmed: [[Int64]] = []
            var sawOffline = false
            var beforeEnd: DataFetchEvent?
            var previous: DataFetchEvent?
            for await case .fetch(let event) in events {
                if case .failuresConfirmed(let outcomes) = event { confirmed.append(outcomes.map(\.feed.id)) }
                if case .networkOffline = event { sawOffline = true }
                if case .batchCompleted = event { beforeEnd = previous }
                previous = event
            }
            guard case .failuresConfirmed = beforeEnd else {
                Issue.record("the confirmation comes just before the batch ends, got \(String(describing: beforeEnd))")
                return
            }
            #expect(confirmed == [[down.id]], "the held failure stands once another host answered")
            #expect(!sawOffline)
            #expect(!summary.networkOffline)
            #expect(try await h.store.subscription(id: down.id)?.failureCount == 1)
            #expect(try await h.store.subscription(id: down.id)?.lastErrorKind == "unreachable")
        }
    }

    @Test func aTransientResetIsRetriedOnceWithinTheRun() async throws {
        try await EngineHarness.with { h in
            let body = Array(rss(items: ["e1"]).utf8)
            let attempts = Counter()
            h.server.setRoute("/flaky.xml") { _ in
                attempts.increment() == 1
                    ? TestResponse(status: 200, body: body, fault: .reset(afterBytes: 20))
                    : TestResponse(status: 200, body: body)
            }
            _ = try await h.subscribe("/flaky.xml")
            let summary = try await h.service.refresh(policy: .due)
            #expect(summary.failedCount == 0)
            #expect(summary.newEpisodeCount == 1)
            #expect(h.server.requests(to: "/flaky.xml").count == 2)
        }
    }
}

final class Counter: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct SchedulingThroughTheEngineTests {
    @Test func aFeedWhosePingsAreSeenIsPolledOnlyAsASafetyNetWhilePodpingIsFollowed() async throws {
        // Subscription ids start at 1 in a new store: the first feed subscribed is the pinged one.
        try await EngineHarness.with(configure: { $0.pingedFeeds = { [1] } }) { h in
            h.server.serveFeed("/pinged.xml", rss(items: ["p2", "p1"]))
            h.server.serveFeed("/quiet.xml", rss(items: ["q2", "q1"]))
            let pinged = try await h.subscribe("/pinged.xml")
            let quiet = try await h.subscribe("/quiet.xml")
            #expect(pinged.id == 1)
            _ = try await h.service.refresh(policy: .due)
            let safetyNet = ScheduleReason.cadence(interval: .seconds(SchedulePolicy().maxInterval), basis: .pushed)
            #expect(try await h.store.subscription(id: pinged.id)?.nextCheckReason == safetyNet)
            #expect(try await h.store.subscription(id: quiet.id)?.nextCheckReason != safetyNet)
        }
    }

    @Test func aFeedsTTLIsHonouredEvenWhenItAnswers304() async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed("/ttl.xml", rss(items: ["e1"], extra: "<ttl>180</ttl>"))
            let feed = try await h.subscribe("/ttl.xml")
            _ = try await h.service.refresh(policy: .due)
            let afterFetch = try #require(try await h.store.subscription(id: feed.id))
            let ttl = ScheduleReason.cadence(interval: .seconds(180 * 60), basis: .hint(.ttl))
            #expect(afterFetch.nextCheckReason == ttl)
            _ = try await h.service.refresh(policy: .all)  // 304
            let after304 = try #require(try await h.store.subscription(id: feed.id))
            #expect(after304.lastStatus == 304)
            #expect(after304.nextCheckReason == ttl)
            #expect(try #require(after304.nextCheckAt).timeIntervalSinceNow > 2.5 * 3600)
        }
    }
}
