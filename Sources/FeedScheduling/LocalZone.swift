import Foundation

/// The time zone a feed's publisher schedules in, as podfresh guesses it: a zone whose offsets match the ones the
/// feed writes in its dates, or, for a feed that writes every date in UTC, the zone whose daylight-saving changes best
/// explain when it publishes (``PublicationModel/learn(_:declared:now:)`` tries each).
public struct LocalZone: Sendable, Hashable {
    /// An IANA identifier (`America/New_York`), `UTC`, or a fixed offset written `fixed:+3600`.
    public let identifier: String
    let table: OffsetTable

    public static let utc = LocalZone(identifier: "UTC", table: OffsetTable(fixed: 0))

    init(identifier: String, table: OffsetTable) {
        self.identifier = identifier
        self.table = table
    }

    public static func == (a: LocalZone, b: LocalZone) -> Bool { a.identifier == b.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    /// The zone stored as `identifier`; UTC for one this machine does not know.
    public init(identifier: String) {
        if identifier == Self.utc.identifier {
            self = .utc
        } else if let known = (Self.writtenCandidates + Self.ruleFamilies).first(where: { $0.identifier == identifier })
        {
            self = known
        } else if identifier.hasPrefix("fixed:"), let seconds = Int(identifier.dropFirst(6)), abs(seconds) <= 18 * 3600
        {
            self = .fixed(seconds)
        } else if identifier != "UTC", let zone = TimeZone(identifier: identifier) {
            self.init(identifier: identifier, table: OffsetTable(zone))
        } else {
            self = .utc
        }
    }

    /// A zone `seconds` east of UTC all year.
    static func fixed(_ seconds: Int) -> LocalZone {
        seconds == 0
            ? .utc
            : LocalZone(identifier: "fixed:\(seconds >= 0 ? "+" : "")\(seconds)", table: OffsetTable(fixed: seconds))
    }

    /// Seconds east of UTC at `date`.
    func offset(at date: Date) -> Int { table.offset(at: date.timeIntervalSince1970) }

    /// Local seconds since 1970-01-01T00:00 (local) of `date`.
    func localSeconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down)) + offset(at: date)
    }

    /// The instant whose local time is `local` seconds since 1970-01-01T00:00 (local); in a daylight-saving gap, the
    /// hour after it.
    func instant(localSeconds local: Int) -> Date {
        let guess = Date(
            timeIntervalSince1970: TimeInterval(local - offset(at: Date(timeIntervalSince1970: Double(local)))))
        return Date(timeIntervalSince1970: TimeInterval(local - offset(at: guess)))
    }

    /// Zones whose daylight-saving rules differ, tried for a feed that writes its dates in UTC (or names no zone);
    /// UTC first, so that it wins a tie.
    static let ruleFamilies: [LocalZone] =
        [.utc]
        + named([
            "America/New_York", "America/Chicago", "America/Los_Angeles", "Europe/London", "Europe/Berlin",
            "Australia/Sydney", "Pacific/Auckland",
        ])

    /// Zones tried against the offsets a feed writes: the daylight-saving ones first, so that a history seen in one
    /// season only takes the common zone with that offset.
    static let writtenCandidates: [LocalZone] = named([
        "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Anchorage",
        "America/Halifax", "America/St_Johns", "Europe/London", "Europe/Berlin", "Europe/Helsinki", "Europe/Lisbon",
        "Australia/Sydney", "Australia/Adelaide", "Pacific/Auckland", "America/Santiago", "America/Phoenix",
        "America/Sao_Paulo", "America/Mexico_City", "Europe/Moscow", "Europe/Istanbul", "Asia/Kolkata",
        "Asia/Shanghai", "Asia/Tokyo", "Australia/Brisbane", "Australia/Perth", "Africa/Johannesburg",
    ])

    private static func named(_ identifiers: [String]) -> [LocalZone] {
        identifiers.compactMap { id in
            TimeZone(identifier: id).map { LocalZone(identifier: id, table: OffsetTable($0)) }
        }
    }
}

/// A zone's offsets from 1990 to 2060 as a table of transitions: learning a model asks for thousands of offsets, and
/// a binary search costs a fraction of asking `TimeZone` each time.
final class OffsetTable: Sendable {
    /// Instants (seconds since 1970) at which the offset changes, in order.
    let transitions: [Double]
    /// `offsets[0]` holds before the first transition, `offsets[i + 1]` from `transitions[i]` on.
    let offsets: [Int]

    init(fixed seconds: Int) {
        transitions = []
        offsets = [seconds]
    }

    init(_ zone: TimeZone) {
        var transitions: [Double] = []
        var offsets: [Int] = []
        var at = Date(timeIntervalSince1970: 631_152_000)  // 1990-01-01
        let end = Date(timeIntervalSince1970: 2_840_140_800)  // 2060-01-01
        offsets.append(zone.secondsFromGMT(for: at))
        while let next = zone.nextDaylightSavingTimeTransition(after: at), next < end, transitions.count < 400 {
            transitions.append(next.timeIntervalSince1970)
            offsets.append(zone.secondsFromGMT(for: next))
            at = next
        }
        self.transitions = transitions
        self.offsets = offsets
    }

    func offset(at seconds: Double) -> Int {
        var low = 0
        var high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid] <= seconds { low = mid + 1 } else { high = mid }
        }
        return offsets[low]
    }
}

/// Calendar arithmetic on local day numbers (days since 1970-01-01), without `Calendar`.
enum LocalDays {
    /// 0 is Sunday, 6 is Saturday.
    static func weekday(_ day: Int) -> Int { ((day % 7) + 7 + 4) % 7 }

    /// Floor division that rounds towards minus infinity.
    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// The civil date of `day` (Howard Hinnant's algorithm).
    static func civil(_ day: Int) -> (year: Int, month: Int, day: Int) {
        let z = day + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The day number of a civil date.
    static func day(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Months since year 0, for stepping month by month.
    static func monthIndex(_ day: Int) -> Int {
        let c = civil(day)
        return c.year * 12 + (c.month - 1)
    }

    /// Days in the month with ``monthIndex(_:)`` `index`.
    static func daysInMonth(_ index: Int) -> Int {
        let year = floorDiv(index, 12)
        let month = index - year * 12 + 1
        let next =
            month == 12 ? Self.day(year: year + 1, month: 1, day: 1) : Self.day(year: year, month: month + 1, day: 1)
        return next - Self.day(year: year, month: month, day: 1)
    }
}
