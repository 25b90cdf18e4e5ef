import FeedModels
import FeedScheduling
import Foundation
import Testing

/// The checks placed from `start` until `end`, checking as decided and finding nothing new.
private func checks(_ model: PublicationModel, from start: Date, until end: Date) -> [Date] {
    var now = start
    var result: [Date] = []
    while now < end {
        now = decide(model, at: now).nextCheckAt!
        result.append(now)
    }
    return result
}

struct SpreadAndBurstTests {
    let newYork = Local("America/New_York")

    @Test func aShowThatPublishesOverAnEveningIsWatchedAcrossIt() throws {
        // Fridays, twelve weeks, some time between 19:05 and 21:25 New York time.
        let minutes: [Int] = [1145, 1240, 1190, 1280, 1210, 1170, 1265, 1225, 1155, 1255, 1180, 1285]
        let history = minutes.enumerated().map { week, minute in
            newYork.publication(newYork.date(2024, 9, 6 + 7 * week, 0).addingTimeInterval(Double(minute) * 60))
        }
        let friday = newYork.date(2024, 11, 29, 0)
        let learned = learnedModel(history, now: friday.addingTimeInterval(-86_400))
        let slot = try #require(learned.slots.first)
        #expect(learned.slots.count == 1 && slot.days == .weekly(mask: 1 << 5))
        #expect(slot.late - slot.early >= 2 * 3600, "the slot spans the evening, not one minute of it")

        let placed = checks(
            learned, from: friday.addingTimeInterval(17 * 3600), until: friday.addingTimeInterval(23 * 3600))
        let opening = friday.addingTimeInterval(Double(19 * 60 + 5) * 60)
        let closing = friday.addingTimeInterval(Double(21 * 60 + 25) * 60)
        let first = try #require(placed.first { $0 >= opening.addingTimeInterval(-30 * 60) })
        #expect(first <= opening.addingTimeInterval(2 * 60), "looking from the earliest an episode has come")
        // However the evening goes, the episode is found within ten minutes of its coming.
        let inside = placed.filter { $0 >= first && $0 <= closing.addingTimeInterval(10 * 60) }
        for (a, b) in zip(inside, inside.dropFirst()) { #expect(b.timeIntervalSince(a) <= 10 * 60 + 1) }
        #expect(inside.last! >= closing)
        #expect(placed.count <= 24, "and not every five minutes all day: \(placed.count) checks")
    }

    @Test func aWideDailySlotKeepsItsChecksWithinAWeeklyBound() throws {
        // Every day for five weeks at a time between 08:00 and 14:00.
        let history = (0..<35).map { day in
            newYork.publication(newYork.date(2024, 10, 1 + day, 8).addingTimeInterval(Double((day * 97) % 360) * 60))
        }
        let now = newYork.date(2024, 11, 5, 0)
        let learned = learnedModel(history, now: now)
        #expect(learned.slots.contains { $0.rhythm == .daily && $0.late - $0.early >= 4 * 3600 })
        let placed = checks(learned, from: now, until: now.addingTimeInterval(7 * 86_400))
        // A week of a six-hour window at ten-minute steps would be 250 checks; the steps widen instead.
        #expect(placed.count <= 120, "\(placed.count) checks in a week")
        #expect(placed.count >= 7 * 6, "every day's window is still checked")
    }

    @Test func aFeedThatPublishesInBurstsIsCheckedSoonAfterItsLatest() throws {
        // Every third day, a burst of six items twenty minutes apart, starting at a different hour each time.
        let start = newYork.date(2024, 9, 1, 0)
        var bursty: [Publication] = []
        for burst in 0..<30 {
            let day = Double(burst) * 3 * 86_400
            let hour = Double((burst * 7) % 24) * 3600
            for item in 0..<6 {
                bursty.append(newYork.publication(start.addingTimeInterval(day + hour + Double(item) * 20 * 60)))
            }
        }
        let newest = try #require(bursty.last?.at)
        let now = newest.addingTimeInterval(10 * 60)
        let soon = decide(learnedModel(bursty, now: now), at: now)
        #expect(soon.nextCheckAt!.timeIntervalSince(now) <= 20 * 60, "the next item of a burst comes soon")

        // The same days with one item each: nothing says another comes soon.
        let single = stride(from: 0, to: bursty.count, by: 6).map { bursty[$0 + 5] }
        let steady = decide(learnedModel(single, now: now), at: now)
        #expect(steady.nextCheckAt!.timeIntervalSince(now) > 40 * 60)

        // Hours after the burst, the feed is checked at its ordinary rate again.
        let later = newest.addingTimeInterval(7 * 3600)
        let quiet = decide(learnedModel(bursty, now: later), at: later)
        #expect(quiet.nextCheckAt!.timeIntervalSince(later) > 40 * 60)
    }
}
