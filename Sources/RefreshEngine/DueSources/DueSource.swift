public import FeedModels

/// A source of "due now": something other than the schedule that makes feeds due, such as podping's notices (the
/// first), a sync server's subscription changes or WebSub. A source makes feeds due in the store (their next check
/// now, with its own ``reason``) and says what it does through its events; the engine refreshes those feeds the usual
/// way, so a source never touches a merge.
///
/// The composition root runs each source given on the command line: once before a one-shot refresh
/// (``readSinceLast()``), and beside `watch` for as long as it runs (``follow(madeDue:)``).
public protocol DueSource: Sendable {
    /// The reason of the next check of the feeds this source makes due (with `watch --interval`, such feeds are
    /// checked between cycles).
    var reason: ScheduleReason { get }

    /// Brings the store up to date with what the source said since it was last read, then returns. A source that
    /// cannot be reached says so in its events and returns: the refresh polls as always.
    ///
    /// - Throws: ``StoreError`` when the store fails.
    func readSinceLast() async throws

    /// Follows the source until the task is cancelled, calling `madeDue` whenever it made feeds due (so that `watch`
    /// wakes at once). Failures of the source or the store are waited out, never fatal.
    func follow(madeDue: @escaping @Sendable () -> Void) async
}

extension PodpingWatcher: DueSource {
    public var reason: ScheduleReason { .podping }

    public func readSinceLast() async throws {
        _ = try await catchUp()
    }

    public func follow(madeDue: @escaping @Sendable () -> Void) async {
        await run(madeDue: madeDue)
    }
}
