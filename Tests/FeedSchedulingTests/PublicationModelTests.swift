import FeedModels
import FeedScheduling
import Foundation
import Testing

/// Dates in a named zone, as a publisher in it would write them.
struct Local {
    let zone: TimeZone

    init(_ identifier: String) { zone = TimeZone(identifier: identifier)! }

    func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    /// A publication as the feed writes it: with the zone's offset at that moment, or in UTC (`GMT`) when `inUTC`.
    func publication(_ date: Date, inUTC: Bool = false) -> Publication {
        Publication(at: date, writtenOffset: inUTC ? 0 : zone.secondsFromGMT(for: date))
    }

    /// `count` publications every `days` days at the local time of `first`, oldest first.
    func every(_ days: Int, from first: Date, count: Int, inUTC: Bool = false) -> [Publication] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return (0..<count).map {
            publication(calendar.date(byAdding: .day, value: $0 * days, to: first)!, inUTC: inUTC)
        }
    }
}

func learnedModel(_ publications: [Publication], now: Date, declared: DeclaredSchedule? = nil) -> PublicationModel {
    PublicationModel.learn(PublicationHistory(publications, now: now), declared: declared, now: now)
}

let shipped = SchedulePolicy()

func decide(_ model: PublicationModel?, at now: Date, maxAge: Int? = nil, pushed: Bool = false) -> ScheduleDecision {
    FeedScheduler.decide(
        ScheduleInput(now: now, result: .success, model: model, pushed: pushed, maxAge: maxAge, jitter: 0),
        policy: shipped)
}

/// The first check placed for an expected episode from `now` on, checking as decided and finding nothing new.
func slotCheck(_ model: PublicationModel, from now: Date) -> ScheduleDecision {
    var now = now
    for _ in 0..<500 {
        let decision = decide(model, at: now)
        if case .expected = decision.reason { return decision }
        now = decision.nextCheckAt!
    }
    return decide(model, at: now)
}

func expected(_ decision: ScheduleDecision) -> ExpectedEpisode? {
    if case .expected(let expected) = decision.reason { return expected }
    return nil
}

struct PublicationModelTests {
    let newYork = Local("America/New_York")

    @Test func aWeeklyShowIsExpectedAtItsTimeOfWeek() throws {
        // Tuesdays at 06:00 New York time, 12 weeks, the last on 2024-11-26.
        let history = newYork.every(7, from: newYork.date(2024, 9, 10, 6), count: 12)
        let sunday = newYork.date(2024, 12, 1, 12)
        let learned = learnedModel(history, now: sunday)
        #expect(learned.slots.count == 1)
        let slot = try #require(learned.slots.first)
        #expect(slot.rhythm == .weekly && slot.second == 6 * 3600 && slot.days == .weekly(mask: 1 << 2))
        let decision = slotCheck(learned, from: sunday)
        let tuesday = newYork.date(2024, 12, 3, 6)
        #expect(expected(decision)?.at == tuesday)
        #expect(expected(decision)?.onTime == 12 && expected(decision)?.ofLast == 12)
        // Checked at the interval until then, and a minute after 06:00.
        #expect(decision.nextCheckAt! == tuesday.addingTimeInterval(60))
        let twoHoursBefore = decide(learned, at: tuesday.addingTimeInterval(-2 * 3600))
        #expect(twoHoursBefore.nextCheckAt == tuesday.addingTimeInterval(60), "not every 15 min, not tomorrow")
        #expect(expected(twoHoursBefore)?.late == false)
    }

    @Test func aDaylightSavingChangeDoesNotMoveTheSlot() throws {
        // 06:00 in New York each Tuesday across the November change, written with its offset, and in GMT.
        for inUTC in [false, true] {
            let history = newYork.every(7, from: newYork.date(2024, 6, 4, 6), count: 26, inUTC: inUTC)
            let learned = learnedModel(history, now: newYork.date(2024, 12, 1, 12))
            #expect(learned.zone.identifier != "UTC", "the zone is learned whether the feed writes it or not")
            #expect(learned.slots.first?.second == 6 * 3600)
            // After the change as before it: 06:00 local, now 11:00 UTC, not 10:00.
            #expect(
                expected(slotCheck(learned, from: newYork.date(2024, 12, 1, 12)))?.at == newYork.date(2024, 12, 3, 6))
        }
    }

    @Test func weekdaysDailyEveryOtherWeekAndMonthlyAreTold() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = newYork.zone
        let start = newYork.date(2024, 9, 2, 7)  // a Monday
        let workdays = (0..<56).compactMap { offset -> Publication? in
            let day = calendar.date(byAdding: .day, value: offset, to: start)!
            let weekday = calendar.component(.weekday, from: day)
            return weekday == 1 || weekday == 7 ? nil : newYork.publication(day)
        }
        let friday = newYork.date(2024, 10, 25, 9)
        let weekdays = learnedModel(workdays, now: friday)
        #expect(weekdays.slots.map(\.rhythm) == [.weekdays])
        #expect(
            expected(slotCheck(weekdays, from: friday))?.at == newYork.date(2024, 10, 28, 7), "Monday, not Saturday")

        let daily = learnedModel(
            newYork.every(1, from: newYork.date(2024, 10, 1, 5), count: 30), now: newYork.date(2024, 10, 31, 6))
        #expect(daily.slots.map(\.rhythm) == [.daily])

        let biweekly = learnedModel(
            newYork.every(14, from: newYork.date(2024, 6, 5, 10), count: 12), now: newYork.date(2024, 11, 14, 12))
        #expect(biweekly.slots.map(\.rhythm) == [.biweekly])
        // The last was Wed 2024-11-06; the next is Wed 2024-11-20, not the 13th.
        #expect(
            expected(slotCheck(biweekly, from: newYork.date(2024, 11, 7, 12)))?.at == newYork.date(2024, 11, 20, 10))

        let monthly = learnedModel(
            (1...8).map { newYork.publication(newYork.date(2024, $0, 15, 9)) }, now: newYork.date(2024, 9, 1, 12))
        #expect(monthly.slots.map(\.rhythm) == [.monthly])
        #expect(expected(slotCheck(monthly, from: newYork.date(2024, 9, 1, 12)))?.at == newYork.date(2024, 9, 15, 9))
    }

    @Test func anIrregularFeedHasNoSlotAndIsCheckedWithinTheLongestInterval() {
        // 30 dates scattered over 150 days by a fixed stride: no two within 47 min of each other's time of day, so no
        // slot can form, and every run sees the same history.
        let base = newYork.date(2024, 6, 1, 0)
        let history = (0..<30).map { n in
            newYork.publication(base.addingTimeInterval(Double((n * 434_837) % (150 * 86_400))))
        }
        #expect(learnedModel(history, now: newYork.date(2024, 11, 1, 0)).slots.isEmpty)
        let now = newYork.date(2024, 11, 1, 0)
        let learned = learnedModel(history, now: now)
        let decision = decide(learned, at: now)
        #expect(decision.nextCheckAt!.timeIntervalSince(now) <= shipped.maxInterval)
        #expect(decision.nextCheckAt!.timeIntervalSince(now) >= shipped.minInterval)
    }

    @Test func aMovedSlotIsFollowedAndAHiatusDropsIt() {
        let old = newYork.every(7, from: newYork.date(2024, 7, 2, 6), count: 10)  // Tuesdays 06:00 to 2024-09-03
        let moved = newYork.every(7, from: newYork.date(2024, 9, 12, 18), count: 3)  // Thursdays 18:00 from 09-12
        let learned = learnedModel(old + moved, now: newYork.date(2024, 9, 29, 12))
        #expect(learned.slots.contains { $0.days == .weekly(mask: 1 << 4) && $0.second == 18 * 3600 })
        // The old slot is still watched while it may come back, the new one already.
        #expect(expected(slotCheck(learned, from: newYork.date(2024, 10, 1, 8)))?.at == newYork.date(2024, 10, 3, 18))
        // Five more Thursdays on, the old slot has faded.
        let later = newYork.every(7, from: newYork.date(2024, 9, 12, 18), count: 8)
        #expect(
            learnedModel(old + later, now: newYork.date(2024, 11, 3, 12)).slots.map(\.days) == [.weekly(mask: 1 << 4)])

        let quiet = learnedModel(old, now: newYork.date(2024, 12, 1, 12))
        #expect(quiet.slots.isEmpty, "13 weeks without an episode: no slot to watch")
    }

    @Test func aLateEpisodeIsWaitedForUntilTheWindowClosesAndAnEpisodeSeenEndsIt() throws {
        let history = newYork.every(7, from: newYork.date(2024, 9, 10, 6), count: 12)
        let tuesday = newYork.date(2024, 12, 3, 6)
        let learned = learnedModel(history, now: tuesday.addingTimeInterval(60))
        let first = decide(learned, at: tuesday.addingTimeInterval(60))
        #expect(expected(first)?.late == true)
        #expect(first.nextCheckAt == tuesday.addingTimeInterval(60 + shipped.minInterval))
        // Checks stop once the window closes.
        let closed = decide(learned, at: tuesday.addingTimeInterval(3 * 3600))
        #expect(expected(closed)?.at != tuesday)
        // The episode seen at 06:01 ends the window: the next slot is next week's.
        let seen = try #require(
            learned.updated(adding: [newYork.publication(tuesday)], now: tuesday.addingTimeInterval(60)))
        let after = decide(seen, at: tuesday.addingTimeInterval(60))
        #expect(expected(after) == nil || expected(after)!.at == newYork.date(2024, 12, 10, 6))
        #expect(after.nextCheckAt! > tuesday.addingTimeInterval(60 + shipped.minInterval))
    }

    @Test func futureDatesAndBurstsAreNotPublications() {
        let now = newYork.date(2024, 12, 1, 12)
        let burst = (0..<50).map { _ in newYork.publication(newYork.date(2024, 1, 1, 0)) }
        let future = [newYork.publication(now.addingTimeInterval(7 * 86_400))]
        let history = PublicationHistory(burst + future, now: now)
        #expect(history.publications.count == 1, "a back catalogue dated at once is one publication; a future one none")
    }

    @Test func hintsNeverPostponeAnExpectedEpisode() {
        let history = newYork.every(7, from: newYork.date(2024, 9, 10, 6), count: 12)
        let before = newYork.date(2024, 12, 3, 5, 30)
        let decision = decide(learnedModel(history, now: before), at: before, maxAge: 3600)
        #expect(decision.nextCheckAt == newYork.date(2024, 12, 3, 6).addingTimeInterval(60))
    }

    @Test func aDeclaredScheduleGivesTheSlotUntilTheHistoryDoes() {
        let declared = DeclaredSchedule(rule: "FREQ=WEEKLY;BYDAY=TU", start: newYork.date(2024, 1, 2, 6))
        let now = newYork.date(2024, 12, 1, 12)
        let learned = learnedModel([], now: now, declared: declared)
        let decision = slotCheck(learned, from: now)
        #expect(expected(decision)?.rhythm == .declared)
        #expect(expected(decision)?.at == newYork.date(2024, 12, 3, 6))
    }

    @Test func aFeedWhosePingsAreSeenIsPolledOnlyAsASafetyNet() {
        let history = newYork.every(7, from: newYork.date(2024, 9, 10, 6), count: 12)
        let now = newYork.date(2024, 12, 1, 12)
        let decision = decide(learnedModel(history, now: now), at: now, pushed: true)
        #expect(decision.reason == .cadence(interval: .seconds(shipped.maxInterval), basis: .pushed))
    }

    @Test func theModelIsStoredAndReadBackAsItWas() throws {
        let history = newYork.every(7, from: newYork.date(2024, 9, 10, 6), count: 12)
        let declared = DeclaredSchedule(rule: "FREQ=WEEKLY", start: newYork.date(2024, 1, 2, 6))
        let learned = learnedModel(history, now: newYork.date(2024, 12, 1, 12), declared: declared)
        let stored = try #require(PublicationModel(storedText: learned.storedText))
        #expect(stored == learned)
        #expect(PublicationModel(storedText: "{\"v\":99}") == nil)
        #expect(PublicationModel(storedText: "not json") == nil)
    }

    @Test func aModelIsLearnedAgainWhenSomethingChangesOrADayHasPassed() {
        let history = newYork.every(7, from: newYork.date(2024, 9, 10, 6), count: 12)
        let now = newYork.date(2024, 12, 1, 12)
        let learned = learnedModel(history, now: now)
        #expect(learned.updated(adding: [], now: now.addingTimeInterval(3600)) == nil)
        #expect(learned.updated(adding: [history[0]], now: now.addingTimeInterval(3600)) == nil, "nothing new")
        #expect(learned.updated(adding: [], now: now.addingTimeInterval(25 * 3600)) != nil)
    }
}
