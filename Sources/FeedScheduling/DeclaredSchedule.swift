import FeedModels
public import Foundation

/// A feed's own word on when it publishes: `podcast:updateFrequency`'s `rrule` (RFC 5545) and `dtstart`.
///
/// With a `dtstart` it gives a slot outright (its time of day, and its weekday or day of the month where the rule
/// names none); `FREQ=DAILY|WEEKLY|MONTHLY` with `INTERVAL`, `BYDAY`, `BYMONTHDAY`, `BYHOUR` and `BYMINUTE` are
/// read. Without a `dtstart`, or with a rule it cannot place, it gives none.
public struct DeclaredSchedule: Sendable, Hashable {
    public var rule: String
    public var start: Date?

    public init(rule: String, start: Date?) {
        self.rule = rule
        self.start = start
    }

    /// The declared slot in `zone`'s local time, or nil.
    func slot(in zone: LocalZone) -> Slot? {
        guard let start else { return nil }
        var parts: [String: String] = [:]
        for part in rule.uppercased().split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { parts[pair[0]] = pair[1] }
        }
        let local = zone.localSeconds(start)
        let startDay = LocalDays.floorDiv(local, 86_400)
        var second = local - startDay * 86_400
        if let hour = parts["BYHOUR"].flatMap({ Int($0) }), (0..<24).contains(hour) {
            let minute = parts["BYMINUTE"].flatMap { Int($0) }.flatMap { (0..<60).contains($0) ? $0 : nil } ?? 0
            second = hour * 3600 + minute * 60
        }
        let interval = parts["INTERVAL"].flatMap { Int($0) }.map { min(max($0, 1), 366) } ?? 1
        let weekdays = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
        var mask = 0
        for day in (parts["BYDAY"] ?? "").split(separator: ",") {
            // `BYDAY=1MO` (the first Monday) is not a weekly day: its ordinal is left out and the weekday kept.
            if let index = weekdays.firstIndex(of: String(day.suffix(2))) { mask |= 1 << index }
        }
        let startWeekday = LocalDays.weekday(startDay)
        switch parts["FREQ"] {
        case "DAILY":
            if interval == 1 {
                let days = mask == 0 ? 0b111_1111 : mask
                return Slot(second: second, days: .weekly(mask: days), rhythm: .declared)
            }
            return Slot(second: second, days: .everyDays(interval: interval, anchor: startDay), rhythm: .declared)
        case "WEEKLY":
            if interval == 1 {
                return Slot(
                    second: second, days: .weekly(mask: mask == 0 ? 1 << startWeekday : mask), rhythm: .declared)
            }
            let weekday = mask == 0 ? startWeekday : mask.trailingZeroBitCount
            let first = startDay + ((weekday - startWeekday) + 7) % 7
            if interval == 2 {
                let parity = abs(LocalDays.floorDiv(first, 7) % 2)
                return Slot(second: second, days: .biweekly(weekday: weekday, parity: parity), rhythm: .declared)
            }
            return Slot(second: second, days: .everyDays(interval: 7 * interval, anchor: first), rhythm: .declared)
        case "MONTHLY":
            guard interval == 1 else { return nil }
            let day = parts["BYMONTHDAY"].flatMap { Int($0) }.flatMap { (1...31).contains($0) ? $0 : nil }
            return Slot(second: second, days: .monthly(day: day ?? LocalDays.civil(startDay).day), rhythm: .declared)
        default:
            return nil
        }
    }
}
