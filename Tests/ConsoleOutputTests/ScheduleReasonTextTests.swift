import ConsoleOutput
import FeedModels
import Foundation
import Measures
import RefreshEngine
import Testing

/// The reason for a feed's next check carries facts; ConsoleOutput alone words them. These pin the wording of every
/// reason, as `list`, `status`, outcomes and `--json` (`next_check_reason`) show it.
struct ScheduleReasonTextTests {
    static let wordings: [(ScheduleReason, String)] = [
        (.cadence(interval: .seconds(6 * 3600), basis: .noRhythmYet), "every 6h (no publishing rhythm yet)"),
        (
            .cadence(interval: .seconds(2 * 3600), basis: .medianGap(episodes: 12)),
            "every 2h (half the median gap of 12 episodes)"
        ),
        (.cadence(interval: .seconds(86_400), basis: .hint(.ttl)), "every 1d (ttl)"),
        (.cadence(interval: .seconds(3 * 3600), basis: .hint(.maxAge)), "every 3h (Cache-Control max-age)"),
        (.cadence(interval: .seconds(5 * 3600), basis: .hint(.expires)), "every 5h (Expires)"),
        (.cadence(interval: .seconds(6 * 3600), basis: .hint(.syndicationUpdatePeriod)), "every 6h (sy:updatePeriod)"),
        (
            .cadence(interval: .seconds(8 * 3600), basis: .hint(.podcastUpdateFrequency)),
            "every 8h (podcast:updateFrequency)"
        ),
        (.cadence(interval: .seconds(15 * 60), basis: .shortestAllowed), "every 15m (the shortest interval allowed)"),
        (.cadence(interval: .seconds(86_400), basis: .longestAllowed), "every 1d (the longest interval allowed)"),
        (.cadence(interval: .seconds(5_432.6), basis: .noRhythmYet), "every 1h 30m (no publishing rhythm yet)"),
        (.backoff(failures: 1), "backoff after 1 failure"),
        (.backoff(failures: 3), "backoff after 3 failures"),
        (.retryAfter, "Retry-After"),
        (.complete, "complete (itunes:complete)"),
        (.gone, "gone (410)"),
        (.networkOffline, "network offline"),
        (.podping, "podping"),
        (.stored("cadence 1d (median gap)"), "cadence 1d (median gap)"),
    ]

    @Test func everyReasonIsWorded() {
        for (reason, text) in Self.wordings {
            #expect(ScheduleReasonText.line(reason) == text)
        }
    }

    @Test func anIntervalIsWrittenAsEveryOtherDuration() {
        for seconds in [45.0, 90, 3600, 7_380, 86_400, 93_600] {
            let reason = ScheduleReason.cadence(interval: .seconds(seconds), basis: .noRhythmYet)
            #expect(
                ScheduleReasonText.line(reason)
                    == "every \(Measure.duration(seconds: seconds)) (no publishing rhythm yet)")
        }
    }

    @Test func theSchedulersReasonsReadAsBefore() {
        // One real decision per path, worded: what `list` showed before the reason was typed.
        let now = Date(timeIntervalSince1970: 1_730_000_000)
        let daily = (0..<10).map { now.addingTimeInterval(-Double($0) * 86_400) }
        let cases: [(ScheduleInput, String)] = [
            (
                ScheduleInput(now: now, result: .success, recentPublishedDates: daily, jitter: 0.5),
                "every 12h (half the median gap of 10 episodes)"
            ),
            (ScheduleInput(now: now, result: .success, jitter: 0.5), "every 6h (no publishing rhythm yet)"),
            (
                ScheduleInput(now: now, result: .success, recentPublishedDates: daily, ttlMinutes: 1200, jitter: 0.5),
                "every 20h (ttl)"
            ),
            (
                ScheduleInput(now: now, result: .failure, consecutiveFailures: 2, jitter: 0.5),
                "backoff after 2 failures"
            ),
        ]
        for (input, text) in cases {
            #expect(ScheduleReasonText.line(FeedScheduler.decide(input, policy: SchedulePolicy()).reason) == text)
        }
    }
}
