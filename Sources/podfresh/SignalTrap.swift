import Dispatch
import Foundation

/// Turns the first SIGINT/SIGTERM into a graceful stop (the `onFirst` closure, e.g. cancelling the refresh so no new
/// fetch starts while in-flight merges commit) and a second one into an immediate exit.
///
/// ## Why this class is `@unchecked Sendable`
/// `count` is touched only on `queue`, a serial dispatch queue; everything else is immutable after `init`.
final class SignalTrap: @unchecked Sendable {
    private let queue = DispatchQueue(label: "podfresh.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var count = 0
    private let onFirst: @Sendable (Int32) -> Void

    /// Starts trapping SIGINT and SIGTERM until this object is released.
    init(onFirst: @escaping @Sendable (Int32) -> Void) {
        self.onFirst = onFirst
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [weak self] in self?.received(signalNumber) }
            source.resume()
            sources.append(source)
        }
    }

    private func received(_ signalNumber: Int32) {
        count += 1
        if count == 1 {
            onFirst(signalNumber)
        } else {
            // The user insists. SQLite rolls back whatever transaction was open; the file stays consistent.
            exit(128 + signalNumber)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
