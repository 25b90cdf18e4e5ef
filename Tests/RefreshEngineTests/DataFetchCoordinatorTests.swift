import FeedFetching
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import RefreshEngine

/// A flag one task sets and another waits for.
private final class Flag: Sendable {
    private let value = Mutex(false)

    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Counts how many operations run at once, overall and per host.
private final class ConcurrencyProbe: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var running = 0
    private var perHost: [String: Int] = [:]
    private(set) var maxRunning = 0
    private(set) var maxPerHost = 0
    private(set) var started: [Int64] = []

    func enter(_ feed: FeedTarget) {
        lock.withLock {
            running += 1
            perHost[feed.host, default: 0] += 1
            maxRunning = max(maxRunning, running)
            maxPerHost = max(maxPerHost, perHost[feed.host]!)
            started.append(feed.id)
        }
    }

    func leave(_ feed: FeedTarget) {
        lock.withLock {
            running -= 1
            perHost[feed.host]! -= 1
        }
    }

    var snapshot: (maxRunning: Int, maxPerHost: Int, started: [Int64]) {
        lock.withLock { (maxRunning, maxPerHost, started) }
    }
}

private func feeds(_ count: Int, hosts: Int) -> [FeedTarget] {
    (1...count).map {
        FeedTarget(id: Int64($0), url: URL(string: "https://host\($0 % hosts).example/feed\($0)")!, title: "Feed \($0)")
    }
}

private func collect(_ stream: AsyncStream<EngineEvent>) -> Task<[DataFetchEvent], Never> {
    Task {
        var events: [DataFetchEvent] = []
        for await case .fetch(let event) in stream { events.append(event) }
        return events
    }
}

struct DataFetchCoordinatorTests {
    @Test(.timeLimit(.minutes(1)))
    func everyFeedRunsOnceAndTheGlobalLimitHolds() async {
        let coordinator = DataFetchCoordinator(maxConcurrent: 3, maxPerHost: 16)
        let probe = ConcurrencyProbe()
        let input = feeds(20, hosts: 20)
        let outcomes = await coordinator.run(input) { feed in
            probe.enter(feed)
            try? await Task.sleep(for: .milliseconds(5))
            probe.leave(feed)
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        #expect(outcomes.count == 20)
        #expect(Set(outcomes.map(\.feed.id)) == Set(input.map(\.id)))
        #expect(probe.snapshot.started.count == 20)
        #expect(probe.snapshot.maxRunning <= 3)
        #expect(probe.snapshot.maxRunning >= 2, "fetches should overlap")
        #expect(coordinator.activeFeedIDs.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func theBusiestHostKeepsItsSlotsAndNeverWaitsBehindSmallOnes() async {
        // One host with 12 feeds (the run's critical path) and 12 hosts with one feed each, listed first.
        let small = (1...12).map {
            FeedTarget(id: Int64(100 + $0), url: URL(string: "https://small\($0).example/feed")!, title: "Small \($0)")
        }
        let big = (1...12).map {
            FeedTarget(id: Int64($0), url: URL(string: "https://platform.example/feed\($0)")!, title: "Big \($0)")
        }
        let coordinator = DataFetchCoordinator(maxConcurrent: 4, maxPerHost: 2)
        let probe = ConcurrencyProbe()
        _ = await coordinator.run(small + big) { feed in
            probe.enter(feed)
            try? await Task.sleep(for: .milliseconds(feed.host == "platform.example" ? 5 : 40))
            probe.leave(feed)
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        let started = probe.snapshot.started
        // The big host starts first and gets its two slots back each time one of its feeds ends, so all of its
        // feeds start before the last small one: the small hosts fill only the slots it cannot use.
        #expect(started.prefix(2).allSatisfy { $0 <= 12 }, "\(started)")
        let lastBig = started.lastIndex { $0 <= 12 } ?? 0
        let lastSmall = started.lastIndex { $0 > 100 } ?? 0
        #expect(lastBig < lastSmall, "\(started)")
        #expect(probe.snapshot.maxPerHost <= 2)
    }

    @Test(.timeLimit(.minutes(1)))
    func noHostGetsMoreThanItsShare() async {
        let coordinator = DataFetchCoordinator(maxConcurrent: 8, maxPerHost: 2)
        let probe = ConcurrencyProbe()
        let outcomes = await coordinator.run(feeds(24, hosts: 2)) { feed in
            probe.enter(feed)
            try? await Task.sleep(for: .milliseconds(5))
            probe.leave(feed)
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        #expect(outcomes.count == 24)
        #expect(probe.snapshot.maxPerHost <= 2)
        #expect(probe.snapshot.maxRunning <= 4)
    }

    @Test(.timeLimit(.minutes(1)))
    func aFeedBeingFetchedIsNotFetchedAgain() async {
        let coordinator = DataFetchCoordinator(maxConcurrent: 5)
        let (gate, release) = AsyncStream.makeStream(of: Void.self)
        let feed = FeedTarget(id: 7, url: URL(string: "https://a.example/feed")!)
        let first = Task {
            await coordinator.run([feed]) { feed in
                for await _ in gate { break }
                return RefreshOutcome(feed: feed, result: .notModified)
            }
        }
        while !coordinator.activeFeedIDs.contains(7) { await Task.yield() }
        let calls = ConcurrencyProbe()
        let second = await coordinator.run([feed]) { feed in
            calls.enter(feed)
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        #expect(second.map(\.result) == [.cancelled])
        #expect(calls.snapshot.started.isEmpty)
        release.yield()
        release.finish()
        #expect(await first.value.map(\.result) == [.notModified])
    }

    @Test(.timeLimit(.minutes(1)))
    func everySubscriberSeesEveryEventInOrder() async {
        let coordinator = DataFetchCoordinator(maxConcurrent: 2)
        let a = collect(coordinator.events.subscribe())
        let b = collect(coordinator.events.subscribe())
        let input = feeds(6, hosts: 3)
        _ = await coordinator.run(input) { feed in
            if feed.id == 3 {
                return RefreshOutcome(
                    feed: feed,
                    result: .failed(
                        RefreshFailure(
                            .fetch(
                                FeedFetchError(.httpStatus(500, reasonPhrase: "Internal Server Error", retryAfter: nil))
                            ))))
            }
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        coordinator.events.finish()
        let eventsA = await a.value
        let eventsB = await b.value
        #expect(eventsA == eventsB)
        #expect(eventsA.first == .batchStarted(total: 6))
        let finished = eventsA.compactMap { event -> Int? in
            if case .batchProgress(let progress) = event { return progress.finished }
            return nil
        }
        #expect(finished == finished.sorted(), "progress never goes backwards")
        #expect(finished.last == 6)
        for feed in input {
            let started = eventsA.firstIndex(of: .fetchStarted(feed))
            let ended = eventsA.firstIndex { event in
                switch event {
                case .fetchCompleted(let outcome), .fetchFailed(let outcome): return outcome.feed == feed
                default: return false
                }
            }
            #expect(started != nil && ended != nil && started! < ended!)
        }
        #expect(eventsA.contains { if case .fetchFailed(let o) = $0 { return o.feed.id == 3 } else { return false } })
        if case .batchProgress(let last) = eventsA.last(where: { if case .batchProgress = $0 { true } else { false } })
        {
            #expect(last.failures == 1)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingTheRunStartsNoNewFetches() async {
        let coordinator = DataFetchCoordinator(maxConcurrent: 1)
        let probe = ConcurrencyProbe()
        let (gate, release) = AsyncStream.makeStream(of: Void.self)
        let run = Task {
            await coordinator.run(feeds(5, hosts: 5)) { feed in
                probe.enter(feed)
                for await _ in gate { break }
                probe.leave(feed)
                return RefreshOutcome(feed: feed, result: .notModified)
            }
        }
        while probe.snapshot.started.isEmpty { await Task.yield() }
        run.cancel()
        release.finish()
        let outcomes = await run.value
        #expect(outcomes.count == 5)
        #expect(probe.snapshot.started.count == 1)
        #expect(outcomes.filter { $0.result == .cancelled }.count == 4)
        #expect(coordinator.activeFeedIDs.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func aFeedThatMovesToAnotherHostGivesBackTheSlotOfTheHostItWasClaimedFor() async {
        // Given six feeds on one host, two per host, and the first two moving elsewhere while they are fetched
        let coordinator = DataFetchCoordinator(maxConcurrent: 5, maxPerHost: 2)
        let input = (1...6).map { FeedTarget(id: Int64($0), url: URL(string: "http://old.example/feed\($0)")!) }
        // When the batch runs
        let outcomes = await coordinator.run(input) { feed in
            var moved = feed
            if feed.id <= 2 { moved.url = URL(string: "http://new\(feed.id).example/feed")! }
            return RefreshOutcome(feed: moved, result: .notModified, movedTo: feed.id <= 2 ? moved.url : nil)
        }
        // Then every feed was checked: none was left without a slot
        #expect(outcomes.count == 6)
        #expect(outcomes.allSatisfy { $0.result == .notModified })
        #expect(coordinator.activeFeedIDs.isEmpty)
    }

    @Test
    func aHostThatMultiplexesTakesUpToItsStreamLimitWhileAnHTTP1HostKeepsThePerHostLimit() {
        // 10 feeds on a host whose answers came over HTTP/2 (8 streams at once), 10 on one that speaks HTTP/1.1.
        let targets = (1...20).map {
            FeedTarget(id: Int64($0), url: URL(string: "https://\($0 <= 10 ? "h2" : "h1").example/\($0)")!)
        }
        let multiplexed: (String) -> Int? = { $0 == "h2.example" ? 8 : nil }
        func claimAll(globalLimit: Int) -> [String: Int] {
            var state = DataFetchCoordinator.State()
            var pending = PendingFeeds(targets)
            var claimed: [String: Int] = [:]
            while let feed = state.claimNext(
                from: &pending, globalLimit: globalLimit, perHost: 2, multiplexed: multiplexed)
            {
                claimed[feed.host, default: 0] += 1
            }
            return claimed
        }
        #expect(claimAll(globalLimit: 100) == ["h2.example": 8, "h1.example": 2])
        #expect(claimAll(globalLimit: 5).values.reduce(0, +) == 5, "the global limit still holds")
        // A stream limit under the per-host limit never lowers it.
        var state = DataFetchCoordinator.State()
        var pending = PendingFeeds(targets)
        var claimed = 0
        while state.claimNext(from: &pending, globalLimit: 100, perHost: 4, multiplexed: { _ in 1 }) != nil {
            claimed += 1
        }
        #expect(claimed == 8)
    }

    @Test
    func aMultiplexingHostRunsPastThePerHostLimitOnlyAfterEveryHostWasAskedAndNeverWhileTheRunHoldsBack() {
        // 10 feeds on a host whose answers came over HTTP/2 (8 streams at once), then 3 hosts with one feed each.
        let targets =
            (1...10).map { FeedTarget(id: Int64($0), url: URL(string: "https://h2.example/\($0)")!) }
            + (11...13).map { FeedTarget(id: Int64($0), url: URL(string: "https://one\($0).example/feed")!) }
        func claimAll(holdingBack: Bool) -> [String] {
            var state = DataFetchCoordinator.State()
            var pending = PendingFeeds(targets)
            var hosts: [String] = []
            while let feed = state.claimNext(
                from: &pending, globalLimit: 100, perHost: 2, holdingBack: holdingBack,
                multiplexed: { $0 == "h2.example" ? 8 : nil })
            {
                hosts.append(feed.host)
            }
            return hosts
        }
        let askedFirst = ["h2.example", "h2.example", "one11.example", "one12.example", "one13.example"]
        #expect(claimAll(holdingBack: true) == askedFirst)
        #expect(claimAll(holdingBack: false) == askedFirst + Array(repeating: "h2.example", count: 6))
    }

    @Test(.timeLimit(.minutes(1)))
    func aRunAsksForEachHostsMultiplexedLimitAsFeedsStart() async {
        let coordinator = DataFetchCoordinator(
            maxConcurrent: 16, maxPerHost: 2, multiplexedLimit: { $0 == "host0.example" ? 6 : nil })
        let probe = ConcurrencyProbe()
        let gate = Flag()
        // 24 feeds over 2 hosts; every fetch waits until 8 run at once (6 on the multiplexing host and 2 on the
        // other), which only the raised limit allows (without it, the first wait gives up and lets all go on).
        let outcomes = await coordinator.run(feeds(24, hosts: 2)) { feed in
            probe.enter(feed)
            if probe.snapshot.started.count >= 8 { gate.set() }
            if await !waitUntil(within: .seconds(20), { gate.isSet }) { gate.set() }
            probe.leave(feed)
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        #expect(outcomes.count == 24)
        #expect(probe.snapshot.maxRunning == 8)
    }

    @Test
    func releasingAFeedFreesTheHostSlotItWasClaimedUnder() {
        var state = DataFetchCoordinator.State()
        var pending = PendingFeeds(
            (1...3).map { FeedTarget(id: Int64($0), url: URL(string: "http://a.example/\($0)")!) })
        let first = state.claimNext(from: &pending, globalLimit: 5, perHost: 2)
        let second = state.claimNext(from: &pending, globalLimit: 5, perHost: 2)
        #expect(first?.id == 1 && second?.id == 2)
        #expect(state.claimNext(from: &pending, globalLimit: 5, perHost: 2) == nil, "the host is full")
        state.release(id: 1)
        #expect(state.claimNext(from: &pending, globalLimit: 5, perHost: 2)?.id == 3)
        state.release(id: 2)
        state.release(id: 3)
        #expect(state.runningPerHost.isEmpty && state.running.isEmpty && state.active.isEmpty)
        state.release(id: 3)
        #expect(state.runningPerHost.isEmpty, "releasing twice changes nothing")
    }

    @Test
    func aFeedThatGaveItsHostSlotBackEarlyLetsTheHostsNextFeedStartAndIsReleasedOnce() {
        var state = DataFetchCoordinator.State()
        var pending = PendingFeeds(
            (1...3).map { FeedTarget(id: Int64($0), url: URL(string: "http://a.example/\($0)")!) })
        #expect(state.claimNext(from: &pending, globalLimit: 5, perHost: 1)?.id == 1)
        #expect(state.claimNext(from: &pending, globalLimit: 5, perHost: 1) == nil, "the host is full")
        state.releaseHost(id: 1)
        state.releaseHost(id: 1)
        #expect(
            state.claimNext(from: &pending, globalLimit: 5, perHost: 1)?.id == 2,
            "the host's slot came back")
        #expect(
            state.claimNext(from: &pending, globalLimit: 5, perHost: 1) == nil,
            "given back once, not twice")
        #expect(state.running.count == 2, "a feed that gave its host slot back still runs")
        state.release(id: 1)
        #expect(
            state.claimNext(from: &pending, globalLimit: 5, perHost: 1) == nil,
            "finishing frees no second slot")
        state.release(id: 2)
        #expect(state.claimNext(from: &pending, globalLimit: 5, perHost: 1)?.id == 3)
        state.release(id: 3)
        #expect(state.runningPerHost.isEmpty && state.running.isEmpty && state.hostReleased.isEmpty)
    }

    @Test
    func everyHostIsAskedOnceBeforeAnyButTheBusiestIsAskedAgain() {
        var state = DataFetchCoordinator.State()
        func feeds(_ host: String, _ ids: ClosedRange<Int>) -> [FeedTarget] {
            ids.map { FeedTarget(id: Int64($0), url: URL(string: "http://\(host).example/\($0)")!) }
        }
        // A medium host listed first, the busiest host, then three hosts with one feed each.
        var pending = PendingFeeds(
            feeds("medium", 1...4) + feeds("big", 11...16) + feeds("c", 21...21) + feeds("d", 31...31)
                + feeds("e", 41...41))
        var order: [String] = []
        while let feed = state.claimNext(from: &pending, globalLimit: 7, perHost: 2) {
            order.append(feed.host)
        }
        #expect(
            order == [
                "big.example", "big.example", "medium.example", "c.example", "d.example", "e.example",
                "medium.example",
            ],
            "the busiest host fills its slots, then each host is asked once, then the host with the most work left")
    }

    @Test(.timeLimit(.minutes(1)))
    func aSlowServerWithOneFeedIsAskedAtOnceNotAfterTheBigHostsQueues() async {
        // The single feed of a slow server is listed last, behind two hosts with many feeds; three fetches at once.
        let big = (1...10).map { FeedTarget(id: Int64($0), url: URL(string: "https://big.example/\($0)")!) }
        let medium = (11...16).map { FeedTarget(id: Int64($0), url: URL(string: "https://medium.example/\($0)")!) }
        let slow = FeedTarget(id: 99, url: URL(string: "https://slow.example/feed")!)
        let coordinator = DataFetchCoordinator(maxConcurrent: 3, maxPerHost: 2)
        let probe = ConcurrencyProbe()
        _ = await coordinator.run(medium + big + [slow]) { feed in
            probe.enter(feed)
            try? await Task.sleep(for: .milliseconds(feed.id == 99 ? 200 : 5))
            probe.leave(feed)
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        let started = probe.snapshot.started
        #expect(started.count == 17)
        #expect(started.prefix(6).contains(99), "the slow server is asked among the first fetches: \(started)")
    }

    @Test
    func amongHostsWithEqualWorkTheOneWhoseFeedWasListedFirstGoesFirstAndFeedsNeverStartedComeBackInListOrder() {
        var state = DataFetchCoordinator.State()
        let listed = [("b", 1), ("a", 2), ("b", 3), ("a", 4), ("c", 5)].map { host, id in
            FeedTarget(id: Int64(id), url: URL(string: "http://\(host).example/\(id)")!)
        }
        var pending = PendingFeeds(listed + [listed[0]])
        #expect(pending.count == 5, "a feed listed twice waits once")
        #expect(state.claimNext(from: &pending, globalLimit: 10, perHost: 1)?.id == 1, "b and a tie; b came first")
        #expect(state.claimNext(from: &pending, globalLimit: 10, perHost: 1)?.id == 2, "a now has the most work left")
        #expect(state.claimNext(from: &pending, globalLimit: 10, perHost: 1)?.id == 5, "c not asked yet, with room")
        #expect(state.claimNext(from: &pending, globalLimit: 10, perHost: 1) == nil, "every host is full")
        #expect(pending.removeAll().map(\.id) == [3, 4])
        #expect(pending.isEmpty && !pending.contains(id: 3))
    }

    @Test
    func whileNoFetchIsAdmittedOnlyTheBusiestHostsFeedsAndEachOtherHostsFirstFeedStart() {
        var state = DataFetchCoordinator.State()
        var pending = PendingFeeds(
            (1...2).map { FeedTarget(id: Int64($0), url: URL(string: "http://small.example/\($0)")!) }
                + (3...6).map { FeedTarget(id: Int64($0), url: URL(string: "http://big.example/\($0)")!) }
                + [FeedTarget(id: 7, url: URL(string: "http://slow.example/7")!)])
        let first = state.claimNext(from: &pending, globalLimit: 10, perHost: 2, holdingBack: true)
        let second = state.claimNext(from: &pending, globalLimit: 10, perHost: 2, holdingBack: true)
        #expect(first?.host == "big.example" && second?.host == "big.example")
        #expect(state.busiestHost == [first!.id, second!.id])
        #expect(
            state.claimNext(from: &pending, globalLimit: 10, perHost: 2, holdingBack: true)?.id == 1,
            "the busiest host is full: a host never asked is asked once, in list order")
        #expect(
            state.claimNext(from: &pending, globalLimit: 10, perHost: 2, holdingBack: true)?.id == 7,
            "then the next host never asked")
        #expect(
            state.claimNext(from: &pending, globalLimit: 10, perHost: 2, holdingBack: true) == nil,
            "every host has been asked: small's second feed waits while nothing is admitted")
        #expect(state.claimNext(from: &pending, globalLimit: 10, perHost: 2)?.id == 2, "admitted again: it starts")
    }

    @Test(.timeLimit(.minutes(1)))
    func aRunThatAdmitsNothingStillAsksEveryHostOnceWhileTheBusyHostsAnswersAreOutstanding() async {
        // The busy host answers only when the test opens the gate; every other host's first feed must start meanwhile.
        let busy = (1...4).map { FeedTarget(id: Int64($0), url: URL(string: "http://busy.example/\($0)")!) }
        let others = (5...8).map { FeedTarget(id: Int64($0), url: URL(string: "http://host\($0).example/feed")!) }
        let second = FeedTarget(id: 9, url: URL(string: "http://host5.example/second")!)
        let started = Mutex<[Int64]>([])
        let gate = Gate()
        let coordinator = DataFetchCoordinator(maxConcurrent: 16, maxPerHost: 2)
        async let outcomes = coordinator.run(busy + others + [second], admitting: { false }) { feed, _ in
            started.withLock { $0.append(feed.id) }
            if feed.host == "busy.example" { await gate.wait() }
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        var waited = 0
        while !Set<Int64>([5, 6, 7, 8]).isSubset(of: started.withLock { $0 }), waited < 2000 {
            try? await Task.sleep(for: .milliseconds(5))
            waited += 1
        }
        let snapshot = started.withLock { $0 }
        #expect(
            Set<Int64>([5, 6, 7, 8]).isSubset(of: snapshot),
            "each host not asked yet is asked while the busy host's answers are outstanding")
        #expect(!snapshot.contains(9), "a host's second feed waits while nothing is admitted")
        #expect(snapshot.filter { $0 <= 4 }.count == 2, "the busy host keeps to its limit")
        await gate.open()
        #expect(await outcomes.count == 9, "every feed ends: the busy host's and then the one held back")
        #expect(started.withLock { $0.last } == 9, "the feed held back starts last")
    }

    @Test
    func onlyFeedsStartedAsTheBusiestHostsAreMarkedSoAndTheMarkEndsWithTheFeed() {
        var state = DataFetchCoordinator.State()
        var pending = PendingFeeds(
            (1...3).map { FeedTarget(id: Int64($0), url: URL(string: "http://big.example/\($0)")!) }
                + [FeedTarget(id: 4, url: URL(string: "http://small.example/4")!)])
        var claimed: [Int64] = []
        while let feed = state.claimNext(from: &pending, globalLimit: 10, perHost: 2) { claimed.append(feed.id) }
        #expect(claimed == [1, 2, 4])
        #expect(
            state.busiestHost == [1, 2], "the small host's feed started as a host not yet asked, not as the busiest")
        state.release(id: 1)
        #expect(state.busiestHost == [2])
        #expect(state.claimNext(from: &pending, globalLimit: 10, perHost: 2)?.id == 3)
        #expect(state.busiestHost == [2, 3], "big.example still has the most work left")
    }

    @Test
    func aFeedClaimedWhenNoOtherFeedOfItsHostWaitsIsTheLastOfItsHost() {
        var state = DataFetchCoordinator.State()
        var pending = PendingFeeds(
            (1...3).map { FeedTarget(id: Int64($0), url: URL(string: "http://big.example/\($0)")!) }
                + [FeedTarget(id: 4, url: URL(string: "http://small.example/4")!)])
        var claimed: [Int64] = []
        while let feed = state.claimNext(from: &pending, globalLimit: 10, perHost: 2) {
            claimed.append(feed.id)
        }
        #expect(claimed == [1, 2, 4], "two of the big host's feeds, then the small host's one")
        #expect(!state.lastOfHost.contains(1) && !state.lastOfHost.contains(2), "feed 3 still waits for big.example")
        #expect(state.lastOfHost.contains(4), "nothing else waits for small.example")
        state.release(id: 1)
        #expect(state.claimNext(from: &pending, globalLimit: 10, perHost: 2)?.id == 3)
        #expect(state.lastOfHost.contains(3), "the big host's last waiting feed, although feed 2 still runs")
        for id: Int64 in [2, 3, 4] { state.release(id: id) }
        #expect(state.lastOfHost.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func aBatchTellsEachFetchWhetherItIsTheLastOfItsHostButAClaimingBatchNeverDoes() async {
        let feeds =
            (1...2).map { FeedTarget(id: Int64($0), url: URL(string: "http://one.example/\($0)")!) }
            + [FeedTarget(id: 3, url: URL(string: "http://two.example/3")!)]
        let seen = Mutex<[Int64: Bool]>([:])
        _ = await DataFetchCoordinator(maxConcurrent: 1, maxPerHost: 1).run(feeds, admitting: nil) { feed, slot in
            seen.withLock { $0[feed.id] = slot.isLastOfHost }
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        #expect(seen.withLock { $0 } == [1: false, 2: true, 3: true])

        // A worker of a fleet may be handed more of a host's feeds by a later claim.
        let handedOut = Mutex(false)
        let claimed = Mutex<[Int64: Bool]>([:])
        _ = await DataFetchCoordinator(maxConcurrent: 1, maxPerHost: 1).run(
            claimingWith: { _ in
                handedOut.withLock { done in
                    if done { return .exhausted }
                    done = true
                    return .feeds([feeds[2]])
                }
            },
            operation: { feed, slot in
                claimed.withLock { $0[feed.id] = slot.isLastOfHost }
                return RefreshOutcome(feed: feed, result: .notModified)
            })
        #expect(claimed.withLock { $0 } == [3: false])
    }

    @Test(.timeLimit(.minutes(1)))
    func aBatchWhoseHostSlotIsGivenBackEarlyStartsTheHostsNextFeedWhileTheFirstIsStillRunning() async {
        let coordinator = DataFetchCoordinator(maxConcurrent: 4, maxPerHost: 1)
        let feeds = (1...2).map { FeedTarget(id: Int64($0), url: URL(string: "http://one.example/\($0)")!) }
        let secondStarted = Flag()
        let outcomes = await coordinator.run(feeds, admitting: nil) { feed, slot in
            if feed.id == 1 {
                slot.releaseHost()
                // The first feed goes on (its parse and merge) until the host's next feed has started.
                let deadline = ContinuousClock.now + .seconds(10)
                while !secondStarted.isSet && ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(5))
                }
                if !secondStarted.isSet { return RefreshOutcome(feed: feed, result: .cancelled) }
            } else {
                secondStarted.set()
            }
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        #expect(outcomes.count == 2)
        #expect(
            outcomes.allSatisfy { $0.result == .notModified },
            "the host's next feed started only after the first had finished")
    }

    @Test(.timeLimit(.minutes(1)))
    func aBatchWhoseSlotsAreHeldByAnotherBatchWaitsForThemInsteadOfGivingUp() async {
        // One slot, two batches at once: whichever starts second finds the slot taken and must wait for it.
        let coordinator = DataFetchCoordinator(maxConcurrent: 1, maxPerHost: 1)
        let first = (1...3).map { FeedTarget(id: Int64($0), url: URL(string: "http://a.example/\($0)")!) }
        let second = (4...6).map { FeedTarget(id: Int64($0), url: URL(string: "http://a.example/\($0)")!) }
        let operation: @Sendable (FeedTarget) async -> RefreshOutcome = { feed in
            try? await Task.sleep(for: .milliseconds(20))
            return RefreshOutcome(feed: feed, result: .notModified)
        }
        async let a = coordinator.run(first, operation: operation)
        async let b = coordinator.run(second, operation: operation)
        let outcomes = await a + b
        #expect(outcomes.count == 6)
        #expect(outcomes.allSatisfy { $0.result == .notModified }, "\(outcomes.map(\.result))")
    }
}

/// Holds every caller of ``wait()`` until ``open()``; callers after that pass at once.
private actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}
