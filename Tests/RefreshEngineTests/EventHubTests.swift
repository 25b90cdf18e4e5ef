import FeedModels
import Foundation
import Testing

@testable import RefreshEngine

/// The hub every event of a command goes through: each subscriber sees every event published after it subscribed, in
/// the one order, and `finish()` ends them all.
struct EventHubTests {
    func collect(_ stream: AsyncStream<DataFetchEvent>) -> Task<[String], Never> {
        Task {
            var seen: [String] = []
            for await event in stream { seen.append(event.kind.rawValue) }
            return seen
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func everySubscriberSeesEveryEventInOrderUntilTheHubFinishes() async {
        let hub = EventHub()
        hub.publish(.idle(nextCheck: nil))  // before anyone listens: seen by nobody
        let first = collect(hub.subscribe())
        let second = collect(hub.subscribe())
        hub.publish(.batchStarted(total: 2))
        hub.publish(.networkOffline(fetches: 2))
        hub.publish(.idle(nextCheck: nil))
        hub.finish()
        let expected = [
            DataFetchEvent.batchStarted(total: 2).kind.rawValue,
            DataFetchEvent.networkOffline(fetches: 2).kind.rawValue,
            DataFetchEvent.idle(nextCheck: nil).kind.rawValue,
        ]
        #expect(await first.value == expected)
        #expect(await second.value == expected)
    }

    @Test(.timeLimit(.minutes(1)))
    func theCoordinatorPublishesItsFetchEventsToTheHubItWasGiven() async {
        let hub = EventHub()
        let coordinator = DataFetchCoordinator(maxConcurrent: 2, events: hub)
        let seen = collect(hub.subscribe())
        let feed = FeedTarget(id: 1, url: URL(string: "https://a.example/feed.xml")!)
        _ = await coordinator.run([feed]) { RefreshOutcome(feed: $0, result: .notModified) }
        hub.publish(.idle(nextCheck: nil))
        hub.finish()
        let kinds = await seen.value
        #expect(kinds.first == DataFetchEvent.batchStarted(total: 1).kind.rawValue)
        #expect(kinds.contains(DataFetchEvent.fetchStarted(feed).kind.rawValue))
        #expect(kinds.last == DataFetchEvent.idle(nextCheck: nil).kind.rawValue, "one order for both publishers")
    }
}
