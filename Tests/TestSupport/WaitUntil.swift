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
