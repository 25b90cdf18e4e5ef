import FeedModels
import Foundation
import Testing

@testable import RefreshEngine

/// The hub every event of a command goes through: each subscriber sees every event published after it subscribed, in
/// the one order, and `finish()` ends them all.
struct EventHubTests {
    func collect(_ stream: AsyncStream<EngineEvent>) -> Task<[EngineEvent], Never> {
        Task {
            var seen: [EngineEvent] = []
            for await event in stream { seen.append(event) }
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
        hub.publish(.queued(count: 3))
        hub.publish(.idle(nextCheck: nil))
        hub.finish()
        let expected: [EngineEvent] = [
            .fetch(.batchStarted(total: 2)), .fetch(.networkOffline(fetches: 2)), .download(.queued(count: 3)),
            .idle(nextCheck: nil),
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
        let events = await seen.value
        #expect(events.first == .fetch(.batchStarted(total: 1)))
        #expect(events.contains(.fetch(.fetchStarted(feed))))
        #expect(events.last == .idle(nextCheck: nil), "one order for both publishers")
    }

    @Test func eachPartsEventsAreWrappedInItsOwnCase() {
        let feed = FeedTarget(id: 1, url: URL(string: "https://a.example/feed.xml")!)
        let events: [EngineEvent] = [
            .fetch(.fetchStarted(feed)), .download(.queued(count: 1)), .podping(.startedAtHead(block: 1)),
            .sync(.started(server: "gpodder.example", first: true)), .idle(nextCheck: nil),
        ]
        #expect(events.map(\.source) == ["fetch", "download", "podping", "sync", "watch"])
    }
}
