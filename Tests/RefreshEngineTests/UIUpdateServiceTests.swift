import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import HTTPTransport
import RefreshEngine
import Testing

/// Collects values handed to it from handlers.
final class Collector<Value: Sendable>: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var storage: [Value] = []
    func append(_ value: Value) { lock.withLock { storage.append(value) } }
    var values: [Value] { lock.withLock { storage } }
}

struct UIUpdateServiceTests {
    let feed = FeedTarget(id: 1, url: URL(string: "https://a.example/feed")!, title: "A")
    var target: DownloadTarget {
        DownloadTarget(
            feed: feed, episodeKey: "e1", title: "E1", url: URL(string: "https://cdn.example/e1.mp3")!,
            file: "/tmp/e1.mp3")
    }

    @Test func eachHandlerReceivesOnlyThePartItRegisteredFor() {
        let service = UIUpdateService(notificationCenter: nil)
        let fetches = Collector<DataFetchEvent>()
        let downloads = Collector<DownloadEvent>()
        let syncs = Collector<SyncEvent>()
        let podpings = Collector<PodpingEvent>()
        let everything = Collector<String>()
        service.onFetch { fetches.append($0) }
        service.onDownload { downloads.append($0) }
        service.onSync { syncs.append($0) }
        service.onPodping { podpings.append($0) }
        service.onEvery { everything.append($0.source) }
        let unchanged = RefreshOutcome(feed: feed, result: .notModified)
        service.deliver(.fetch(.fetchStarted(feed)))
        service.deliver(.download(.started(target)))
        service.deliver(.fetch(.fetchCompleted(unchanged)))
        service.deliver(.sync(.started(server: "gpodder.example", first: false)))
        service.deliver(.idle(nextCheck: nil))
        #expect(fetches.values == [.fetchStarted(feed), .fetchCompleted(unchanged)])
        #expect(downloads.values == [.started(target)])
        #expect(syncs.values == [.started(server: "gpodder.example", first: false)])
        #expect(podpings.values.isEmpty)
        #expect(everything.values == ["fetch", "download", "fetch", "sync", "watch"])
    }

    @Test func handlersRunInRegistrationOrder() {
        let service = UIUpdateService(notificationCenter: nil)
        let order = Collector<String>()
        service.onFetch { _ in order.append("first") }
        service.onEvery { _ in order.append("second") }
        service.onDownload { _ in order.append("not a download") }
        service.onFetch { _ in order.append("third") }
        service.deliver(.fetch(.batchStarted(total: 1)))
        #expect(order.values == ["first", "second", "third"])
    }

    @Test func notificationsArePostedSynchronouslyWithTheEvent() {
        let center = NotificationCenter()
        let service = UIUpdateService(notificationCenter: center)
        let seen = Collector<String>()
        let token = center.addObserver(forName: .engineEvent, object: nil, queue: nil) { note in
            guard note.userInfo?["source"] as? String == "fetch",
                case .fetch(.fetchFailed(let outcome)) = note.userInfo?["event"] as? EngineEvent
            else { return }
            seen.append(outcome.failure?.kind.rawValue ?? "")
        }
        defer { center.removeObserver(token) }
        service.deliver(.fetch(.fetchStarted(feed)))
        service.deliver(.download(.queued(count: 1)))
        service.deliver(
            .fetch(
                .fetchFailed(
                    RefreshOutcome(
                        feed: feed,
                        result: .failed(
                            RefreshFailure(.fetch(FeedFetchError(.transport(.timedOut(after: .seconds(60)))))))))))
        #expect(seen.values == ["timeout"])
    }

    @Test(.timeLimit(.minutes(1)))
    func attachedServiceDeliversEveryCoordinatorEventBeforeDrainReturns() async {
        let coordinator = DataFetchCoordinator(maxConcurrent: 2)
        let service = UIUpdateService(notificationCenter: nil)
        let refreshed = Collector<Int64>()
        service.onFetch { event in
            if case .fetchCompleted(let outcome) = event { refreshed.append(outcome.feed.id) }
        }
        service.attach(to: coordinator.events)
        let targets = (1...10).map { FeedTarget(id: Int64($0), url: URL(string: "https://h\($0).example/")!) }
        _ = await coordinator.run(targets) { RefreshOutcome(feed: $0, result: .notModified) }
        coordinator.events.finish()
        await service.drain()
        #expect(Set(refreshed.values) == Set(1...10))
    }
}
