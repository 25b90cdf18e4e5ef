import FeedModels
import Foundation

/// The checks a slot's window holds, and the next of them for a model.
enum SlotWindows {
    /// A publication this long before a window opens still counts as its episode (an early one).
    static let earlyGrace: TimeInterval = 30 * 60

    /// The next window check after `now` (at least `minInterval` later), with the episode it is for; nil when the
    /// model has no slot.
    static func nextCheck(
        _ model: PublicationModel, now: Date, policy: SchedulePolicy, jitter: Double
    ) -> (at: Date, expected: ExpectedEpisode)? {
        let slots = model.activeSlots
        guard !slots.isEmpty else { return nil }
        let zone = model.zone
        let today = LocalDays.floorDiv(zone.localSeconds(now), 86_400)
        let earliest = now.addingTimeInterval(policy.minInterval - 1)
        let newest = model.history.newest?.at
        let wideLoad = slots.filter(\.isWide).reduce(0) { $0 + Double($1.late - $1.early) * $1.perWeek }
        var best: (at: Date, expected: ExpectedEpisode)?
        for slot in slots {
            for day in (today - 1)...(today + horizon(slot)) where slot.recurs(on: day) {
                let expected = zone.instant(localSeconds: day * 86_400 + slot.second)
                if let best, expected.addingTimeInterval(Double(slot.early) - policy.slotLead) > best.at { break }
                let points = checks(
                    expected: expected, slot: slot, policy: policy, jitter: jitter, wideLoad: wideLoad)
                guard let last = points.last, last >= earliest else { continue }
                let opens = points[0].addingTimeInterval(-earlyGrace)
                if let newest, newest >= opens { continue }
                guard let point = points.first(where: { $0 >= earliest }) else { continue }
                if best == nil || point < best!.at {
                    let from = slot.isWide ? expected.addingTimeInterval(Double(slot.early)) : expected
                    let until = slot.isWide ? expected.addingTimeInterval(Double(slot.late)) : nil
                    best = (
                        point,
                        ExpectedEpisode(
                            at: from, rhythm: slot.rhythm, onTime: slot.onTime, ofLast: slot.ofLast,
                            late: point > (until ?? expected).addingTimeInterval(policy.slotSettle + 30), until: until)
                    )
                }
                break
            }
        }
        return best
    }

    /// Days ahead to look for a slot's next day.
    static func horizon(_ slot: Slot) -> Int {
        switch slot.days {
        case .weekly: 8
        case .biweekly: 15
        case .monthly: 63
        case .everyDays(let interval, _): interval + 1
        }
    }

    /// A wide slot's window is checked every this many seconds at most often …
    static let wideStep: TimeInterval = 10 * 60
    /// … and a feed's wide slots with at most this many checks a week in all, their steps growing to fit.
    static let wideChecksPerWeek = 56.0

    /// A window's checks, in order: before the expected time when episodes have come early (or `slotLead` asks),
    /// `slotSettle` after it, then `minInterval` later, twice that, four times …, until `slotTail` after the latest
    /// an episode has come. A wide slot is checked every ``wideStep`` (or wider, within ``wideChecksPerWeek``) from its
    /// earliest episode to its latest, and then the same way; `wideLoad` is the seconds of wide windows the feed has
    /// a week.
    static func checks(
        expected: Date, slot: Slot, policy: SchedulePolicy, jitter: Double, wideLoad: Double = 0
    ) -> [Date] {
        let settle = expected.addingTimeInterval(policy.slotSettle + 30 * jitter)
        let first = expected.addingTimeInterval(Double(slot.early) - policy.slotLead)
        let end = expected.addingTimeInterval(Double(slot.late) + policy.slotTail)
        var points: [Date]
        var at: Date
        if slot.isWide {
            // Episodes spread over hours: look every `wideStep` until the latest one has come, then as for any slot.
            let step = max(policy.minInterval, wideStep, wideLoad / wideChecksPerWeek)
            at = min(first.addingTimeInterval(policy.slotSettle + 30 * jitter), settle)
            points = [at]
            while at.addingTimeInterval(step) <= expected.addingTimeInterval(Double(slot.late)) {
                at = at.addingTimeInterval(step)
                points.append(at)
            }
        } else {
            points = first.addingTimeInterval(policy.minInterval) <= settle ? [first, settle] : [settle]
            at = settle
        }
        var step = policy.minInterval
        while at.addingTimeInterval(step) <= end {
            at = at.addingTimeInterval(step)
            points.append(at)
            step *= 2
        }
        return points
    }
}
