import FeedModels
import Foundation
import HTTPTransport
import NIOConcurrencyHelpers
import Podping
import PostgresStorage
import RefreshEngine
import TestSupport
import Testing

/// A fleet on one PostgreSQL database: the worker holding the cursor's lease reads the chain and marks feeds due in
/// the database; another worker's `refresh --podping` finds the lease held and reads nothing; once the reader stops,
/// the next worker takes over from the stored cursor.
@Suite(.serialized)
struct PodpingFleetTests {
    final class Events: Sendable {
        private let box = NIOLockedValueBox<[PodpingEvent]>([])
        func add(_ event: PodpingEvent) {
            box.withLockedValue { $0.append(event) }
        }
        var all: [PodpingEvent] { box.withLockedValue { $0 } }
    }

    @Test(.timeLimit(.minutes(2)))
    func oneWorkerReadsTheChainAndTheOthersFindTheFeedsItMarkedDue() async throws {
        let url = try await TestPostgres.shared().makeDatabase(prefix: "podping")
        try await withTestHTTPServer { server in
            let chain = FakeHiveChain(server: server)
            let node = chain.node("/hive")
            try await HTTPNetwork.withNetwork { network in
                try await PostgresFeedStore.withStore(url: url) { store in
                    let now = Date()
                    let feed = try await store.addSubscription(
                        url: URL(string: "https://feeds.example.org/fleet.xml")!, title: nil, at: now, backlog: nil)
                    _ = try await store.apply(
                        FeedCheck(
                            subscriptionID: feed.id, checkedAt: now.addingTimeInterval(-600), status: 304,
                            result: .notModified, nextCheckAt: now.addingTimeInterval(86_400)))
                    func watcher(_ name: String, _ events: Events) -> PodpingWatcher {
                        var reader = PodpingReaderConfiguration(nodes: [node])
                        reader.pollInterval = .milliseconds(200)
                        return PodpingWatcher(
                            settings: PodpingSettings(reader: reader, lease: 30, worker: name), network: network,
                            store: store, subscriptions: store, publish: events.add)
                    }
                    let aEvents = Events()
                    let reading = Task { await watcher("worker-a", aEvents).run(madeDue: {}) }
                    defer { reading.cancel() }
                    // Worker A takes the lease and starts at the head.
                    var holder: String?
                    for _ in 0..<100 where holder == nil {
                        if let cursor = try await store.podpingCursor(), cursor.block != nil { holder = cursor.holder }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    #expect(holder == "worker-a")

                    // Worker B's refresh --podping finds the lease held and reads nothing.
                    let bEvents = Events()
                    let caughtUp = try await watcher("worker-b", bEvents).catchUp()
                    #expect(caughtUp.unread)
                    #expect(
                        bEvents.all.contains {
                            if case .leaseHeldElsewhere(let worker, _) = $0 { worker == "worker-a" } else { false }
                        })

                    // A ping: worker A marks the feed due in the database, where every worker's claims find it.
                    chain.produce([[.podping([feed.url.absoluteString])]])
                    var due: [Int64] = []
                    for _ in 0..<100 where due.isEmpty {
                        due = try await store.dueSubscriptions(at: Date()).map(\.id)
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    #expect(due == [feed.id])
                    let claim = try await store.claimFeeds(
                        ClaimRequest(selection: .due, limit: 10, perHost: 2, worker: "worker-b", lease: .seconds(60)))
                    #expect(claim.claimed.map(\.subscription.id) == [feed.id])

                    // A stops and lets go; B takes over from the cursor A left.
                    reading.cancel()
                    _ = await reading.value
                    let left = try await store.podpingCursor()
                    #expect(left?.holder == nil)
                    chain.produce()
                    let takeover = try await watcher("worker-b", Events()).catchUp()
                    #expect(!takeover.unread)
                    #expect(takeover.blocks >= 1)
                    #expect(try await store.podpingCursor()?.block == chain.head)
                }
            }
        }
    }
}
