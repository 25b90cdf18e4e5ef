import Measures
import Synchronization

/// Cuts `watch`'s sleep short when the podping reader made feeds due, so a pinged feed is fetched within a fraction
/// of a second rather than at the next scheduled wake-up.
final class WakeSignal: Sendable {
    private let woken = Mutex(false)

    /// Wakes the sleeper (or the next sleep, if none sleeps now).
    func signal() { woken.withLock { $0 = true } }

    /// Sleeps up to `seconds` on `clock`, returning early (within 50 ms) once signalled.
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(seconds: Double, on clock: AppClock = .system) async throws {
        let deadline = clock.now + .milliseconds(Int64(seconds * 1000))
        while clock.now < deadline {
            if woken.withLock({ value in
                defer { value = false }
                return value
            }) {
                return
            }
            try await clock.sleep(for: min(.milliseconds(50), deadline - clock.now))
        }
    }
}
