import Foundation
import Synchronization

/// Whether the process can still write its output, and what broke it.
///
/// The first write to standard output that fails (a closed pipe, a full disk, an I/O error), or a write to standard
/// error whose reader went away, breaks the output for good: from then on nothing more is written to either stream,
/// and whoever waits in ``broken()`` hears of it once (a refresh, watch or download then stops as on SIGTERM). A
/// standard error that fails in another way (full, an I/O error) is not an error of its own: only standard error
/// falls silent.
public final class StandardOutputHealth: Sendable {
    /// The process's own standard output and standard error.
    public static let shared = StandardOutputHealth()

    /// Which standard stream a write went to.
    public enum Stream: Sendable {
        case output
        case error
    }

    private struct State {
        var failure: OutputFailure?
        var errorStreamFailure: OutputFailure?
        var waiters: [Int: AsyncStream<OutputFailure>.Continuation] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// A fresh record, for tests; the process uses ``shared``.
    public init() {}

    /// The failure that broke the output, nil while it is intact.
    public var failure: OutputFailure? { state.withLock { $0.failure } }

    /// Why a write to `stream` is not even tried any more, nil when it may be.
    func refusal(for stream: Stream) -> OutputFailure? {
        state.withLock { state in
            if let failure = state.failure { return failure }
            return stream == .error ? state.errorStreamFailure : nil
        }
    }

    /// Records a failed write to `stream`; the first one that breaks the output is told to every waiter.
    public func record(_ failure: OutputFailure, on stream: Stream) {
        let waiters: [AsyncStream<OutputFailure>.Continuation] = state.withLock { state in
            let breaks = stream == .output || failure == .closed
            guard breaks else {
                state.errorStreamFailure = state.errorStreamFailure ?? failure
                return []
            }
            guard state.failure == nil else { return [] }
            state.failure = failure
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.yield(failure)
            waiter.finish()
        }
    }

    /// Says on standard error, once the output broke, why (``OutputFailure/farewell``: nothing for a closed pipe).
    /// Written past the silence that broken output imposes; a failure of this write is ignored.
    public func sayWhyBroken() {
        guard let farewell = failure?.farewell else { return }
        var line = "podfresh: " + farewell + "\n"
        line.withUTF8 { _ = StandardStream.writeAll($0, to: STDERR_FILENO) }
    }

    /// The failure that breaks the output, once: at once when it is already broken, else when it breaks. The
    /// sequence ends after it, or when the task iterating it is cancelled.
    public func broken() -> AsyncStream<OutputFailure> {
        let (stream, continuation) = AsyncStream.makeStream(of: OutputFailure.self)
        let already: OutputFailure? = state.withLock { state in
            if let failure = state.failure { return failure }
            let id = state.nextWaiter
            state.nextWaiter += 1
            state.waiters[id] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.waiters.removeValue(forKey: id) }
            }
            return nil
        }
        if let already {
            continuation.yield(already)
            continuation.finish()
        }
        return stream
    }
}
