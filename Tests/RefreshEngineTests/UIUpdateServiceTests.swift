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

    @Test func handlersReceiveOnlyTheKindsTheyRegisteredFor() {
        let service = UIUpdateService(notificationCenter: nil)
        let completed = Collector<DataFetchEvent>()
        let failures = Collector<DataFetchEvent>()
        let everything = Collector<DataFetchEvent.Kind>()
        service.register(for: .fetchCompleted) { completed.append($0) }
        service.register(for: .fetchFailed, .networkOffline) { failures.append($0) }
        service.registerForEveryEvent { everything.append($0.kind) }
        let unchanged = RefreshOutcome(feed: feed, result: .notModified)
        service.deliver(.fetchStarted(feed))
        service.deliver(.fetchCompleted(unchanged))
        let failure = RefreshFailure(
            .fetch(FeedFetchError(.httpStatus(404, reasonPhrase: "Not Found", retryAfter: nil))))
        let failed = RefreshOutcome(feed: feed, result: .failed(failure))
        service.deliver(.fetchFailed(failed))
        #expect(completed.values == [.fetchCompleted(unchanged)])
        #expect(failures.values == [.fetchFailed(failed)])
        #expect(everything.values == [.fetchStarted, .fetchCompleted, .fetchFailed])
    }

    @Test func handlersRunInRegistrationOrder() {
        let service = UIUpdateService(notificationCenter: nil)
        let order = Collector<String>()
        service.register(for: .batchStarted) { _ in order.append("first") }
        service.registerForEveryEvent { _ in order.append("second") }
        service.register(for: .batchStarted, .batchCompleted) { _ in order.append("third") }
        service.deliver(.batchStarted(total: 1))
        #expect(order.values == ["first", "second", "third"])
    }

    @Test func everyEventHasItsOwnKind() {
        let events: [DataFetchEvent] = [
            .batchStarted(total: 0), .fetchStarted(feed), .fetchCancelled(feed), .networkOffline(fetches: 1),
            .idle(nextCheck: nil), .downloadsQueued(count: 1),
        ]
        #expect(
            events.map(\.kind) == [
                .batchStarted, .fetchStarted, .fetchCancelled, .networkOffline, .idle, .downloadsQueued,
            ])
        #expect(Set(DataFetchEvent.Kind.allCases.map(\.rawValue)).count == DataFetchEvent.Kind.allCases.count)
    }

    @Test func notificationsArePostedSynchronouslyWithTheEvent() {
        let center = NotificationCenter()
        let service = UIUpdateService(notificationCenter: center)
        let seen = Collector<String>()
        let token = center.addObserver(forName: .dataFetchEvent, object: nil, queue: nil) { note in
            guard note.userInfo?["kind"] as? String == DataFetchEvent.Kind.fetchFailed.rawValue,
                case .fetchFailed(let outcome) = note.userInfo?["event"] as? DataFetchEvent
            else { return }
            seen.append(outcome.failure?.kind.rawValue ?? "")
        }
        defer { center.removeObserver(token) }
        service.deliver(.fetchStarted(feed))
        service.deliver(
            .fetchFailed(
                RefreshOutcome(
                    feed: feed,
                    result: .failed(RefreshFailure(.fetch(FeedFetchError(.transport(.timedOut(after: .seconds(60))))))))
            ))
        #expect(seen.values == ["timeout"])
    }

    @Test(.timeLimit(.minutes(1)))
    func attachedServiceDeliversEveryCoordinatorEventBeforeDrainReturns() async {
        let coordinator = DataFetchCoordinator(maxConcurrent: 2)
        let service = UIUpdateService(notificationCenter: nil)
        let refreshed = Collector<Int64>()
        service.register(for: .fetchCompleted) { event in
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
