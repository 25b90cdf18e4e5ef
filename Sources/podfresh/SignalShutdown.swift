import ConsoleOutput
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Runs a command's ``Service`` in a `ServiceGroup` and makes SIGINT and SIGTERM the group's graceful shutdown: the
/// first signal starts it (the service starts no new work and lets what is in flight finish), a second one exits the
/// process at once with 128 + that signal.
///
/// Output that can no longer be written (``StandardOutputHealth``: a closed pipe, a full disk) starts the same
/// graceful shutdown, as a first signal would; the command then ends with the output's status (141, 74), which
/// `RootCommand` applies to every command.
///
/// ## Why the signals are not the group's `gracefulShutdownSignals`
/// swift-service-lifecycle (2.13.0, `ServiceGroup._run`) listens for its graceful-shutdown signals only until the
/// first one arrives; a second is swallowed while the group waits for its services. Its `cancellationSignals` may not
/// name the same signals (a precondition), and would cancel the services rather than exit, abandoning merges already
/// past their fetch. Nor does the group tell a service which signal arrived, and `refresh` exits 130 or 143 by it.
/// So one `UnixSignalsSequence` (the library's own, one handler per signal as its documentation asks) sees every
/// signal: the first is recorded and handed to the group with `triggerGracefulShutdown()`, the second calls `exit`.
final class SignalShutdown: Sendable {
    /// What started the graceful shutdown.
    enum Cause: Sendable {
        case signal(UnixSignal)
        case outputBroken(OutputFailure)
    }

    private let first = Mutex<Cause?>(nil)

    /// The signal that started the graceful shutdown, nil until one arrives (or when broken output started it).
    ///
    /// Set before the group hears of the shutdown, so a service's `onGracefulShutdown` handler always sees it.
    var signal: UnixSignal? {
        guard case .signal(let signal) = first.withLock({ $0 }) else { return nil }
        return signal
    }

    /// Records `cause` when nothing started the shutdown yet; true when it is the first.
    private func claim(_ cause: Cause) -> Bool {
        first.withLock { first in
            guard first == nil else { return false }
            first = cause
            return true
        }
    }

    /// Runs `service` until it returns, by itself or after a signal shut it down gracefully.
    ///
    /// - Throws: Whatever `service` threw.
    func run(_ service: some Service) async throws {
        // Trapped before the group starts its service, so no signal can arrive unseen in between.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    // A command that is done ends the group; the default (.cancelGroup) would call that an error.
                    .init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)
                ],
                // No maximumGracefulShutdownDuration: escalating to cancellation would drop merges in flight, and
                // every fetch and hook has its own timeout already. The group logs only at debug level; nothing
                // below the renderer prints.
                logger: Logger(label: "podfresh.lifecycle", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                for await signal in signals {
                    if self.claim(.signal(signal)) {
                        await group.triggerGracefulShutdown()
                    } else {
                        // The user insists. SQLite rolls back whatever transaction was open; the file stays consistent.
                        exit(128 + signal.rawValue)
                    }
                }
            }
            tasks.addTask {
                for await failure in StandardOutputHealth.shared.broken() where self.claim(.outputBroken(failure)) {
                    await group.triggerGracefulShutdown()
                }
            }
            // Once the service is done, stop listening (the iteration ends on cancellation).
            defer { tasks.cancelAll() }
            try await group.run()
        }
    }
}
