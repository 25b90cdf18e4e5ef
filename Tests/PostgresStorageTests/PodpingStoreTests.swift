import FeedModels
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
        _ backend: Backend, _ body: (any SpecifiedStore, any AsyncPodpingRepository) async throws -> Void
    ) async throws {
        try await backend.withStore { store in
            let podping = try #require(store as? any AsyncPodpingRepository)
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
                _ = try await repositories.applyAsync(
                    FeedCheck(
                        subscriptionID: feed.id, checkedAt: feed.id == fresh.id ? t0 : t0.addingTimeInterval(-3600),
                        status: 304, result: .notModified, nextCheckAt: t0.addingTimeInterval(86_400),
                        nextCheckReason: "cadence 1d"))
            }
            try await store.recordPodpingDeclaration(
                subscriptionID: checked.id, usesPodping: true, hiveAccounts: ["host.one", "host.two"])
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
}
