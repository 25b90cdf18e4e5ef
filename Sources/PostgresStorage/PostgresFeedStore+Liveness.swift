import FeedModels
import Foundation
import Logging
import PostgresNIO
import Synchronization

// A server that is gone, told in seconds. When PostgreSQL stops (or its machine goes), postgres-nio's pool keeps each
// query waiting while it retries connections, and fails them only after a minute (its circuit breaker's fixed time).
// So an operation that waits longer than `probeAfter` has the server probed with a connection of its own: refused or
// unanswered within `probeTimeout`, the operation fails then, naming host and port.
extension PostgresFeedStore {
    /// How long an operation runs before the server is probed (and between probes while it still runs).
    static let probeAfter: Duration = .seconds(2)
    /// How long a probe's connection may take.
    static let probeTimeout: Int64 = 3

    /// Runs `operation` (a pooled query or transaction), failing it with a ``StoreError`` as soon as a probe finds
    /// the server gone. Cancelling the caller cancels the operation.
    func guarded<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let work = Task { try await operation() }
        let outcome = Outcome<T>()
        let location = location
        let logger = logger
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.arm(continuation)
                let watchdog = Task {
                    while !Task.isCancelled {
                        do { try await Task.sleep(for: Self.probeAfter) } catch { return }
                        if let gone = await Self.probe(location, logger: logger) {
                            outcome.finish(.failure(gone))
                            work.cancel()
                            return
                        }
                    }
                }
                Task {
                    let result = await work.result
                    watchdog.cancel()
                    outcome.finish(result)
                }
            }
        } onCancel: {
            work.cancel()
        }
    }

    /// Nil when a new connection to the server opens, else the error saying it is gone.
    static func probe(_ location: PostgresLocation, logger: Logger) async -> StoreError? {
        do {
            var configuration = try location.connectionConfiguration()
            configuration.options.connectTimeout = .seconds(location.connectTimeout ?? probeTimeout)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            try? await connection.close()
            return nil
        } catch {
            return StoreError(
                .postgresProbeFailed(
                    host: location.host, port: location.port, cause: storeError(error, location: location).reason))
        }
    }
}

/// The first of an operation's result and a probe's verdict, delivered once to the waiting caller.
///
/// Checked `Sendable`: the continuation sits in a `Mutex`, and whichever side comes first takes it out; the other
/// finds it gone.
private final class Outcome<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func arm(_ waiting: CheckedContinuation<T, any Error>) {
        continuation.withLock { $0 = waiting }
    }

    func finish(_ result: Result<T, any Error>) {
        let waiting = continuation.withLock { stored -> CheckedContinuation<T, any Error>? in
            defer { stored = nil }
            return stored
        }
        waiting?.resume(with: result)
    }
}

/// Carries a closure that is not `Sendable` into the one task that runs it (``PostgresFeedStore/guarded(_:)``).
///
/// `@unchecked Sendable` because the closure is never run concurrently: only that task calls it, once, while its
/// caller waits (or, once the server is found gone, has given up on it and fails the command).
struct UncheckedClosure<Value>: @unchecked Sendable {
    let value: Value
}
