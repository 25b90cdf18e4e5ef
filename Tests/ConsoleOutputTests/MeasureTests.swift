import Measures
import Testing

/// One style for every duration and byte count a message holds.
struct MeasureTests {
    @Test(arguments: [
        (0.0, "0s"), (-3, "0s"), (0.04, "0s"), (0.4, "0.4s"), (1.46, "1.5s"), (2.0, "2s"), (45, "45s"),
        (59.96, "1m"), (60, "1m"), (90, "1m 30s"), (900, "15m"), (3600, "1h"), (21_600, "6h"), (23_400, "6h 30m"),
        (23_430, "6h 30m"), (86_400, "1d"), (93_600, "1d 2h"), (.infinity, "0s"),
    ])
    func durationsReadTheSameEverywhere(seconds: Double, text: String) {
        #expect(Measure.duration(seconds: seconds) == text)
    }

    @Test func aDurationValueReadsLikeItsSeconds() {
        #expect(Measure.duration(.seconds(30)) == "30s")
        #expect(Measure.duration(.milliseconds(1500)) == "1.5s")
        #expect(Measure.duration(.seconds(60)) == "1m", "a minute is never `60 s` in one place and `1m` in another")
    }

    @Test(arguments: [
        (Int64(0), "0 B"), (999, "999 B"), (1000, "1 kB"), (1536, "1.5 kB"), (999_999, "1 MB"), (1_000_000, "1 MB"),
        (12_345_678, "12.3 MB"), (50_000_000, "50 MB"), (3_100_000_000, "3.1 GB"),
    ])
    func byteCountsAreDecimal(count: Int64, text: String) {
        #expect(Measure.bytes(count) == text)
    }

    @Test func aRateIsBytesPerSecond() {
        #expect(Measure.rate(bytesPerSecond: 2_100_000) == "2.1 MB/s")
    }
}
