public import FeedModels
public import FeedParsing
public import Foundation
import Measures

/// How the reason for a feed's next check reads in `list`, `status` and outcomes: the one place each
/// ``ScheduleReason`` is worded.
public enum ScheduleReasonText {
    /// The reason on one line, not sanitised: `every 6h (no publishing rhythm yet)`, `backoff after 3 failures`,
    /// `Retry-After`; a sentence an older podfresh stored, as it was written.
    public static func line(_ reason: ScheduleReason, zone: TimeZone = .current) -> String {
        switch reason {
        case .expected(let expected): text(expected, zone: zone)
        case .cadence(let interval, let basis): "every \(Measure.duration(interval)) (\(text(basis)))"
        case .backoff(let failures): "backoff after \(failures) failure\(failures == 1 ? "" : "s")"
        case .retryAfter: "Retry-After"
        case .complete: "complete (itunes:complete)"
        case .gone: "gone (410)"
        case .networkOffline: "network offline"
        case .podping: "podping"
        case .syncServer: "added by sync"
        case .stored(let text): text
        }
    }

    /// What set a cadence's interval.
    static func text(_ basis: ScheduleReason.Basis) -> String {
        switch basis {
        case .noRhythmYet: "no publishing rhythm yet"
        case .medianGap(let episodes): "half the median gap of \(episodes) episodes"
        case .hint(let hint): text(hint)
        case .shortestAllowed: "the shortest interval allowed"
        case .longestAllowed: "the longest interval allowed"
        case .pushed: "its pings are seen: a safety net"
        case .publishingHours: "this hour of its week"
        }
    }

    /// `expected Tue 06:00 (weekly, 11 of the last 12 on time)`, `expected Fri 19:05–21:25 (weekly, …)` for a slot
    /// that spreads over hours; `late: expected …` once the time has passed. The
    /// time is in `zone` (the user's, `TZ`); the date is named too when it is more than six days from now.
    public static func text(_ expected: ExpectedEpisode, zone: TimeZone, now: Date = Date()) -> String {
        var slot = slotTime(expected.at, zone: zone, now: now)
        if let until = expected.until { slot += "–" + clockTime(until, zone: zone) }
        let when = "\(expected.late ? "late: " : "")expected \(slot)"
        let regularity =
            expected.onTime.flatMap { onTime in
                expected.ofLast.map { of in ", \(onTime) of the last \(of) on time" }
            } ?? ""
        switch expected.rhythm {
        case .declared: return "\(when) (as its podcast:updateFrequency says)"
        case .biweekly: return "\(when) (every other week\(regularity))"
        default: return "\(when) (\(expected.rhythm.rawValue)\(regularity))"
        }
    }

    /// The episode a check is placed for, as `list --json` gives it: `{"at": "…Z", "rhythm": "weekly", "on_time": 11,
    /// "of_last": 12, "late": false, "until": null}` (`until`: the latest of a slot that spreads over hours, with
    /// `at` its earliest); null when the check is not placed at a slot.
    public static func json(expectedIn reason: ScheduleReason?) -> JSONValue {
        guard case .expected(let expected) = reason else { return .null }
        return .object([
            ("at", .date(expected.at)), ("rhythm", .string(expected.rhythm.rawValue)),
            ("on_time", .int(expected.onTime)),
            ("of_last", .int(expected.ofLast)), ("late", .bool(expected.late)),
            ("until", .date(expected.until)),
        ])
    }

    /// `21:25`.
    static func clockTime(_ date: Date, zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
    }

    /// `Tue 06:00`, or `Tue 14 Jan 06:00` for a time more than six days away.
    static func slotTime(_ date: Date, zone: TimeZone, now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.weekday, .day, .month, .hour, .minute], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekday = weekdays[((c.weekday ?? 1) - 1 + 7) % 7]
        let time = String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
        guard abs(date.timeIntervalSince(now)) > 6 * 86_400 else { return "\(weekday) \(time)" }
        return "\(weekday) \(c.day ?? 1) \(months[((c.month ?? 1) - 1 + 12) % 12]) \(time)"
    }

    /// Who asked for the interval, as the header or element is spelled.
    static func text(_ hint: ScheduleReason.PollingHint) -> String {
        switch hint {
        case .maxAge: "Cache-Control max-age"
        case .expires: "Expires"
        case .ttl: "ttl"
        case .syndicationUpdatePeriod: "sy:updatePeriod"
        case .podcastUpdateFrequency: "podcast:updateFrequency"
        }
    }
}
