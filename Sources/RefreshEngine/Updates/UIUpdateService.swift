public import Foundation

extension Notification.Name {
    /// Every ``EngineEvent``, posted synchronously by ``UIUpdateService``: `userInfo["event"]` is the event and
    /// `userInfo["source"]` its ``EngineEvent/source`` (observers that want one part's events check it).
    public static let engineEvent = Notification.Name("podfresh.engineEvent")
}

/// Delivers the ``EventHub``'s events from the engine to whoever shows them, typed: a handler registers for one part's
/// events (``onFetch(_:)``, ``onDownload(_:)``, …) or for every event (``onEvery(_:)``). Handlers run in event order
/// and registration order, the primary channel; then each event is posted as an
/// ``Foundation/Notification/Name/engineEvent`` notification, synchronously, for any other observer.
///
/// ## Why this class is `@unchecked Sendable`
/// The handler registry is touched only inside `lock.withLock {}`; handlers are copied out before they are called,
/// so a handler may register another without deadlock. Delivery happens on the one task that ``attach(to:)`` starts.
public final class UIUpdateService: @unchecked Sendable {
    private typealias Handler = @Sendable (EngineEvent) -> Void

    private let lock = NSLock()
    private var handlers: [Handler] = []
    private var consumer: Task<Void, Never>?
    private let notificationCenter: NotificationCenter?

    /// - Parameter notificationCenter: Where notifications are posted; nil posts none.
    public init(notificationCenter: NotificationCenter? = .default) {
        self.notificationCenter = notificationCenter
    }

    /// Registers a handler for every event.
    public func onEvery(_ handler: @escaping @Sendable (EngineEvent) -> Void) {
        lock.withLock { handlers.append(handler) }
    }

    /// Registers a handler for the fetch events.
    public func onFetch(_ handler: @escaping @Sendable (DataFetchEvent) -> Void) {
        onEvery { if case .fetch(let event) = $0 { handler(event) } }
    }

    /// Registers a handler for the download events.
    public func onDownload(_ handler: @escaping @Sendable (DownloadEvent) -> Void) {
        onEvery { if case .download(let event) = $0 { handler(event) } }
    }

    /// Registers a handler for the podping reader's events.
    public func onPodping(_ handler: @escaping @Sendable (PodpingEvent) -> Void) {
        onEvery { if case .podping(let event) = $0 { handler(event) } }
    }

    /// Registers a handler for the sync's events.
    public func onSync(_ handler: @escaping @Sendable (SyncEvent) -> Void) {
        onEvery { if case .sync(let event) = $0 { handler(event) } }
    }

    /// Starts delivering the hub's events. Call ``drain()`` after ``EventHub/finish()`` to wait until every event
    /// was delivered.
    public func attach(to events: EventHub) {
        let stream = events.subscribe()
        let task = Task { [self] in
            for await event in stream { deliver(event) }
        }
        lock.withLock { consumer = task }
    }

    /// Waits until the attached stream has ended and every event was delivered.
    public func drain() async {
        let task = lock.withLock { consumer }
        await task?.value
    }

    /// Delivers one event now, on the calling task.
    public func deliver(_ event: EngineEvent) {
        for handler in lock.withLock({ handlers }) { handler(event) }
        notificationCenter?.post(
            name: .engineEvent, object: self, userInfo: ["event": event, "source": event.source])
    }
}
