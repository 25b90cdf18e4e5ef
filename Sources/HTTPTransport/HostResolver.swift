import Foundation
public import Measures

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves host names for every request of a process: concurrently, once per name, and from a cache that remembers
/// failures too.
///
/// - Every name resolves on its own thread (``BlockingNameLookup``), so lookups run side by side and a name that
///   never answers delays nobody else.
/// - Callers asking for a name already being looked up wait for that one lookup; a lookup that takes longer than
///   ``Policy/lookupTimeout`` fails its waiters then, and the failure is remembered (the lookup itself runs on and
///   its answer, when it comes, replaces the failure).
/// - Answers are kept for ``Policy/keepAnswers`` and failures for ``Policy/keepFailures`` (`getaddrinfo` does not
///   say a record's TTL, so the time is bounded instead), which makes a `watch` resolve each name about once per
///   cycle at most.
///
/// ## Why this class is `@unchecked Sendable`
/// Its mutable state (`entries`, the counters) is touched only inside `lock.withLock {}`; continuations and timers
/// are resumed and started outside the lock.
public final class HostResolver: @unchecked Sendable {
    /// How long lookups may take and answers are kept.
    public struct Policy: Sendable {
        /// A lookup that has not answered by then fails its callers.
        public var lookupTimeout: Duration
        /// How long a name's addresses are reused.
        public var keepAnswers: Duration
        /// How long a failed lookup is remembered (a name that does not exist is not asked again at once).
        public var keepFailures: Duration

        public init(
            lookupTimeout: Duration = .seconds(10), keepAnswers: Duration = .seconds(300),
            keepFailures: Duration = .seconds(60)
        ) {
            self.lookupTimeout = lookupTimeout
            self.keepAnswers = keepAnswers
            self.keepFailures = keepFailures
        }
    }

    /// What a resolver has done so far.
    public struct Statistics: Sendable, Equatable {
        /// Lookups started (cache misses).
        public var lookups = 0
        /// Answers served from the cache or from a lookup already running.
        public var shared = 0
        /// The most lookups running at the same time.
        public var mostInFlight = 0
        /// Lookups running now.
        public var inFlight = 0
    }

    private typealias Answer = Result<[ResolvedAddress], NameLookupError>

    private struct Waiter {
        let continuation: CheckedContinuation<[ResolvedAddress], any Error>
    }

    private enum Entry {
        case resolving(waiters: [UUID: Waiter])
        case answered(Answer, expires: AppClock.Instant)
    }

    public let policy: Policy
    private let clock: AppClock
    private let lookUp: @Sendable (String, @escaping @Sendable (Answer) -> Void) -> Void
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var stats = Statistics()

    /// A resolver over the system's `getaddrinfo`.
    public convenience init(policy: Policy = Policy(), clock: AppClock = .system) {
        self.init(policy: policy, clock: clock) { host, done in BlockingNameLookup.lookUp(host, completion: done) }
    }

    /// A resolver over another lookup function (tests force faults with it).
    init(
        policy: Policy,
        clock: AppClock = .system,
        lookUp:
            @escaping @Sendable (String, @escaping @Sendable (Result<[ResolvedAddress], NameLookupError>) -> Void)
            -> Void
    ) {
        self.policy = policy
        self.clock = clock
        self.lookUp = lookUp
    }

    /// The counters so far.
    public var statistics: Statistics { lock.withLock { stats } }

    /// The addresses of `host`, best first. An IP address is returned as it is.
    ///
    /// - Throws: ``NameLookupError``, or `CancellationError` when the calling task is cancelled while it waits.
    public func addresses(for host: String) async throws -> [ResolvedAddress] {
        if let literal = Self.ipLiteral(host) { return [literal] }
        let key = host.lowercased()
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enum Next {
                    case answer(Answer)
                    case wait
                    case start
                }
                let next: Next = lock.withLock {
                    if case .answered(let answer, let expires)? = entries[key], clock.now < expires {
                        stats.shared += 1
                        return .answer(answer)
                    }
                    if case .resolving(var waiters)? = entries[key] {
                        stats.shared += 1
                        waiters[id] = Waiter(continuation: continuation)
                        entries[key] = .resolving(waiters: waiters)
                        return .wait
                    }
                    entries[key] = .resolving(waiters: [id: Waiter(continuation: continuation)])
                    stats.lookups += 1
                    stats.inFlight += 1
                    stats.mostInFlight = max(stats.mostInFlight, stats.inFlight)
                    return .start
                }
                switch next {
                case .answer(let answer):
                    continuation.resume(with: answer.mapError { $0 as any Error })
                case .wait:
                    break
                case .start:
                    start(key, host: host)
                }
            }
        } onCancel: {
            let waiter: Waiter? = lock.withLock {
                guard case .resolving(var waiters)? = entries[key], let waiter = waiters.removeValue(forKey: id) else {
                    return nil
                }
                entries[key] = .resolving(waiters: waiters)
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func start(_ key: String, host: String) {
        let timeout = policy.lookupTimeout
        let clock = clock
        let timer = Task { [weak self] in
            try await clock.sleep(for: timeout)
            self?.finish(key, with: .failure(NameLookupError(kind: .timedOut(timeout), host: host)), final: false)
        }
        lookUp(host) { [weak self] answer in
            timer.cancel()
            self?.finish(key, with: answer, final: true)
        }
    }

    /// Hands `answer` to the waiters of `key` and remembers it. `final` is false for a timeout: the lookup still runs
    /// and its own answer, when it comes, replaces the remembered failure (it then finds no waiters).
    private func finish(_ key: String, with answer: Answer, final: Bool) {
        let waiters: [Waiter] = lock.withLock {
            if final { stats.inFlight -= 1 }
            let keep: Duration
            switch answer {
            case .success: keep = policy.keepAnswers
            case .failure: keep = policy.keepFailures
            }
            var waiting: [Waiter] = []
            if case .resolving(let waiters)? = entries[key] {
                waiting = Array(waiters.values)
                entries[key] = .answered(answer, expires: clock.now + keep)
            } else if final {
                entries[key] = .answered(answer, expires: clock.now + keep)
            }
            return waiting
        }
        for waiter in waiters { waiter.continuation.resume(with: answer.mapError { $0 as any Error }) }
    }

    /// An IPv4 or IPv6 literal (brackets allowed), or nil for a name.
    static func ipLiteral(_ host: String) -> ResolvedAddress? {
        var text = host
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return ResolvedAddress(ip: text, isIPv6: false) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return ResolvedAddress(ip: text, isIPv6: true) }
        return nil
    }
}
