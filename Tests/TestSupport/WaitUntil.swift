public import Measures

/// Waits, in real time, until `condition` holds: for what a test cannot be told directly (another task reached a
/// point, a process exited). False if it did not hold within `limit`.
public func waitUntil(within limit: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// Runs `body` while moving `clock` to each deadline its sleepers wait for, one after another, as soon as one is
/// pending: for code whose waits a test does not step through one by one (a timeout, then a grace period).
public func drivingClock<T: Sendable>(
    _ clock: ManualClock, _ body: @Sendable () async throws -> T
) async rethrows -> T {
    let driver = Task {
        while !Task.isCancelled {
            if let wake = clock.nextWake {
                await clock.advance(by: max(wake, .zero))
            } else {
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
    }
    defer { driver.cancel() }
    return try await body()
}
