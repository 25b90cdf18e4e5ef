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
}
