public import Foundation
import Synchronization

/// The clock everything in podfresh reads that waits, times out, schedules or stamps.
///
/// It is a `Clock` of its own (with a concrete, storable `Instant`) over one of two sources:
/// - ``system``: the machine's monotonic clock for waits and durations, and its wall clock for dates;
/// - ``manual(_:)``: a ``ManualClock`` that moves only when a test advances it, so a test of a timeout asserts on the
///   order of events and on elapsed clock time, not on how busy the machine was.
///
/// Code takes an `AppClock` where it would have read `ContinuousClock.now`, called `Task.sleep` or `Date()`.
public struct AppClock: Clock, Sendable {
    /// A point on the clock: the time since the clock's origin.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since the clock's origin.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public static func + (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: rhs) }
        public static func - (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: .zero - rhs) }
        public static func - (lhs: Instant, rhs: Instant) -> Duration { rhs.duration(to: lhs) }
    }

    private enum Source: Sendable {
        case system(origin: ContinuousClock.Instant)
        case manual(ManualClock)
    }

    private let source: Source
    /// Added to every date (a store whose clock differs from this machine's dates by its own).
    private var dateOffset: TimeInterval = 0

    /// The machine's clocks: monotonic for waits, wall time for dates.
    public static let system = AppClock(source: .system(origin: .now))

    /// A clock that moves only when `clock` is advanced.
    public static func manual(_ clock: ManualClock) -> AppClock { AppClock(source: .manual(clock)) }

    private init(source: Source) { self.source = source }

    /// This clock with dates `seconds` later (waits and durations unchanged): the clock of a store whose time differs
    /// from this machine's.
    public func shifted(by seconds: TimeInterval) -> AppClock {
        var shifted = self
        shifted.dateOffset += seconds
        return shifted
    }

    public var now: Instant {
        switch source {
        case .system(let origin): Instant(offset: origin.duration(to: .now))
        case .manual(let clock): Instant(offset: clock.offset)
        }
    }

    public var minimumResolution: Duration {
        switch source {
        case .system: ContinuousClock().minimumResolution
        case .manual: .zero
        }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        switch source {
        case .system(let origin):
            try await ContinuousClock().sleep(until: origin.advanced(by: deadline.offset), tolerance: tolerance)
        case .manual(let clock):
            try await clock.sleep(until: deadline.offset)
        }
    }

    /// The wall-clock date now (what `Date()` would say; a manual clock's start date plus its elapsed time).
    public var date: Date {
        switch source {
        case .system: Date().addingTimeInterval(dateOffset)
        case .manual(let clock): clock.date.addingTimeInterval(dateOffset)
        }
    }

    /// True for the machine's clocks (code that must also wait on something outside its reach, such as a child
    /// process, may poll it differently).
    public var isSystem: Bool {
        if case .system = source { return true }
        return false
    }
}

/// A clock that stands still until ``advance(by:)`` moves it: sleepers wake in the order of their deadlines, each
/// when the clock reaches it. Tests inject it through ``AppClock/manual(_:)``.
///
/// A test advances the clock once the code under test is waiting: ``waitForSleepers(_:)`` waits (in real time,
/// briefly) until that many sleeps are pending.
public final class ManualClock: Sendable {
    private struct Sleeper {
        let deadline: Duration
        let order: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var offset: Duration = .zero
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    private let startDate: Date

    /// A clock at offset zero whose wall-clock date is `date`.
    public init(date: Date = Date()) { self.startDate = date }

    /// The time since the clock was made.
    public var offset: Duration { state.withLock { $0.offset } }

    /// The start date plus the time advanced.
    public var date: Date {
        let parts = offset.components
        return startDate.addingTimeInterval(Double(parts.seconds) + Double(parts.attoseconds) / 1e18)
    }

    /// How many sleeps are waiting for the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline a sleeper waits for, as time from now, or nil when nobody sleeps.
    public var nextWake: Duration? {
        state.withLock { state in state.sleepers.values.map(\.deadline).min().map { $0 - state.offset } }
    }

    func sleep(until deadline: Duration) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let wakeNow: Bool = state.withLock { state in
                    if Task.isCancelled || deadline <= state.offset { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, order: id, continuation: continuation)
                    return false
                }
                if wakeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration`, waking each sleeper whose deadline it passes, earliest first, and
    /// giving the woken tasks a moment to act (and perhaps sleep again) before a later deadline fires.
    public func advance(by duration: Duration) async {
        let target = offset + duration
        while true {
            let due: [Sleeper] = state.withLock { state in
                guard let next = state.sleepers.values.map(\.deadline).min(), next <= target else {
                    state.offset = max(state.offset, target)
                    return []
                }
                state.offset = max(state.offset, next)
                let woken = state.sleepers.values.filter { $0.deadline <= next }.sorted { $0.order < $1.order }
                for sleeper in woken { state.sleepers.removeValue(forKey: sleeper.order) }
                return woken
            }
            if due.isEmpty { break }
            for sleeper in due { sleeper.continuation.resume() }
            await Self.settle()
        }
        await Self.settle()
    }

    /// Waits, in real time, until at least `count` sleeps are pending; false if that has not happened within
    /// `limit`.
    @discardableResult
    public func waitForSleepers(_ count: Int, within limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while sleeperCount < count {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    /// Lets tasks that were just woken run before the clock moves again.
    private static func settle() async {
        for _ in 0..<20 { await Task.yield() }
    }
}
