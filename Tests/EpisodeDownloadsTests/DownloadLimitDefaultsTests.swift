import EpisodeDownloads
import Measures
import Testing

@testable import HTTPTransport

/// The download limits' defaults, checked on the watch's own clock (no waiting): separate limits, and a trickle of one
/// byte a second ends within about a minute although it never stalls.
struct DownloadLimitDefaultsTests {
    let limits = DownloadConfiguration().limits

    @Test func theLimitsAreSeparateAndTheTotalIsTheLastResort() {
        #expect(limits.firstByte == .seconds(30))
        #expect(limits.stall == .seconds(60))
        #expect(limits.minimumRate == MinimumRate(bytesPerSecond: 4_000, window: .seconds(60)))
        #expect(limits.total == .seconds(6 * 3600))
    }

    @Test func aOneByteASecondTrickleEndsAtTheMinimumRateWithinAboutAMinute() {
        let start = AppClock.system.now
        let watch = TransferWatch(start: start)
        watch.requestStarted(at: start)
        watch.bodyStarted(expected: 100_000_000, at: start)
        var ended: (TransferLimit, Duration)?
        for second in 1...600 {
            let now = start + .seconds(second)
            watch.received(1, at: now)
            if case .failure(let exceeded) = watch.check(limits, now: now) {
                ended = (exceeded.limit, start.duration(to: now))
                break
            }
        }
        #expect(ended?.0 == .minimumRate)
        #expect((ended?.1 ?? .seconds(600)) <= .seconds(61))
    }

    @Test func aSlowButRealDownloadIsNotEnded() {
        let start = AppClock.system.now
        let watch = TransferWatch(start: start)
        watch.bodyStarted(expected: 100_000_000, at: start)
        for second in 1...600 {
            let now = start + .seconds(second)
            watch.received(8_000, at: now)
            if case .failure(let exceeded) = watch.check(limits, now: now) {
                Issue.record("8 KB/s ended by \(exceeded.limit) after \(second)s")
                return
            }
        }
    }
}
