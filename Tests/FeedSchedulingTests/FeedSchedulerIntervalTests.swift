import FeedModels
import FeedScheduling
import Foundation
import Testing

private let now = Date(timeIntervalSince1970: 1_730_000_000)
/// The interval alone, within the bounds podfresh had before it learned slots: what these cases judge.
private let policy = SchedulePolicy(minInterval: 15 * 60, maxInterval: 24 * 3600, usesSlots: false)

/// The model of a feed that published at `dates`, seen at `now`.
private func model(_ dates: [Date]) -> PublicationModel {
    PublicationModel.learn(PublicationHistory(dates.map { Publication(at: $0) }, now: now), now: now)
}

private func dates(everyHours hours: Double, count: Int) -> [Date] {
    (0..<count).map { now.addingTimeInterval(-Double($0) * hours * 3600) }
}

private func interval(_ decision: ScheduleDecision) -> Double {
    (decision.nextCheckAt ?? now).timeIntervalSince(now)
}

struct FeedSchedulerIntervalTests {
    @Test func aDailyFeedIsCheckedAboutTwiceADay() {
        let decision = FeedScheduler.decide(
            ScheduleInput(
                now: now, result: .success, model: model(dates(everyHours: 24, count: 10)), jitter: 0.5),
            policy: policy)
        #expect(interval(decision) == 12 * 3600)
        #expect(decision.reason == .cadence(interval: .seconds(12 * 3600), basis: .medianGap(episodes: 10)))
    }

    @Test func aWeeklyFeedIsCappedAtTheMaximum() {
        let decision = FeedScheduler.decide(
            ScheduleInput(
                now: now, result: .success, model: model(dates(everyHours: 168, count: 8)), jitter: 0.5),
            policy: policy)
        #expect(interval(decision) == 24 * 3600)
        #expect(
            decision.reason == .cadence(interval: .seconds(24 * 3600), basis: .longestAllowed),
            "the library says which bound held the interval, in facts, not sentences")
    }

    @Test func anHourlyFeedIsHeldToTheMinimum() {
        let decision = FeedScheduler.decide(
            ScheduleInput(
                now: now, result: .success, model: model(dates(everyHours: 0.25, count: 8)), jitter: 0.5),
            policy: policy)
        #expect(interval(decision) == 15 * 60)
        #expect(decision.reason == .cadence(interval: .seconds(15 * 60), basis: .shortestAllowed))
    }

    @Test func irregularUnsortedAndDuplicateDatesUseTheMedian() {
        let irregular = [
            now, now, now.addingTimeInterval(-3600 * 10), now.addingTimeInterval(-3600 * 30),
            now.addingTimeInterval(-3600 * 40),
        ].shuffled()
        // distinct gaps: 10h, 20h, 10h → median 10h → 5h
        let decision = FeedScheduler.decide(
            ScheduleInput(now: now, result: .success, model: model(irregular), jitter: 0.5), policy: policy)
        #expect(interval(decision) == 5 * 3600)
        #expect(decision.reason == .cadence(interval: .seconds(5 * 3600), basis: .medianGap(episodes: 4)))
    }

    @Test(arguments: [[Date](), [now]])
    func withoutARhythmTheDefaultIntervalApplies(known: [Date]) {
        let decision = FeedScheduler.decide(
            ScheduleInput(now: now, result: .success, model: model(known), jitter: 0.5), policy: policy)
        #expect(interval(decision) == 2 * 3600)
        #expect(decision.reason == .cadence(interval: .seconds(2 * 3600), basis: .noRhythmYet))
    }

    @Test func hintsLengthenButNeverShortenTheInterval() {
        let base = dates(everyHours: 4, count: 10)  // cadence 2h
        let cases: [(ScheduleInput, Double, ScheduleReason.Basis)] = [
            (
                ScheduleInput(now: now, result: .success, model: model(base), ttlMinutes: 240, jitter: 0.5),
                4 * 3600, .hint(.ttl)
            ),
            (
                ScheduleInput(now: now, result: .success, model: model(base), maxAge: 3 * 3600, jitter: 0.5),
                3 * 3600, .hint(.maxAge)
            ),
            (
                ScheduleInput(
                    now: now, result: .success, model: model(base), expires: now.addingTimeInterval(5 * 3600),
                    jitter: 0.5), 5 * 3600, .hint(.expires)
            ),
            (
                ScheduleInput(
                    now: now, result: .success, model: model(base), syndicationUpdatePeriod: "daily",
                    syndicationUpdateFrequency: 4, jitter: 0.5), 6 * 3600, .hint(.syndicationUpdatePeriod)
            ),
            (
                ScheduleInput(
                    now: now, result: .success, model: model(base),
                    podcastUpdateFrequency: "FREQ=HOURLY;INTERVAL=8", jitter: 0.5), 8 * 3600,
                .hint(.podcastUpdateFrequency)
            ),
            (
                ScheduleInput(
                    now: now, result: .success, model: model(base), ttlMinutes: 10, maxAge: 60, jitter: 0.5),
                2 * 3600, .medianGap(episodes: 10)
            ),
        ]
        for (input, expected, basis) in cases {
            let decision = FeedScheduler.decide(input, policy: policy)
            #expect(interval(decision) == expected, "\(basis)")
            #expect(decision.reason == .cadence(interval: .seconds(expected), basis: basis))
        }
    }

    @Test func failuresBackOffExponentiallyWithBoundedJitterUpToTheMaximum() {
        var previous = 0.0
        for failures in 1...8 {
            let low = interval(
                FeedScheduler.decide(
                    ScheduleInput(now: now, result: .failure, consecutiveFailures: failures, jitter: 0), policy: policy)
            )
            let high = interval(
                FeedScheduler.decide(
                    ScheduleInput(now: now, result: .failure, consecutiveFailures: failures, jitter: 1), policy: policy)
            )
            let expected = min(15 * 60 * pow(2, Double(failures - 1)), 24 * 3600)
            #expect(low >= expected * 0.8 - 1 && high <= min(expected * 1.2, 24 * 3600) + 1)
            #expect(high <= 24 * 3600)
            #expect(low >= previous * 0.8 || expected == 24 * 3600)
            previous = low
        }
        let reason = FeedScheduler.decide(
            ScheduleInput(now: now, result: .failure, consecutiveFailures: 3, jitter: 0.5), policy: policy
        ).reason
        #expect(reason == .backoff(failures: 3))
    }

    @Test func retryAfterWinsWhenItAsksForLonger() {
        let later = now.addingTimeInterval(3 * 3600)
        let decision = FeedScheduler.decide(
            ScheduleInput(now: now, result: .failure, consecutiveFailures: 1, retryAfter: later, jitter: 0.5),
            policy: policy)
        #expect(decision.nextCheckAt == later)
        #expect(decision.reason == .retryAfter)
        let sooner = FeedScheduler.decide(
            ScheduleInput(
                now: now, result: .failure, consecutiveFailures: 5, retryAfter: now.addingTimeInterval(60), jitter: 0.5),
            policy: policy)
        #expect(interval(sooner) > 60)
        #expect(sooner.reason == .backoff(failures: 5))
    }

    @Test func aSuccessResetsTheBackoff() {
        let decision = FeedScheduler.decide(
            ScheduleInput(
                now: now, result: .success, consecutiveFailures: 0,
                model: model(dates(everyHours: 24, count: 5)), jitter: 0.5), policy: policy)
        #expect(interval(decision) == 12 * 3600)
    }

    @Test func aCompleteFeedIsNotPolledAgain() {
        let decision = FeedScheduler.decide(
            ScheduleInput(now: now, result: .success, isComplete: true, jitter: 0.5), policy: policy)
        #expect(decision.nextCheckAt == .distantFuture)
        #expect(decision.reason == .complete)
    }

    @Test func revalidationIsDueAfterTheConfiguredTime() {
        #expect(FeedScheduler.shouldRevalidate(lastUnconditionalAt: nil, now: now, policy: policy))
        #expect(
            !FeedScheduler.shouldRevalidate(
                lastUnconditionalAt: now.addingTimeInterval(-3600), now: now, policy: policy))
        #expect(
            FeedScheduler.shouldRevalidate(
                lastUnconditionalAt: now.addingTimeInterval(-25 * 3600), now: now, policy: policy))
    }

    @Test(arguments: [
        ("FREQ=DAILY", 86_400.0), ("FREQ=WEEKLY;INTERVAL=2", 1_209_600), ("freq=hourly;interval=6", 21_600),
        ("FREQ=YEARLY;COUNT=1", 31_536_000),
    ])
    func rrulesAreRead(rule: String, seconds: Double) {
        #expect(FeedScheduler.rruleSeconds(rule) == seconds)
    }

    @Test func nonsenseRRulesAreIgnored() {
        #expect(FeedScheduler.rruleSeconds("Weekly-ish") == nil)
        #expect(FeedScheduler.rruleSeconds("FREQ=SOMETIMES") == nil)
    }

}
