import Synchronization
import TestSupport
import Testing

/// The test process itself: a parallel run starts a few tests per core at a time, not the whole suite at once (which
/// made time limits strike tests that were only waiting for a thread).
@Suite("The test run")
struct TestRunWidthTests {
    static let running = Mutex((now: 0, most: 0))
    static let cases = Array(0..<40)

    @Test func aWidthIsSetForTheRun() {
        #expect(testRunWidth >= 1, "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH is not set before the runner starts")
    }

    /// Forty cases that each hold their place for a while: run all at once, more than the width would overlap.
    @Test(arguments: cases)
    func noMoreTestsRunAtOnceThanTheWidth(_ index: Int) async throws {
        let width = testRunWidth
        try #require(width >= 1)
        let now = Self.running.withLock { state in
            state.now += 1
            state.most = max(state.most, state.now)
            return state.now
        }
        defer { Self.running.withLock { $0.now -= 1 } }
        #expect(now <= width, "\(now) cases of this test running at once, with a width of \(width)")
        try await Task.sleep(for: .milliseconds(100))
    }
}
