import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import Measures
import PostgresStorage
import RefreshEngine
import TestSupport
import Testing

/// Claims and leases on a real PostgreSQL: one holder per feed, leases timed by the database's clock alone, and a
/// merge stored only while its lease holds.
@Suite(.serialized)
struct LeaseTests {
    static let t0 = Date(timeIntervalSince1970: 1_730_000_000)

    static func request(
        _ worker: String, limit: Int = 10, perHost: Int = 100, lease: Duration = .seconds(60),
        selection: ClaimSelection = .due
    ) -> ClaimRequest {
        ClaimRequest(selection: selection, limit: limit, perHost: perHost, worker: worker, lease: lease)
    }

    /// Claims for `worker` until a feed is free (another worker's lease ran out), for up to a minute.
    static func claimOnceFree(
        _ store: PostgresFeedStore, worker: String
    ) async throws -> (subscription: Subscription, lease: FeedLease)? {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let claimed = try await store.claimFeeds(request(worker)).claimed.first { return claimed }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    static func withFleetStore(_ body: (PostgresFeedStore) async throws -> Void) async throws {
        let url = try await TestPostgres.shared().makeDatabase(prefix: "lease")
        try await PostgresFeedStore.withStore(url: url) { store in try await body(store) }
    }

    static func notModified(_ id: Int64, lease: FeedLease?) -> FeedCheck {
        FeedCheck(
            subscriptionID: id, checkedAt: Date(), status: 304, result: .notModified,
            nextCheckAt: Date().addingTimeInterval(3600),
            nextCheckReason: .cadence(interval: .seconds(3600), basis: .noRhythmYet), lease: lease)
    }

    @Test func workersClaimingAtOnceNeverGetTheSameFeed() async throws {
        try await Self.withFleetStore { store in
            for number in 1...40 {
                _ = try await store.addSubscription(
                    url: URL(string: "https://host\(number % 7).example/\(number).xml")!, title: nil, at: Self.t0,
                    backlog: nil)
            }
            let claims = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        var mine: [Int64] = []
                        while true {
                            let result = try await store.claimFeeds(Self.request("w\(worker)", limit: 3))
                            if result.claimed.isEmpty { break }
                            mine += result.claimed.map(\.subscription.id)
                        }
                        return mine
                    }
                }
                var all: [[Int64]] = []
                for try await mine in group { all.append(mine) }
                return all
            }
            let claimed = claims.flatMap { $0 }
            #expect(claimed.count == 40, "every feed claimed once: \(claimed.count) claims")
            #expect(Set(claimed).count == 40)
            #expect(try await store.activeLeaseCount() == 40)
        }
    }

    @Test func thePerHostLimitCountsEveryWorkersLeases() async throws {
        try await Self.withFleetStore { store in
            for number in 1...6 {
                _ = try await store.addSubscription(
                    url: URL(string: "https://one.example/\(number).xml")!, title: nil, at: Self.t0, backlog: nil)
            }
            _ = try await store.addSubscription(
                url: URL(string: "https://other.example/feed.xml")!, title: nil, at: Self.t0, backlog: nil)
            let first = try await store.claimFeeds(Self.request("a", perHost: 2))
            #expect(
                first.claimed.map(\.subscription.url.host).sorted { ($0 ?? "") < ($1 ?? "") } == [
                    "one.example", "one.example", "other.example",
                ])
            let second = try await store.claimFeeds(Self.request("b", perHost: 2))
            #expect(second.claimed.isEmpty, "one.example already has 2 leases")
            #expect(second.waitingForHost > 0, "due feeds wait for a host slot")
            // One of one.example's leases given back: one more of its feeds may be claimed, no more.
            let given = try #require(first.claimed.first { $0.subscription.url.host == "one.example" })
            try await store.releaseLeases([given.lease])
            let third = try await store.claimFeeds(Self.request("b", perHost: 2))
            #expect(third.claimed.count == 1)
            #expect(third.claimed.first?.subscription.url.host == "one.example")
        }
    }

    @Test func aLeaseRunsOutByTheDatabasesClockAndAnExpiredMergeIsRefused() async throws {
        try await Self.withFleetStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed.xml")!, title: nil, at: Self.t0, backlog: nil)
            // The lease is long enough for the next claim to come within it on a loaded machine (2 s once was not,
            // at load 30); then the fast worker asks until the lease has run out.
            let claimed = ContinuousClock.now
            let slow = try #require(
                try await store.claimFeeds(Self.request("slow", lease: .seconds(10))).claimed.first)
            #expect(try await store.claimFeeds(Self.request("fast")).claimed.isEmpty, "held by the slow worker")
            let fast = try #require(try await Self.claimOnceFree(store, worker: "fast"))
            #expect(ContinuousClock.now - claimed >= .seconds(10), "taken over before the lease ran out")
            #expect(fast.lease.token != slow.lease.token)

            // The slow worker's check comes in late: refused, and the feed stays the fast worker's.
            await #expect(throws: StoreError.self) {
                _ = try await store.apply(Self.notModified(feed.id, lease: slow.lease))
            }
            do {
                _ = try await store.apply(Self.notModified(feed.id, lease: slow.lease))
            } catch let error as StoreError {
                #expect(error.kind == .leaseLost)
            }
            // A late 304 that would also move the feed goes through the merge's transaction: refused the same way.
            var movingCheck = Self.notModified(feed.id, lease: slow.lease)
            movingCheck.movedTo = URL(string: "https://moved.example/feed.xml")!
            do {
                _ = try await store.apply(movingCheck)
                Issue.record("a late check that moves the feed was stored")
            } catch let error as StoreError {
                #expect(error.kind == .leaseLost)
            }
            #expect(try await store.subscription(id: feed.id)?.url == URL(string: "https://a.example/feed.xml")!)
            #expect(try await store.subscription(id: feed.id)?.lastCheckedAt == nil, "nothing of the late check")
            _ = try await store.apply(Self.notModified(feed.id, lease: fast.lease))
            #expect(try await store.subscription(id: feed.id)?.lastStatus == 304)
            #expect(try await store.activeLeaseCount() == 0, "the merge gave the lease back")
        }
    }

    @Test func aWorkerWhoseClockIsTenMinutesAheadLeasesByTheDatabasesClock() async throws {
        try await withTestHTTPServer { server in
            server.serveFeed(
                "/slow.xml",
                """
                <rss version="2.0"><channel><title>Slow</title>
                <item><guid>s1</guid><title>One</title></item></channel></rss>
                """)
            server.setRoute("/slow.xml") { _ in
                TestResponse(
                    status: 200, headers: [("Content-Type", "application/rss+xml")],
                    text:
                        "<rss version=\"2.0\"><channel><title>Slow</title><item><guid>s1</guid></item></channel></rss>",
                    delay: .seconds(6))
            }
            try await Self.withFleetStore { store in
                let feed = try await store.addSubscription(
                    url: server.url("/slow.xml"), title: nil, at: Self.t0, backlog: nil)
                let summary = try await HTTPFeedSource.withSource(configuration: FetchConfiguration()) { source in
                    var configuration = EpisodeUpdateConfiguration(retryTransientFailures: false)
                    configuration.clock = AppClock.system.shifted(by: 600)
                    let service = EpisodeUpdateService(
                        store: store, claims: store, fleet: FleetSettings(worker: "ahead", lease: .seconds(1)),
                        source: source, coordinator: DataFetchCoordinator(), configuration: configuration)
                    async let run = service.refresh(policy: .due)
                    // While the fetch runs (the server holds its answer for 6 s), its lease ends a second after the
                    // claim by the database's clock, whatever the worker's clock says; then another worker may take
                    // the feed.
                    #expect(await waitUntil { !server.requests(to: "/slow.xml").isEmpty }, "the fetch started")
                    let other = try await Self.claimOnceFree(store, worker: "other")
                    #expect(other?.subscription.id == feed.id)
                    return try await run
                }
                // The ahead worker's check came after its lease ran out: dropped, not stored, said so.
                guard case .dropped(let error) = summary.outcomes.first?.result else {
                    Issue.record("expected a dropped check, got \(summary.outcomes.map(\.result))")
                    return
                }
                #expect(error.reason == .leaseLost)
                #expect(try await store.episodes(EpisodeQuery()).isEmpty)
                #expect(try await store.subscription(id: feed.id)?.lastCheckedAt == nil)
            }
        }
    }

    // MARK: - Download leases

    @Test func oneWorkerAtATimeHoldsAnEpisodesDownloadUntilItGivesItBackOrItExpires() async throws {
        try await Self.withFleetStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: nil, at: Self.t0, backlog: nil)
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: Self.t0, status: 200,
                    result: .fetched(
                        ParsedFeed(format: .rss2, title: "Show", episodes: [ParsedEpisode(id: "e1", guid: "e1")]),
                        etag: nil, lastModified: nil, unconditional: true)))
            // Eight workers claim at once: exactly one gets it.
            let tokens = try await withThrowingTaskGroup(of: DownloadLease?.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        try await store.claimDownload(
                            subscriptionID: feed.id, episodeKey: "e1", worker: "w\(worker)", lease: .seconds(60))
                    }
                }
                var got: [DownloadLease] = []
                for try await lease in group { if let lease { got.append(lease) } }
                return got
            }
            #expect(tokens.count == 1)
            let held = try #require(tokens.first)
            #expect(try await store.renewDownloadLease(held, lease: .seconds(60)))

            // Given back: another worker may take it at once, and the old lease is no longer renewable.
            try await store.releaseDownloadLease(held)
            let claimed = ContinuousClock.now
            let next = try #require(
                try await store.claimDownload(
                    subscriptionID: feed.id, episodeKey: "e1", worker: "b", lease: .seconds(5)))
            #expect(next.token != held.token)
            #expect(try await !store.renewDownloadLease(held, lease: .seconds(60)))
            #expect(
                try await store.claimDownload(
                    subscriptionID: feed.id, episodeKey: "e1", worker: "c", lease: .seconds(60)) == nil)

            // Expired (by the database's clock): taken over, and not before.
            var taken: DownloadLease?
            let deadline = ContinuousClock.now + .seconds(60)
            while taken == nil && ContinuousClock.now < deadline {
                taken = try await store.claimDownload(
                    subscriptionID: feed.id, episodeKey: "e1", worker: "c", lease: .seconds(60))
                if taken == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(taken != nil, "never taken over")
            #expect(ContinuousClock.now - claimed >= .seconds(5), "taken over before the lease ran out")
        }
    }

    // MARK: - Runs over every feed

    @Test func workersOfOneAllRunShareItsStartAndAnEndedRunStartsAfresh() async throws {
        try await Self.withFleetStore { store in
            let all = try #require(CheckPass(.all(includeGone: false, notCheckedSince: Self.t0)))
            let first = try await store.joinCheckPass(all, lease: .seconds(60))
            try await Task.sleep(for: .milliseconds(50))
            #expect(try await store.joinCheckPass(all, lease: .seconds(60)) == first, "joined, not restarted")
            let force = try #require(CheckPass(.all(includeGone: true, notCheckedSince: Self.t0)))
            #expect(try await store.joinCheckPass(force, lease: .seconds(60)) > first, "another selection, its own run")
            #expect(CheckPass(.due) == nil)

            try await store.endCheckPass(all, startedAt: first)
            let next = try await store.joinCheckPass(all, lease: .seconds(60))
            #expect(next > first, "an ended run is not joined")

            // Neither joined nor touched for longer than the lease: over.
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await store.joinCheckPass(all, lease: .seconds(1)) > next)
        }
    }
}
