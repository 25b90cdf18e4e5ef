import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import HTTPTransport
import TestSupport
import Testing

@testable import RefreshEngine

/// The parts a refresh is made of, each on its own: the feeds to check, one feed's check, the network verdict and
/// the run's record. Against a real SQLite file and, for a check, the loopback test server.
struct RefreshStepsTests {
    /// A temporary SQLite store, removed when `body` returns.
    func withStore<R>(_ body: (FeedStore) async throws -> R) async throws -> R {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("steps-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await FeedStore.open(path: folder.appendingPathComponent("steps.sqlite").path)
        return try await body(store)
    }

    let now = Date(timeIntervalSince1970: 1_750_000_000)

    // MARK: - The feeds to check

    @Test
    func dueAllForceAndNamedFeedsSelectWhatTheirPolicySays() async throws {
        try await withStore { store in
            let fresh = try await store.addSubscription(
                url: URL(string: "https://a.example/fresh.xml")!, title: nil, at: now, backlog: nil)
            let later = try await store.addSubscription(
                url: URL(string: "https://a.example/later.xml")!, title: nil, at: now, backlog: nil)
            let gone = try await store.addSubscription(
                url: URL(string: "https://b.example/gone.xml")!, title: nil, at: now, backlog: nil)
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: later.id, checkedAt: now, status: 304, result: .notModified,
                    nextCheckAt: now.addingTimeInterval(3600), nextCheckReason: .retryAfter))
            _ = try await store.apply(
                FeedCheck(subscriptionID: gone.id, checkedAt: now, status: 410, result: .gone(message: "410")))
            let feeds = FeedsToCheck(
                subscriptions: store, claims: nil, fleet: FleetSettings(worker: "test", lease: .seconds(60)),
                now: { [now] in now })

            #expect(try await feeds.list(policy: .due).map(\.id) == [fresh.id], "never checked is due; gone is not")
            #expect(Set(try await feeds.list(policy: .all).map(\.id)) == [fresh.id, later.id])
            #expect(Set(try await feeds.list(policy: .force).map(\.id)) == [fresh.id, later.id, gone.id])
            #expect(
                try await feeds.list(policy: .due, feedIDs: [gone.id, 9_999]).map(\.id) == [gone.id],
                "a feed named is checked whatever its state; an unknown id selects nothing")
        }
    }

    @Test
    func nothingDueSaysWhenTheNextFeedIsDueOrThatThereIsNoFeed() async throws {
        try await withStore { store in
            let feeds = FeedsToCheck(
                subscriptions: store, claims: nil, fleet: FleetSettings(worker: "test", lease: .seconds(60)),
                now: { [now] in now })
            #expect(try await feeds.nothingDue() == nil)
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed.xml")!, title: nil, at: now, backlog: nil)
            let next = now.addingTimeInterval(7200)
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: now, status: 304, result: .notModified, nextCheckAt: next,
                    nextCheckReason: .retryAfter))
            #expect(try await feeds.nothingDue() == .nextAt(next))
        }
    }

    // MARK: - The network verdict

    func outcome(_ id: Int64, _ url: String, failed: Bool) -> RefreshOutcome {
        RefreshOutcome(
            feed: FeedTarget(id: id, url: URL(string: url)!),
            result: failed ? .failed(RefreshFailure(.notChecked(.subscriptionNotFound))) : .notModified,
            nextCheckAt: now.addingTimeInterval(600), nextCheckReason: .backoff(failures: 1))
    }

    func held(_ id: Int64) -> FeedCheck {
        FeedCheck(subscriptionID: id, checkedAt: now, result: .failed(kind: "unreachable", message: "refused"))
    }

    @Test
    func whenEveryNetworkFetchFailedToReachItsHostTheNetworkWasOfflineAndNoFeedIsBlamed() {
        let outcomes = [
            outcome(1, "https://a.example/1.xml", failed: true), outcome(2, "http://b.example/2.xml", failed: true),
            outcome(3, "file:///tmp/3.xml", failed: false),
        ]
        let decision = NetworkVerdict.decide(outcomes, unreachable: [held(1), held(2)])
        #expect(decision.networkOffline)
        #expect(decision.networkFetches == 2, "a file is not fetched over the network")
        for outcome in decision.outcomes where outcome.feed.id != 3 {
            #expect(outcome.nextCheckAt == nil)
            #expect(outcome.nextCheckReason == .networkOffline)
        }
        #expect(decision.outcomes.last?.nextCheckReason == .backoff(failures: 1), "the file's outcome is its own")
    }

    @Test
    func whenAnyHostAnsweredTheHeldFailuresAreTheFeedsOwn() {
        let outcomes = [
            outcome(1, "https://a.example/1.xml", failed: true), outcome(2, "https://b.example/2.xml", failed: false),
        ]
        let verdict = NetworkVerdict()
        verdict.hold(held(1))
        let decision = verdict.decide(outcomes)
        #expect(!decision.networkOffline)
        #expect(decision.unreachable.map(\.subscriptionID) == [1], "recorded when the run settles")
        #expect(decision.outcomes.first?.nextCheckReason == .backoff(failures: 1), "outcomes unchanged")
    }

    @Test
    func aRunOfFilesAloneIsNeverOffline() {
        let decision = NetworkVerdict.decide([outcome(1, "file:///tmp/1.xml", failed: true)], unreachable: [])
        #expect(!decision.networkOffline)
        #expect(decision.networkFetches == 0)
    }

    // MARK: - The run's record

    @Test
    func aFinishedRunRecordsItsCountsAndBytes() async throws {
        try await withStore { store in
            let bookkeeping = RunBookkeeping(runs: store)
            let run = try await bookkeeping.begin(at: now)
            let tally = RunTally()
            tally.addDownloaded(1_000)
            tally.addDownloaded(500)
            tally.addSaved(2_000)
            let summary = RefreshSummary(
                outcomes: [
                    outcome(1, "https://a.example/1.xml", failed: true),
                    outcome(2, "https://a.example/2.xml", failed: false),
                    RefreshOutcome(
                        feed: FeedTarget(id: 3, url: URL(string: "https://a.example/3.xml")!), result: .cancelled),
                ], startedAt: now, endedAt: now.addingTimeInterval(5))
            try await bookkeeping.finish(run, summary: summary, tally: tally)
            let recorded = try #require(try await store.lastRun(checkedFeeds: true))
            #expect(recorded.id == run.id)
            #expect(recorded.feedsChecked == 2, "a feed not checked does not count")
            #expect(recorded.feedsFailed == 1)
            #expect(recorded.feedsNotModified == 1)
            #expect(recorded.bytesDownloaded == 1_500)
            #expect(recorded.bytesSaved == 2_000)
            #expect(recorded.endedAt == now.addingTimeInterval(5))
        }
    }

    // MARK: - One feed's check

    /// A check of one feed against the loopback server, its parts as a refresh wires them.
    func withCheck<R>(
        _ body: (TestHTTPServer, FeedStore, (RunTally, NetworkVerdict) -> FeedRefresh) async throws -> R
    ) async throws -> R {
        try await withStore { store in
            try await withTestHTTPServer { server in
                let configuration = FetchConfiguration(
                    connectTimeout: .seconds(2), totalTimeout: .seconds(10), maxBodyBytes: 1_000_000,
                    userAgent: "podfresh-test")
                let network = HTTPFeedSource.makeNetwork(configuration: configuration)
                let source = HTTPFeedSource(network: network, configuration: configuration)
                let run = try await store.beginRun(at: Date())
                do {
                    let result = try await body(server, store) { tally, verdict in
                        FeedRefresh(
                            source: source, episodes: store, configuration: EpisodeUpdateConfiguration(),
                            processingSlots: nil, moves: MoveCheck(source: source, parserOptions: .init()),
                            policy: .due, runID: run.id, verdict: verdict, tally: tally,
                            after: AfterMerge(hooks: nil, downloads: nil, publish: { _ in }))
                    }
                    await network.shutdown()
                    return result
                } catch {
                    await network.shutdown()
                    throw error
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aFeedIsFetchedStoredAndThenAnsweredNotModifiedWithItsBytesTallied() async throws {
        try await withCheck { server, store, refresh in
            server.serveFeed("/feed.xml", rss(items: ["two", "one"]))
            var subscription = try await store.addSubscription(
                url: server.url("/feed.xml"), title: nil, at: Date(), backlog: 10)
            let tally = RunTally()
            let first = await refresh(tally, NetworkVerdict()).check(subscription, lease: nil, slot: nil)
            guard case .updated(let announced, _) = first.result else {
                Issue.record("a first check stores the feed: \(first.result)")
                return
            }
            #expect(announced.map(\.title) == ["two", "one"])
            #expect(try await store.countEpisodes(EpisodeQuery(subscriptionID: subscription.id)) == 2)
            #expect(tally.bytesDownloaded > 0)

            subscription = try #require(try await store.subscription(id: subscription.id))
            let second = await refresh(tally, NetworkVerdict()).check(subscription, lease: nil, slot: nil)
            #expect(second.result == .notModified)
            #expect(tally.bytesSaved == subscription.lastBodyBytes, "conditional GET saved the last body")
            #expect(server.requests(to: "/feed.xml").last?.headers["if-none-match"] != nil)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aHostThatCannotBeReachedIsHeldForTheVerdictNotRecorded() async throws {
        try await withCheck { _, store, refresh in
            // Connecting times out (a full accept queue drops the SYNs), as when the network is down.
            let unanswered = try UnansweredPort()
            defer { unanswered.close() }
            let subscription = try await store.addSubscription(
                url: unanswered.url("/feed.xml"), title: nil, at: Date(), backlog: nil)
            let verdict = NetworkVerdict()
            let outcome = await refresh(RunTally(), verdict).check(subscription, lease: nil, slot: nil)
            #expect(outcome.failure?.awaitsNetworkVerdict == true, "\(outcome.result)")
            #expect(verdict.decide([outcome]).unreachable.map(\.subscriptionID) == [subscription.id])
            let stored = try #require(try await store.subscription(id: subscription.id))
            #expect(stored.failureCount == 0, "nothing is recorded before the verdict")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aFeedThatIsNotAFeedFailsAloneAndIsRecorded() async throws {
        try await withCheck { server, store, refresh in
            server.setRoute("/page.xml", TestResponse(headers: [("Content-Type", "text/html")], text: "<html></html>"))
            let subscription = try await store.addSubscription(
                url: server.url("/page.xml"), title: nil, at: Date(), backlog: nil)
            let outcome = await refresh(RunTally(), NetworkVerdict()).check(subscription, lease: nil, slot: nil)
            #expect(outcome.isFailure)
            #expect(outcome.failure?.awaitsNetworkVerdict == false)
            let stored = try #require(try await store.subscription(id: subscription.id))
            #expect(stored.failureCount == 1)
        }
    }
}
