public import Foundation

/// Turns ``DataFetchEvent``s into typed ``UIUpdate``s: first to the handlers registered for each update type (the
/// primary channel, in event order), then as `NotificationCenter` notifications posted synchronously for any other
/// observer.
///
/// ## Why this class is `@unchecked Sendable`
/// The handler registry is touched only inside `lock.withLock {}`; handlers are copied out before they are called,
/// so a handler may register another without deadlock. Delivery happens on the one task that ``attach(to:)`` starts.
public final class UIUpdateService: @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [ObjectIdentifier: [@Sendable (any UIUpdate) -> Void]] = [:]
    private var consumer: Task<Void, Never>?
    private let notificationCenter: NotificationCenter?

    /// - Parameter notificationCenter: Where notifications are posted; nil posts none.
    public init(notificationCenter: NotificationCenter? = .default) {
        self.notificationCenter = notificationCenter
    }

    /// Registers a handler for one update type. Handlers run in registration order, one update at a time.
    public func register<Update: UIUpdate>(for type: Update.Type, handler: @escaping @Sendable (Update) -> Void) {
        lock.withLock {
            handlers[ObjectIdentifier(type), default: []].append { update in
                if let update = update as? Update { handler(update) }
            }
        }
    }

    /// Starts delivering the coordinator's events. Call ``drain()`` after the coordinator finished its subscribers
    /// to wait until every event was delivered.
    public func attach(to coordinator: DataFetchCoordinator) {
        let stream = coordinator.events()
        let task = Task { [self] in
            for await event in stream { deliver(event) }
        }
        lock.withLock { consumer = task }
    }

    /// Waits until the attached stream has ended and every update was delivered.
    public func drain() async {
        let task = lock.withLock { consumer }
        await task?.value
    }

    /// Delivers one event now, on the calling task.
    public func deliver(_ event: DataFetchEvent) {
        for update in Self.updates(for: event) { dispatch(update) }
    }

    /// The typed updates one event becomes, in delivery order.
    public static func updates(for event: DataFetchEvent) -> [any UIUpdate] {
        switch event {
        case .batchStarted(let total):
            return [BatchStarted(total: total)]
        case .fetchStarted(let feed):
            return [FeedRefreshStarted(feed: feed)]
        case .fetchCompleted(let outcome):
            var updates: [any UIUpdate] = [PodcastRefreshed(outcome: outcome)]
            for episode in outcome.newEpisodes {
                updates.append(NewEpisodeFound(feed: outcome.feed, episode: episode))
            }
            return updates
        case .fetchFailed(let outcome):
            guard case .failed(let failure) = outcome.result else { return [PodcastRefreshed(outcome: outcome)] }
            return [RefreshFailed(outcome: outcome, failure: failure)]
        case .fetchCancelled(let feed):
            return [RefreshCancelled(feed: feed)]
        case .batchProgress(let progress):
            return [BatchProgressed(progress: progress)]
        case .networkOffline(let message):
            return [NetworkWentOffline(message: message)]
        case .failuresConfirmed(let outcomes):
            let failed = outcomes.compactMap { outcome in
                outcome.failure.map { RefreshFailed(outcome: outcome, failure: $0) }
            }
            return [FailuresConfirmed(failed: failed)]
        case .batchCompleted(let summary):
            return [BatchFinished(summary: summary)]
        case .hookFailed(let feed, let message):
            return [HookFailed(feed: feed, message: message)]
        case .idle(let next):
            return [WatchIdle(nextCheck: next)]
        case .downloadsQueued(let count):
            return [EpisodeDownloadsQueued(count: count)]
        case .downloadStarted(let target):
            return [EpisodeDownloadStarted(target: target)]
        case .downloadProgressed(let report):
            return [EpisodeDownloadProgressed(report: report)]
        case .downloadCompleted(let outcome):
            return [EpisodeDownloaded(outcome: outcome)]
        case .downloadFailed(let outcome):
            guard let failure = outcome.failure else { return [EpisodeDownloaded(outcome: outcome)] }
            return [EpisodeDownloadFailed(outcome: outcome, failure: failure)]
        case .downloadRemoved(let removal):
            return [EpisodeFileRemoved(removal: removal)]
        case .downloadSkipped(let target, let reason):
            return [EpisodeDownloadSkipped(target: target, reason: reason)]
        case .downloadProblem(let feed, let message):
            return [DownloadProblem(feed: feed, message: message)]
        case .downloadsFinished(let summary):
            return [DownloadsFinished(summary: summary)]
        }
    }

    private func dispatch(_ update: any UIUpdate) {
        let type = type(of: update)
        let registered = lock.withLock { handlers[ObjectIdentifier(type)] ?? [] }
        for handler in registered { handler(update) }
        notificationCenter?.post(name: type.notificationName, object: nil, userInfo: ["update": update])
    }
}
