import FeedModels
import Foundation
import Testing

/// How a schedule reason is stored: its facts as JSON, read back as the same value; anything else as the text it is.
struct ScheduleReasonTests {
    @Test func theFactsAreStoredAsFlatJSON() {
        #expect(
            ScheduleReason.cadence(interval: .seconds(7200), basis: .medianGap(episodes: 12)).storedText
                == #"{"basis":"medianGap","episodes":12,"kind":"cadence","seconds":7200}"#)
        #expect(
            ScheduleReason.cadence(interval: .seconds(900), basis: .hint(.maxAge)).storedText
                == #"{"basis":"hint","hint":"maxAge","kind":"cadence","seconds":900}"#)
        #expect(ScheduleReason.backoff(failures: 2).storedText == #"{"failures":2,"kind":"backoff"}"#)
        #expect(ScheduleReason.podping.storedText == #"{"kind":"podping"}"#)
    }

    @Test func everyReasonReadsBackAsWritten() {
        let reasons: [ScheduleReason] =
            [
                .cadence(interval: .seconds(21_600), basis: .noRhythmYet),
                .cadence(interval: .seconds(1_234.5), basis: .medianGap(episodes: 3)),
                .cadence(interval: .seconds(900), basis: .shortestAllowed),
                .cadence(interval: .seconds(86_400), basis: .longestAllowed),
            ] + ScheduleReason.PollingHint.allCases.map { .cadence(interval: .seconds(3600), basis: .hint($0)) } + [
                .backoff(failures: 5), .retryAfter, .complete, .gone, .networkOffline, .podping,
                .stored("every 6h (no publishing rhythm yet)"),
            ]
        for reason in reasons {
            #expect(ScheduleReason(storedText: reason.storedText) == reason)
        }
    }

    @Test func anOlderSentenceIsStoredTextKeptAsWritten() {
        let older = "every 2h (half the median gap of 12 episodes)"
        #expect(ScheduleReason(storedText: older) == .stored(older))
        #expect(ScheduleReason.stored(older).storedText == older, "written back unchanged, e.g. by `migrate`")
        #expect(ScheduleReason(storedText: "{broken") == .stored("{broken"))
        let unusable = #"{"basis":"noRhythmYet","kind":"cadence","seconds":1e300}"#
        #expect(ScheduleReason(storedText: unusable) == .stored(unusable), "an interval no Duration holds")
        #expect(ScheduleReason(storedText: nil as String?) == nil)
    }

    @Test func theOlderPodpingStillMeansAPing() {
        #expect(ScheduleReason(storedText: "podping") == .podping, "`watch` wakes for a feed a ping made due")
    }
}
