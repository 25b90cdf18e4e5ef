import Measures
import Testing

@testable import HTTPTransport

/// Each limit of a transfer is hit on its own and named as itself.
@Suite(.timeLimit(.minutes(1)))
struct TransferWatchTests {
    private let limits = TransferLimits(
        nameLookup: .seconds(1), connect: .seconds(1), firstByte: .seconds(2), stall: .seconds(1),
        minimumRate: MinimumRate(bytesPerSecond: 100, window: .seconds(5)), total: .seconds(60))

    private func limitHit(_ watch: TransferWatch, at instant: AppClock.Instant) -> TransferLimit? {
        if case .failure(let exceeded) = watch.check(limits, now: instant) { return exceeded.limit }
        return nil
    }

    @Test func aServerThatDoesNotAnswerHitsTheFirstByteLimit() {
        let start = AppClock.system.now
        let watch = TransferWatch(start: start)
        watch.requestStarted(at: start)
        #expect(limitHit(watch, at: start + .milliseconds(1900)) == nil)
        #expect(limitHit(watch, at: start + .milliseconds(2100)) == .firstByte)
    }

    @Test func aBodyWithoutBytesHitsTheStallLimitNotTheFirstByteOne() {
        let start = AppClock.system.now
        let watch = TransferWatch(start: start)
        watch.requestStarted(at: start)
        watch.bodyStarted(expected: 1_000, at: start)
        #expect(limitHit(watch, at: start + .milliseconds(900)) == nil)
        #expect(limitHit(watch, at: start + .milliseconds(1100)) == .stall)
    }

    @Test func aBodyWaitingForItsReaderHitsNoLimitButTheTotal() {
        let start = AppClock.system.now
        let watch = TransferWatch(start: start)
        watch.requestStarted(at: start)
        watch.headArrived()
        #expect(limitHit(watch, at: start + .seconds(30)) == nil)
        #expect(limitHit(watch, at: start + .seconds(61)) == .total)
    }

    @Test func aTrickleThatNeverStallsHitsTheMinimumRate() {
        let start = AppClock.system.now
        let watch = TransferWatch(start: start)
        watch.bodyStarted(expected: nil, at: start)
        // One byte now and then keeps the stall limit away...
        for second in 1...4 {
            watch.received(1, at: start + .seconds(second) - .milliseconds(100))
            #expect(limitHit(watch, at: start + .seconds(second)) == nil)
        }
        watch.received(1, at: start + .seconds(5))
        // ...but five bytes in five seconds is under 100 bytes/s.
        #expect(limitHit(watch, at: start + .milliseconds(5050)) == .minimumRate)
    }

    @Test func aBodyFastEnoughPassesWindowAfterWindow() {
        let start = AppClock.system.now
        let watch = TransferWatch(start: start)
        watch.bodyStarted(expected: nil, at: start)
        watch.received(600, at: start + .milliseconds(4500))
        #expect(limitHit(watch, at: start + .milliseconds(5010)) == nil)
    }

    @Test func theWholeTransferHasItsOwnLimit() {
        let start = AppClock.system.now
        let watch = TransferWatch(start: start)
        watch.bodyStarted(expected: nil, at: start)
        watch.received(1, at: start + .seconds(61))
        #expect(limitHit(watch, at: start + .seconds(61)) == .total)
    }

    @Test func theWatchdogThrowsTheLimitItHitsWhenTheClockReachesIt() async throws {
        let clock = ManualClock()
        let watch = TransferWatch(clock: .manual(clock))
        watch.requestStarted()
        let fast = TransferLimits(firstByte: .milliseconds(200), total: .seconds(10))
        let watchdog = Task { try await watch.watch(limits: fast) }
        defer { watchdog.cancel() }
        try #require(await clock.waitForSleepers(1))
        await clock.advance(by: .milliseconds(199))
        #expect(clock.sleeperCount == 1, "the watchdog gave up before the first-byte limit")
        await clock.advance(by: .milliseconds(1))
        await #expect(throws: TransferLimitExceeded(limit: .firstByte, limits: fast)) { try await watchdog.value }
    }
}
