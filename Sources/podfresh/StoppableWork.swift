import ServiceLifecycle
import Synchronization

/// A command's work as the service of a ``SignalShutdown``: its graceful shutdown cancels the work, which is how the
/// engine stops (a refresh starts no new fetch and lets the merges in flight commit; downloads stop and keep their
/// `.part`), after `onShutdown` has said so.
///
/// A class only to hand the result out of `run()`, which returns nothing; the `Mutex` keeps it checked `Sendable`.
final class StoppableWork<Result: Sendable>: Service {
    /// What the work returned, and whether a graceful shutdown (a signal) stopped it.
    struct Finished: Sendable {
        var result: Result
        var stopped: Bool
    }

    private let work: @Sendable () async throws -> Result
    private let onShutdown: @Sendable () -> Void
    private let finished = Mutex<Finished?>(nil)

    init(onShutdown: @escaping @Sendable () -> Void, work: @escaping @Sendable () async throws -> Result) {
        self.work = work
        self.onShutdown = onShutdown
    }

    /// Set once ``run()`` returned; nil before, or when the work threw.
    var outcome: Finished? { finished.withLock { $0 } }

    func run() async throws {
        let result = try await withGracefulShutdownHandler {
            try await cancelWhenGracefulShutdown(work)
        } onGracefulShutdown: { [onShutdown] in
            onShutdown()
        }
        // Only a signal starts a graceful shutdown.
        let stopped = Task.isShuttingDownGracefully
        finished.withLock { $0 = Finished(result: result, stopped: stopped) }
    }
}
