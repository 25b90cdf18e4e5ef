import FeedModels
import FeedStorage
import Foundation
import HTTPTransport
import Podping
import RefreshEngine
import Synchronization
import TestSupport
import Testing

/// A source of "due now" seen only through the ``DueSource`` protocol, as the composition root sees it: podping's
/// reader over a fake Hive node on loopback and a real SQLite store.
struct DueSourceTests {
    /// A subscription checked a minute ago and not due for a day, and a podping source over `chain`.
    func withPodpingSource(
        _ body: (any DueSource, FeedStore, Subscription, FakeHiveChain) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("due-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await FeedStore.open(path: folder.appendingPathComponent("due.sqlite").path)
        try await withTestHTTPServer { server in
            let chain = FakeHiveChain(server: server)
            try await HTTPNetwork.withNetwork { network in
                let now = Date()
                let feed = try await store.addSubscription(
                    url: URL(string: "https://feeds.example.org/show.xml")!, title: nil, at: now, backlog: nil)
                _ = try await store.apply(
                    FeedCheck(
                        subscriptionID: feed.id, checkedAt: now.addingTimeInterval(-60), status: 304,
                        result: .notModified, nextCheckAt: now.addingTimeInterval(86_400)))
                var reader = PodpingReaderConfiguration(nodes: [chain.node("/hive")])
                reader.pollInterval = .milliseconds(100)
                let source: any DueSource = PodpingWatcher(
                    settings: PodpingSettings(reader: reader, cooldown: 0, worker: "test"), network: network,
                    store: store, subscriptions: store, publish: { _ in })
                try await body(source, store, feed, chain)
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func readingSinceLastMakesTheFeedsANoticeNamesDueWithTheSourcesReason() async throws {
        try await withPodpingSource { source, store, feed, chain in
            #expect(source.reason == .podping)
            #expect(source.reason.isPushed)
            try await source.readSinceLast()  // the first read starts at the head
            #expect(try await store.dueSubscriptions(at: Date()).isEmpty)

            chain.produce([[.podping([feed.url.absoluteString])]])
            try await source.readSinceLast()
            let due = try await store.dueSubscriptions(at: Date())
            #expect(due.map(\.id) == [feed.id])
            #expect(due.first?.nextCheckReason == source.reason)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func followingWakesItsListenerWhenANoticeMakesAFeedDue() async throws {
        try await withPodpingSource { source, store, feed, chain in
            let woken = Mutex(0)
            let following = Task { await source.follow(madeDue: { woken.withLock { $0 += 1 } }) }
            defer { following.cancel() }
            // Once it holds the cursor, a ping on the chain is followed.
            for _ in 0..<100 where try await store.podpingCursor()?.block == nil {
                try await Task.sleep(for: .milliseconds(50))
            }
            chain.produce([[.podping([feed.url.absoluteString])]])
            for _ in 0..<200 where woken.withLock({ $0 }) == 0 {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(woken.withLock { $0 } >= 1)
            #expect(try await store.dueSubscriptions(at: Date()).map(\.id) == [feed.id])
            following.cancel()
            await following.value
        }
    }

    @Test
    func onlyAPushMakesAFeedDueOutsideItsSchedule() {
        #expect(ScheduleReason.podping.isPushed)
        for reason in [ScheduleReason.backoff(failures: 2), .retryAfter, .networkOffline, .gone, .complete] {
            #expect(!reason.isPushed, "\(reason)")
        }
    }
}
