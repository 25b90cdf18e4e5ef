import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
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

    func stored(_ id: String) -> EpisodeAnnouncement {
        EpisodeAnnouncement(feedID: 1, episode: ParsedEpisode(id: id, title: id))
    }

    @Test func handlersReceiveOnlyTheTypeTheyRegisteredFor() {
        let service = UIUpdateService(notificationCenter: nil)
        let refreshed = Collector<PodcastRefreshed>()
        let failures = Collector<RefreshFailed>()
        service.register(for: PodcastRefreshed.self) { refreshed.append($0) }
        service.register(for: RefreshFailed.self) { failures.append($0) }
        service.deliver(.fetchCompleted(RefreshOutcome(feed: feed, result: .notModified)))
        let failure = RefreshFailure(kind: .fetch(.httpStatus), message: "HTTP 404", status: 404)
        service.deliver(.fetchFailed(RefreshOutcome(feed: feed, result: .failed(failure))))
        #expect(refreshed.values.map(\.outcome.result) == [.notModified])
        #expect(failures.values.map(\.failure) == [failure])
    }

    @Test func aRefreshWithNewEpisodesBecomesOneUpdatePerEpisode() {
        let outcome = RefreshOutcome(
            feed: feed, result: .updated(newEpisodes: [stored("e1"), stored("e2")], updatedCount: 0))
        let updates = UIUpdateService.updates(for: .fetchCompleted(outcome))
        #expect(updates.count == 3)
        #expect(updates.first is PodcastRefreshed)
        #expect(updates.compactMap { ($0 as? NewEpisodeFound)?.episode.key } == ["e1", "e2"])
    }

    @Test func notificationsArePostedSynchronouslyWithTheTypedUpdate() {
        let center = NotificationCenter()
        let service = UIUpdateService(notificationCenter: center)
        let seen = Collector<String>()
        let token = center.addObserver(forName: .refreshFailed, object: nil, queue: nil) { note in
            if let update = note.userInfo?["update"] as? RefreshFailed { seen.append(update.failure.message) }
        }
        defer { center.removeObserver(token) }
        service.deliver(
            .fetchFailed(
                RefreshOutcome(
                    feed: feed, result: .failed(RefreshFailure(kind: .fetch(.timeout), message: "timed out")))))
        #expect(seen.values == ["timed out"])
    }

    @Test(.timeLimit(.minutes(1)))
    func attachedServiceDeliversEveryCoordinatorEventBeforeDrainReturns() async {
        let coordinator = DataFetchCoordinator(maxConcurrent: 2)
        let service = UIUpdateService(notificationCenter: nil)
        let refreshed = Collector<Int64>()
        service.register(for: PodcastRefreshed.self) { refreshed.append($0.outcome.feed.id) }
        service.attach(to: coordinator)
        let targets = (1...10).map { FeedTarget(id: Int64($0), url: URL(string: "https://h\($0).example/")!) }
        _ = await coordinator.run(targets) { RefreshOutcome(feed: $0, result: .notModified) }
        coordinator.finishSubscribers()
        await service.drain()
        #expect(Set(refreshed.values) == Set(1...10))
    }
}
