import ConsoleOutput
import FeedModels
import FeedParsing
import FeedScheduling
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

    @Test func anExpectedEpisodeSaysWhenOnWhichRhythmAndHowRegular() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let tuesday = Date(timeIntervalSince1970: 1_733_220_000)  // Tue 2024-12-03 10:00 UTC, 05:00 in New York
        let weekly = ExpectedEpisode(at: tuesday, rhythm: .weekly, onTime: 11, ofLast: 12)
        #expect(
            ScheduleReasonText.text(weekly, zone: zone, now: tuesday)
                == "expected Tue 05:00 (weekly, 11 of the last 12 on time)")
        var late = ExpectedEpisode(at: tuesday, rhythm: .biweekly, onTime: 5, ofLast: 6)
        late.late = true
        #expect(
            ScheduleReasonText.text(late, zone: zone, now: tuesday)
                == "late: expected Tue 05:00 (every other week, 5 of the last 6 on time)")
        let declared = ExpectedEpisode(at: tuesday, rhythm: .declared)
        #expect(
            ScheduleReasonText.text(declared, zone: zone, now: tuesday.addingTimeInterval(-10 * 86_400))
                == "expected Tue 3 Dec 05:00 (as its podcast:updateFrequency says)")
        let stored = ScheduleReason(storedText: ScheduleReason.expected(weekly).storedText)
        #expect(stored == .expected(weekly), "the reason is stored as facts and read back the same")
    }

    @Test func anEpisodeExpectedOverAnEveningSaysFromWhenUntilWhen() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let friday = Date(timeIntervalSince1970: 1_732_925_100)  // Sat 2024-11-30 00:05 UTC: Fri 19:05 in New York
        let evening = ExpectedEpisode(
            at: friday, rhythm: .weekly, onTime: 12, ofLast: 12, until: friday.addingTimeInterval(140 * 60))
        let text = ScheduleReasonText.text(evening, zone: zone, now: friday)
        #expect(text == "expected Fri 19:05–21:25 (weekly, 12 of the last 12 on time)")
        let stored = ScheduleReason(storedText: ScheduleReason.expected(evening).storedText)
        #expect(stored == .expected(evening), "the end of the window is stored and read back too")
        let json = ScheduleReasonText.json(expectedIn: .expected(evening)).serialized()
        #expect(json.contains("\"until\":\"2024-11-30T02:25:00Z\""), "\(json)")
    }

    @Test func theSchedulersReasonsReadAsBefore() {
        // One real decision per path, worded: what `list` showed before the reason was typed.
        let now = Date(timeIntervalSince1970: 1_730_000_000)
        let daily = PublicationModel.learn(
            PublicationHistory(
                (0..<10).map { Publication(at: now.addingTimeInterval(-Double($0) * 86_400)) }, now: now),
            now: now)
        let policy = SchedulePolicy(minInterval: 15 * 60, maxInterval: 24 * 3600, usesSlots: false)
        let cases: [(ScheduleInput, String)] = [
            (
                ScheduleInput(now: now, result: .success, model: daily, jitter: 0.5),
                "every 12h (half the median gap of 10 episodes)"
            ),
            (ScheduleInput(now: now, result: .success, jitter: 0.5), "every 2h (no publishing rhythm yet)"),
            (
                ScheduleInput(now: now, result: .success, model: daily, ttlMinutes: 1200, jitter: 0.5),
                "every 20h (ttl)"
            ),
            (
                ScheduleInput(now: now, result: .failure, consecutiveFailures: 2, jitter: 0.5),
                "backoff after 2 failures"
            ),
        ]
        for (input, text) in cases {
            #expect(ScheduleReasonText.line(FeedScheduler.decide(input, policy: policy).reason) == text)
        }
    }
}
