public import Foundation

extension Notification.Name {
    /// Every ``DataFetchEvent``, posted synchronously by ``UIUpdateService``: `userInfo["event"]` is the event and
    /// `userInfo["kind"]` its ``DataFetchEvent/Kind`` (observers that want a few kinds check it).
    public static let dataFetchEvent = Notification.Name("podfresh.dataFetchEvent")
}

/// Delivers the ``EventHub``'s ``DataFetchEvent``s, one vocabulary from the engine to the renderer: first to the
/// handlers registered for the event's ``DataFetchEvent/Kind`` (or for every event), the primary channel, in event
/// order and registration order; then as a ``Foundation/Notification/Name/dataFetchEvent`` notification posted
/// synchronously for any other observer.
///
/// ## Why this class is `@unchecked Sendable`
/// The handler registry is touched only inside `lock.withLock {}`; handlers are copied out before they are called,
/// so a handler may register another without deadlock. Delivery happens on the one task that ``attach(to:)`` starts.
public final class UIUpdateService: @unchecked Sendable {
    /// One registration: the kinds it wants (nil: every event) and its handler.
    private struct Registration {
        var kinds: Set<DataFetchEvent.Kind>?
        var handler: @Sendable (DataFetchEvent) -> Void
    }

    private let lock = NSLock()
    private var registrations: [Registration] = []
    private var consumer: Task<Void, Never>?
    private let notificationCenter: NotificationCenter?

    /// - Parameter notificationCenter: Where notifications are posted; nil posts none.
    public init(notificationCenter: NotificationCenter? = .default) {
        self.notificationCenter = notificationCenter
    }

    /// Registers a handler for the events of the given kinds. Handlers run in registration order, one event at a time.
    public func register(
        for kinds: DataFetchEvent.Kind..., handler: @escaping @Sendable (DataFetchEvent) -> Void
    ) {
        lock.withLock { registrations.append(Registration(kinds: Set(kinds), handler: handler)) }
    }

    /// Registers a handler for every event. Handlers run in registration order, one event at a time.
    public func registerForEveryEvent(handler: @escaping @Sendable (DataFetchEvent) -> Void) {
        lock.withLock { registrations.append(Registration(kinds: nil, handler: handler)) }
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
    public func deliver(_ event: DataFetchEvent) {
        let kind = event.kind
        let handlers = lock.withLock {
            registrations.filter { $0.kinds?.contains(kind) ?? true }.map(\.handler)
        }
        for handler in handlers { handler(event) }
        notificationCenter?.post(
            name: .dataFetchEvent, object: self, userInfo: ["event": event, "kind": kind.rawValue])
    }
}
