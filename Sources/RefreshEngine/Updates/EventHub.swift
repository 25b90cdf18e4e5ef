import Foundation

/// Where every ``EngineEvent`` of a command is published: the coordinator's fetch events, and those of downloads,
/// hooks, podping, sync and watch, in one total order. Each subscriber gets a stream of its own (an `AsyncStream`
/// is single-consumer); ``finish()`` ends them all once the command's work is done, so that their consumers finish
/// after the last event.
///
/// ## Why this class is `@unchecked Sendable`
/// `subscribers` is touched only inside `lock.withLock {}`. Events are yielded while the lock is held:
/// `AsyncStream.Continuation.yield` never suspends and never runs subscriber code (it only appends to the stream's
/// buffer), and yielding under the lock is what keeps every subscriber's view in the one order (progress never goes
/// backwards). The coordinator publishes while holding its own lock; the hub never calls out, so the two locks are
/// always taken in that order.
public final class EventHub: @unchecked Sendable {
    private let lock = NSLock()
    private var subscribers: [UUID: AsyncStream<EngineEvent>.Continuation] = [:]

    public init() {}

    /// A new subscription to every event published from now on, ended by ``finish()`` or when its consumer stops.
    public func subscribe() -> AsyncStream<EngineEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: EngineEvent.self, bufferingPolicy: .unbounded)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            self?.lock.withLock { _ = self?.subscribers.removeValue(forKey: id) }
        }
        lock.withLock { subscribers[id] = continuation }
        return stream
    }

    /// Publishes an event to every subscriber.
    public func publish(_ event: EngineEvent) {
        lock.withLock {
            for continuation in subscribers.values { continuation.yield(event) }
        }
    }

    /// Publishes a fetch event (``EngineEvent/fetch(_:)``).
    public func publish(_ event: DataFetchEvent) { publish(.fetch(event)) }

    /// Publishes a download event (``EngineEvent/download(_:)``).
    public func publish(_ event: DownloadEvent) { publish(.download(event)) }

    /// Publishes a podping event (``EngineEvent/podping(_:)``).
    public func publish(_ event: PodpingEvent) { publish(.podping(event)) }

    /// Publishes a sync event (``EngineEvent/sync(_:)``).
    public func publish(_ event: SyncEvent) { publish(.sync(event)) }

    /// Ends every subscriber's stream, so their consumers finish once they have seen every event.
    public func finish() {
        let all = lock.withLock {
            let all = Array(subscribers.values)
            subscribers.removeAll()
            return all
        }
        for continuation in all { continuation.finish() }
    }
}
