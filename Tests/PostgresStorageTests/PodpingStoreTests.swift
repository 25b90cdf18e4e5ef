import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import PostgresStorage
import TestSupport
import Testing

/// Podping state and the chain's cursor, the same on SQLite and PostgreSQL: one worker of a fleet reads the chain
/// under a lease; pings make feeds due by one rule.
@Suite(.serialized)
struct PodpingStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_732_581_663)

    func withPodpingStore(
        _ backend: Backend, _ body: (any SpecifiedStore, any PodpingRepository) async throws -> Void
    ) async throws {
        try await backend.withStore { store in
            let podping = try #require(store as? any PodpingRepository)
            try await body(store, podping)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func oneWorkerHoldsTheCursorUntilItsLeaseExpiresOrItLetsGo(_ backend: Backend) async throws {
        try await withPodpingStore(backend) { _, store in
            #expect(try await store.podpingCursor() == nil)
            #expect(try await store.claimPodpingCursor(worker: "a", lease: 30, at: t0) == .granted(block: nil))
            #expect(
                try await store.claimPodpingCursor(worker: "b", lease: 30, at: t0.addingTimeInterval(5))
                    == .heldBy(worker: "a", until: t0.addingTimeInterval(30)))
            #expect(
                try await store.advancePodpingCursor(to: 500, worker: "a", lease: 30, at: t0.addingTimeInterval(10)))
            #expect(try await store.advancePodpingCursor(to: 999, worker: "b", lease: 30, at: t0) == false)
            let cursor = try #require(try await store.podpingCursor())
            #expect(cursor.block == 500)
            #expect(cursor.holder == "a")
            #expect(cursor.leaseExpiresAt == t0.addingTimeInterval(40))
            // The lease, renewed to t0+40, expires: another worker takes over where the first stopped.
            #expect(
                try await store.claimPodpingCursor(worker: "b", lease: 30, at: t0.addingTimeInterval(41))
                    == .granted(block: 500))
            #expect(try await store.advancePodpingCursor(to: 501, worker: "a", lease: 30, at: t0) == false)
            try await store.releasePodpingCursor(worker: "b")
            #expect(
                try await store.claimPodpingCursor(worker: "c", lease: 30, at: t0.addingTimeInterval(42))
                    == .granted(block: 500))
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func pingsAreRecordedAndMakeTheirFeedsDueByTheSameRule(_ backend: Backend) async throws {
        try await withPodpingStore(backend) { repositories, store in
            let checked = try await repositories.addSubscription(
                url: URL(string: "https://a.example/checked.xml")!, title: nil, at: t0, backlog: nil)
            let fresh = try await repositories.addSubscription(
                url: URL(string: "https://a.example/fresh.xml")!, title: nil, at: t0, backlog: nil)
            for feed in [checked, fresh] {
                var check = FeedCheck(
                    subscriptionID: feed.id, checkedAt: feed.id == fresh.id ? t0 : t0.addingTimeInterval(-3600),
                    status: 304, result: .notModified, nextCheckAt: t0.addingTimeInterval(86_400),
                    nextCheckReason: .cadence(interval: .seconds(86_400), basis: .noRhythmYet))
                if feed.id == checked.id {
                    // Its body declares podping, stored with its check.
                    var parsed = ParsedFeed(format: .rss2)
                    parsed.podping = PodpingDeclaration(usesPodping: true, hiveAccounts: ["host.one", "host.two"])
                    check.status = 200
                    check.result = .fetched(parsed, etag: nil, lastModified: nil, unconditional: true)
                }
                _ = try await repositories.apply(check)
            }
            let pings = [checked, fresh].map {
                FeedPing(subscriptionID: $0.id, blockNumber: 7, blockTime: t0.addingTimeInterval(-20), reason: "live")
            }
            let due = try await store.recordPings(pings, at: t0, cooldown: 30)
            #expect(due == [checked.id: t0], "the fresh feed was checked after the ping was written")
            #expect(try await repositories.dueSubscriptions(at: t0).map(\.id) == [checked.id])
            let states = try await store.podpingStates()
            #expect(
                states[checked.id]
                    == PodpingFeedState(
                        subscriptionID: checked.id, usesPodping: true, hiveAccounts: ["host.one", "host.two"],
                        lastPingAt: t0.addingTimeInterval(-20), lastPingReason: "live", lastPingBlock: 7, pingCount: 1))
            #expect(states[fresh.id]?.pingCount == 1)
            // A ping for a feed unsubscribed meanwhile is dropped; removing a feed removes its state.
            _ = try await repositories.removeSubscription(id: fresh.id)
            #expect(try await store.recordPings([pings[1]], at: t0, cooldown: 30).isEmpty)
            #expect(try await store.podpingStates()[fresh.id] == nil)
        }
    }

    func fetched(_ feed: Subscription, at date: Date, podping: PodpingDeclaration?) -> FeedCheck {
        var parsed = ParsedFeed(format: .rss2, title: "Show", episodes: [ParsedEpisode(id: "e1", title: "One")])
        parsed.podping = podping
        return FeedCheck(
            subscriptionID: feed.id, checkedAt: date, status: 200,
            result: .fetched(parsed, etag: "\"v1\"", lastModified: nil, unconditional: false),
            nextCheckAt: date.addingTimeInterval(86_400),
            nextCheckReason: .cadence(interval: .seconds(86_400), basis: .noRhythmYet))
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func aPingRecordedWhileItsFeedIsFetchedKeepsTheFeedDueAfterTheMerge(_ backend: Backend) async throws {
        try await withPodpingStore(backend) { repositories, store in
            let pinged = try await repositories.addSubscription(
                url: URL(string: "https://a.example/pinged.xml")!, title: nil, at: t0, backlog: nil)
            let notModified = try await repositories.addSubscription(
                url: URL(string: "https://a.example/304.xml")!, title: nil, at: t0, backlog: nil)
            let before = try await repositories.addSubscription(
                url: URL(string: "https://a.example/before.xml")!, title: nil, at: t0, backlog: nil)
            // Each was checked an hour ago; `before` was pinged (and so made due) before its next check started.
            for feed in [pinged, notModified, before] {
                _ = try await repositories.apply(fetched(feed, at: t0.addingTimeInterval(-3600), podping: nil))
            }
            let early = FeedPing(
                subscriptionID: before.id, blockNumber: 6, blockTime: t0.addingTimeInterval(-3), reason: "update")
            #expect(
                try await store.recordPings([early], at: t0.addingTimeInterval(-1), cooldown: 30) == [
                    before.id: t0.addingTimeInterval(-1)
                ])
            // Checks of all three start at t0; while they are in flight a ping names `pinged` and `notModified`.
            let during = [pinged, notModified].map {
                FeedPing(subscriptionID: $0.id, blockNumber: 7, blockTime: t0.addingTimeInterval(1), reason: "update")
            }
            _ = try await store.recordPings(during, at: t0.addingTimeInterval(2), cooldown: 30)
            _ = try await repositories.apply(fetched(pinged, at: t0, podping: nil))
            _ = try await repositories.apply(
                FeedCheck(
                    subscriptionID: notModified.id, checkedAt: t0, status: 304, result: .notModified,
                    nextCheckAt: t0.addingTimeInterval(86_400),
                    nextCheckReason: .cadence(interval: .seconds(86_400), basis: .noRhythmYet)))
            _ = try await repositories.apply(fetched(before, at: t0, podping: nil))

            for feed in [pinged, notModified] {
                let stored = try #require(try await repositories.subscription(id: feed.id))
                #expect(stored.nextCheckAt == t0.addingTimeInterval(30), "fetched again once the cooldown ends")
                #expect(stored.nextCheckReason == .podping)
            }
            let answered = try #require(try await repositories.subscription(id: before.id))
            #expect(answered.nextCheckAt == t0.addingTimeInterval(86_400), "its check was the answer to its ping")
            // The next check of `pinged`, started after the ping, follows its schedule again.
            _ = try await repositories.apply(fetched(pinged, at: t0.addingTimeInterval(30), podping: nil))
            #expect(
                try await repositories.subscription(id: pinged.id)?.nextCheckAt == t0.addingTimeInterval(86_430))
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func aFeedThatDropsItsPodpingDeclarationIsNoLongerTakenAtItsWord(_ backend: Backend) async throws {
        try await withPodpingStore(backend) { repositories, store in
            let feed = try await repositories.addSubscription(
                url: URL(string: "https://a.example/declared.xml")!, title: nil, at: t0, backlog: nil)
            let declared = PodpingDeclaration(usesPodping: true, hiveAccounts: ["host.one"])
            _ = try await repositories.apply(fetched(feed, at: t0, podping: declared))
            #expect(try await store.podpingStates()[feed.id]?.hiveAccounts == ["host.one"])
            #expect(try await store.podpingStates()[feed.id]?.usesPodping == true)
            _ = try await store.recordPings(
                [FeedPing(subscriptionID: feed.id, blockNumber: 9, blockTime: t0, reason: "update")],
                at: t0.addingTimeInterval(1), cooldown: 30)

            // A 304 says nothing new: the declaration stands.
            _ = try await repositories.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: t0.addingTimeInterval(60), status: 304, result: .notModified,
                    nextCheckAt: t0.addingTimeInterval(3600)))
            #expect(try await store.podpingStates()[feed.id]?.hiveAccounts == ["host.one"])

            // The next body names another account, then none at all.
            _ = try await repositories.apply(
                fetched(
                    feed, at: t0.addingTimeInterval(120),
                    podping: PodpingDeclaration(usesPodping: nil, hiveAccounts: ["host.two"])))
            #expect(try await store.podpingStates()[feed.id]?.hiveAccounts == ["host.two"])
            #expect(try await store.podpingStates()[feed.id]?.usesPodping == nil)
            _ = try await repositories.apply(fetched(feed, at: t0.addingTimeInterval(180), podping: nil))
            let state = try #require(try await store.podpingStates()[feed.id])
            #expect(state.hiveAccounts.isEmpty && state.usesPodping == nil)
            #expect(state.lastPingBlock == 9 && state.pingCount == 1, "the pings received stay recorded")

            // One that opts out and later drops the element is believed again.
            _ = try await repositories.apply(
                fetched(feed, at: t0.addingTimeInterval(240), podping: PodpingDeclaration(usesPodping: false)))
            #expect(try await store.podpingStates()[feed.id]?.usesPodping == false)
            _ = try await repositories.apply(fetched(feed, at: t0.addingTimeInterval(300), podping: nil))
            #expect(try await store.podpingStates()[feed.id]?.usesPodping == nil)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func theSubscriptionsMarkChangesWhenOneIsAddedMovedGoneOrRemoved(_ backend: Backend) async throws {
        try await withPodpingStore(backend) { repositories, store in
            let empty = try await store.subscriptionsMark()
            #expect(empty == SubscriptionsMark(count: 0, maxID: 0, gone: 0, moved: 0, urlLength: 0))
            let one = try await repositories.addSubscription(
                url: URL(string: "https://a.example/one.xml")!, title: nil, at: t0, backlog: nil)
            let two = try await repositories.addSubscription(
                url: URL(string: "https://a.example/two.xml")!, title: nil, at: t0, backlog: nil)
            var marks = [empty, try await store.subscriptionsMark()]
            #expect(marks[1].count == 2 && marks[1].maxID == two.id)
            // An episode stored, a check, a ping: the subscriptions' addresses stay the same, and so does the mark.
            _ = try await repositories.apply(fetched(one, at: t0, podping: nil))
            _ = try await store.recordPings(
                [FeedPing(subscriptionID: one.id, blockNumber: 1, blockTime: t0, reason: "update")],
                at: t0.addingTimeInterval(1), cooldown: 30)
            #expect(try await store.subscriptionsMark() == marks[1])
            _ = try await repositories.moveSubscription(id: one.id, to: URL(string: "https://b.example/one.xml")!)
            marks.append(try await store.subscriptionsMark())
            _ = try await repositories.apply(
                FeedCheck(subscriptionID: two.id, checkedAt: t0, status: 410, result: .gone(message: "HTTP 410")))
            marks.append(try await store.subscriptionsMark())
            _ = try await repositories.removeSubscription(id: two.id)
            marks.append(try await store.subscriptionsMark())
            #expect(Set(marks).count == marks.count, "every change gives another mark: \(marks)")
            #expect(marks[2].moved == 1 && marks[3].gone == 1 && marks[4].count == 1 && marks[4].maxID == one.id)

            // States read for named feeds only.
            #expect(try await store.podpingStates(subscriptionIDs: [one.id, two.id]).keys.sorted() == [one.id])
            #expect(try await store.podpingStates(subscriptionIDs: []).isEmpty)
        }
    }
}
