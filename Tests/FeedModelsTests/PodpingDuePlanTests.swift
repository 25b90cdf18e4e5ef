import FeedModels
import Foundation
import Testing

/// When a believed ping makes a feed due (``PodpingDuePlan``), the same in every store.
struct PodpingDuePlanTests {
    let now = Date(timeIntervalSince1970: 1_732_581_663)

    @Test func aFeedNotCheckedSinceThePingIsDueNow() {
        let due = PodpingDuePlan.dueAt(
            ping: now.addingTimeInterval(-2), now: now, lastCheckedAt: now.addingTimeInterval(-3600),
            nextCheckAt: now.addingTimeInterval(3600), isGone: false, cooldown: 30)
        #expect(due == now)
    }

    @Test func aFeedCheckedWellAfterThePingWasWrittenNeedsNoFetch() {
        let due = PodpingDuePlan.dueAt(
            ping: now.addingTimeInterval(-60), now: now, lastCheckedAt: now.addingTimeInterval(-10),
            nextCheckAt: now.addingTimeInterval(3600), isGone: false, cooldown: 30)
        #expect(due == nil)
    }

    @Test func aFeedCheckedAroundThePingsBlockIsCheckedAgainAfterTheCooldown() {
        // Block times are whole seconds of the chain's clock: a check a moment after the block may predate the change.
        let due = PodpingDuePlan.dueAt(
            ping: now.addingTimeInterval(-10), now: now, lastCheckedAt: now.addingTimeInterval(-9),
            nextCheckAt: now.addingTimeInterval(3600), isGone: false, cooldown: 30)
        #expect(due == now.addingTimeInterval(21))
    }

    @Test func aFeedCheckedJustBeforeThePingWaitsOutTheCooldown() {
        let due = PodpingDuePlan.dueAt(
            ping: now.addingTimeInterval(-1), now: now, lastCheckedAt: now.addingTimeInterval(-10),
            nextCheckAt: now.addingTimeInterval(3600), isGone: false, cooldown: 30)
        #expect(due == now.addingTimeInterval(20))
    }

    @Test func aFeedAlreadyDueSoonerOrGoneIsLeftAlone() {
        #expect(
            PodpingDuePlan.dueAt(
                ping: now, now: now, lastCheckedAt: nil, nextCheckAt: now.addingTimeInterval(-5), isGone: false,
                cooldown: 30) == nil)
        #expect(
            PodpingDuePlan.dueAt(
                ping: now, now: now, lastCheckedAt: nil, nextCheckAt: nil, isGone: false, cooldown: 30) == nil,
            "never checked: it is due already")
        #expect(
            PodpingDuePlan.dueAt(
                ping: now, now: now, lastCheckedAt: nil, nextCheckAt: now.addingTimeInterval(60), isGone: true,
                cooldown: 30) == nil)
    }

    // MARK: - A ping during a check

    @Test func aPingRecordedWhileACheckWasInFlightLeavesTheFeedDueAfterTheCooldown() {
        // The check started at `now`; the ping for a block a second later was recorded two seconds later.
        let mark = PodpingDuePlan.recheckBefore(ping: now.addingTimeInterval(1), recordedAt: now.addingTimeInterval(2))
        #expect(mark == now.addingTimeInterval(2))
        let due = PodpingDuePlan.dueAfterCheck(
            startedAt: now, planned: now.addingTimeInterval(3600), recheckBefore: mark, cooldown: 30)
        #expect(due == now.addingTimeInterval(30))
    }

    @Test func aPingRecordedBeforeTheCheckStartedIsWhatTheCheckWasFor() {
        let mark = PodpingDuePlan.recheckBefore(
            ping: now.addingTimeInterval(-3), recordedAt: now.addingTimeInterval(-1))
        #expect(
            PodpingDuePlan.dueAfterCheck(
                startedAt: now, planned: now.addingTimeInterval(3600), recheckBefore: mark, cooldown: 30) == nil)
    }

    @Test func aCheckStartedWellAfterThePingsBlockSawTheChangeEvenIfThePingWasReadLater() {
        // A reader catching up records an old ping while a check that started long after its block is in flight.
        let mark = PodpingDuePlan.recheckBefore(
            ping: now.addingTimeInterval(-600), recordedAt: now.addingTimeInterval(5))
        #expect(mark == now.addingTimeInterval(-600 + PodpingDuePlan.checkedAfterMargin))
        #expect(
            PodpingDuePlan.dueAfterCheck(
                startedAt: now, planned: now.addingTimeInterval(3600), recheckBefore: mark, cooldown: 30) == nil)
    }

    @Test func theScheduleWinsWhenItIsSoonerAndNoPingMeansThePlan() {
        let mark = now.addingTimeInterval(2)
        #expect(
            PodpingDuePlan.dueAfterCheck(
                startedAt: now, planned: now.addingTimeInterval(10), recheckBefore: mark, cooldown: 30) == nil)
        #expect(
            PodpingDuePlan.dueAfterCheck(startedAt: now, planned: nil, recheckBefore: mark, cooldown: 30) == nil,
            "no next check: due at once already")
        #expect(
            PodpingDuePlan.dueAfterCheck(
                startedAt: now, planned: now.addingTimeInterval(3600), recheckBefore: nil, cooldown: nil) == nil)
    }
}
