import Foundation
public import Measures
import Synchronization

/// The separate limits on one HTTP transfer. Each one that is hit is named in the error it causes
/// (``TransferLimitExceeded``), so a user knows which wait was too long.
public struct TransferLimits: Sendable, Hashable {
    /// Looking the host name up.
    public var nameLookup: Duration
    /// Opening the connection (TCP and TLS) to one address.
    public var connect: Duration
    /// From the start of the request (connection included) to the response's head.
    public var firstByte: Duration
    /// No byte of the body for this long.
    public var stall: Duration
    /// The body's average rate over a window, once it flows; nil for none.
    public var minimumRate: MinimumRate?
    /// The whole transfer, from the first lookup to the last byte.
    public var total: Duration

    public init(
        nameLookup: Duration = .seconds(10), connect: Duration = .seconds(10), firstByte: Duration = .seconds(30),
        stall: Duration = .seconds(20), minimumRate: MinimumRate? = MinimumRate(), total: Duration = .seconds(60)
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.firstByte = firstByte
        self.stall = stall
        self.minimumRate = minimumRate
        self.total = total
    }
}

/// At least ``bytesPerSecond`` on average over every ``window`` of the body: a server that trickles a byte now and
/// then never stalls, but it fails this.
public struct MinimumRate: Sendable, Hashable {
    public var bytesPerSecond: Int
    public var window: Duration

    public init(bytesPerSecond: Int = 1_000, window: Duration = .seconds(30)) {
        self.bytesPerSecond = bytesPerSecond
        self.window = window
    }
}

/// Which limit a transfer hit.
public enum TransferLimit: String, Sendable, Hashable, Codable {
    case nameLookup = "name-lookup"
    case connect
    case firstByte = "first-byte"
    case stall
    case minimumRate = "minimum-rate"
    case total
}

/// A transfer went over one of its ``TransferLimits``.
public struct TransferLimitExceeded: Error, Sendable, Hashable {
    /// The limit hit.
    public var limit: TransferLimit
    /// The limits in force.
    public var limits: TransferLimits
    /// Body bytes received when it stopped.
    public var receivedBytes: Int64
    /// The body's length as announced, when it was.
    public var expectedBytes: Int64?

    public init(limit: TransferLimit, limits: TransferLimits, receivedBytes: Int64 = 0, expectedBytes: Int64? = nil) {
        self.limit = limit
        self.limits = limits
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
    }

    /// The value of the limit hit.
    public var duration: Duration {
        switch limit {
        case .nameLookup: limits.nameLookup
        case .connect: limits.connect
        case .firstByte: limits.firstByte
        case .stall: limits.stall
        case .minimumRate: limits.minimumRate?.window ?? limits.total
        case .total: limits.total
        }
    }
}

/// Where one transfer is, shared between the task doing it and its watchdog (``watch(limits:)``).
public final class TransferWatch: Sendable {
    private enum Phase {
        /// Looking up or connecting; the first-byte wait has not started.
        case starting
        /// The request is under way and no response head has come yet.
        case awaitingHead(since: AppClock.Instant)
        /// The head has come and the body waits for its reader (only the total limit applies).
        case headArrived
        /// The body flows.
        case body
    }

    private struct State {
        var started: AppClock.Instant
        var phase = Phase.starting
        var lastByte: AppClock.Instant
        var windowStart: AppClock.Instant
        var windowBytes: Int64 = 0
        var received: Int64 = 0
        var expected: Int64?
    }

    private let state: Mutex<State>
    /// The clock every limit is measured on, and the watchdog sleeps on.
    public let clock: AppClock

    /// A watch on `clock` whose total time counts from `start` (nil: now).
    public init(start: AppClock.Instant? = nil, clock: AppClock = .system) {
        let start = start ?? clock.now
        self.clock = clock
        state = Mutex(State(started: start, lastByte: start, windowStart: start))
    }

    /// A request is sent (a redirect or a retry sends another): the first-byte wait counts from now.
    public func requestStarted(at now: AppClock.Instant? = nil) {
        let now = now ?? clock.now
        state.withLock { $0.phase = .awaitingHead(since: now) }
    }

    /// The head has come, and the body will be read later (its reader is not ready yet): from now until
    /// ``bodyStarted(received:expected:at:)`` only the total limit applies.
    public func headArrived() {
        state.withLock { $0.phase = .headArrived }
    }

    /// The head has come: the body's stall and rate limits apply from now. `received` counts bytes already on hand
    /// (a resumed download's).
    public func bodyStarted(received: Int64 = 0, expected: Int64?, at now: AppClock.Instant? = nil) {
        let now = now ?? clock.now
        state.withLock {
            $0.phase = .body
            $0.lastByte = now
            $0.windowStart = now
            $0.windowBytes = 0
            $0.received = received
            $0.expected = expected
        }
    }

    /// `count` more body bytes arrived.
    public func received(_ count: Int, at now: AppClock.Instant? = nil) {
        let now = now ?? clock.now
        state.withLock {
            $0.lastByte = now
            $0.received += Int64(count)
            $0.windowBytes += Int64(count)
        }
    }

    /// Body bytes so far and the announced length.
    public var counts: (received: Int64, expected: Int64?) { state.withLock { ($0.received, $0.expected) } }

    /// Returns the limit that is over now, if any, and otherwise how long until one could be.
    func check(_ limits: TransferLimits, now: AppClock.Instant) -> Result<Duration, TransferLimitExceeded> {
        state.withLock { state in
            func over(_ limit: TransferLimit) -> Result<Duration, TransferLimitExceeded> {
                .failure(
                    TransferLimitExceeded(
                        limit: limit, limits: limits, receivedBytes: state.received, expectedBytes: state.expected))
            }
            var next = state.started + limits.total
            if now >= next { return over(.total) }
            switch state.phase {
            case .starting, .headArrived:
                break
            case .awaitingHead(let since):
                if now >= since + limits.firstByte { return over(.firstByte) }
                next = min(next, since + limits.firstByte)
            case .body:
                if now >= state.lastByte + limits.stall { return over(.stall) }
                next = min(next, state.lastByte + limits.stall)
                if let rate = limits.minimumRate {
                    let windowEnd = state.windowStart + rate.window
                    if now >= windowEnd {
                        let seconds =
                            Double(rate.window.components.seconds)
                            + Double(rate.window.components.attoseconds) / 1e18
                        if Double(state.windowBytes) < Double(rate.bytesPerSecond) * seconds {
                            return over(.minimumRate)
                        }
                        state.windowStart = now
                        state.windowBytes = 0
                        next = min(next, now + rate.window)
                    } else {
                        next = min(next, windowEnd)
                    }
                }
            }
            return .success(now.duration(to: next))
        }
    }

    /// Runs until a limit is over, then throws ``TransferLimitExceeded``; returns when the task is cancelled. Run it
    /// beside the transfer and cancel the transfer when it throws.
    public func watch(limits: TransferLimits) async throws {
        while !Task.isCancelled {
            switch check(limits, now: clock.now) {
            case .failure(let exceeded):
                throw exceeded
            case .success(let wait):
                // Phases change without waking the watchdog, so it looks again at least twice a second.
                let pause = min(max(wait, .milliseconds(10)), .milliseconds(500))
                do { try await clock.sleep(for: pause) } catch { return }
            }
        }
    }
}
