public import FeedModels
import Foundation

/// A recurring time at which a feed publishes, in its publisher's local time: a time of day, the days it recurs on,
/// how early and late its episodes have come, and how regular the feed has been on it.
public struct Slot: Sendable, Hashable {
    /// The days a slot recurs on.
    public enum Days: Sendable, Hashable {
        /// The weekdays in the mask (bit 0 Sunday … bit 6 Saturday), every week.
        case weekly(mask: Int)
        /// One weekday (0 Sunday … 6 Saturday) of every other week: the weeks whose ``LocalDays`` week number has
        /// this parity.
        case biweekly(weekday: Int, parity: Int)
        /// One day of every month (29–31 fall on the month's last day in a shorter month).
        case monthly(day: Int)
        /// Every `interval` days from the local day `anchor` (a declared `FREQ=DAILY;INTERVAL=n`).
        case everyDays(interval: Int, anchor: Int)
    }

    /// Seconds after local midnight.
    public var second: Int
    public var days: Days
    /// How much earlier than ``second`` episodes have come (0 or less, seconds).
    public var early: Int
    /// How much later than ``second`` episodes have come (0 or more, seconds).
    public var late: Int
    /// Of the last ``ofLast`` days the slot recurred on, on how many an episode came on time; nil when declared.
    public var onTime: Int?
    public var ofLast: Int?
    public var rhythm: ExpectedEpisode.Rhythm

    public init(
        second: Int, days: Days, early: Int = 0, late: Int = 0, onTime: Int? = nil, ofLast: Int? = nil,
        rhythm: ExpectedEpisode.Rhythm
    ) {
        self.second = second
        self.days = days
        self.early = min(early, 0)
        self.late = max(late, 0)
        self.onTime = onTime
        self.ofLast = ofLast
        self.rhythm = rhythm
    }

    static let mondayToFriday = 0b011_1110

    /// The rhythm a weekday mask reads as.
    static func rhythm(ofMask mask: Int) -> ExpectedEpisode.Rhythm {
        switch mask {
        case 0b111_1111: .daily
        case mondayToFriday: .weekdays
        default: .weekly
        }
    }

    /// Whether the slot recurs on local day `day`.
    func recurs(on day: Int) -> Bool {
        switch days {
        case .weekly(let mask): return mask & (1 << LocalDays.weekday(day)) != 0
        case .biweekly(let weekday, let parity):
            return LocalDays.weekday(day) == weekday && abs(LocalDays.floorDiv(day, 7) % 2) == parity
        case .monthly(let dayOfMonth):
            let civil = LocalDays.civil(day)
            let last = LocalDays.daysInMonth(civil.year * 12 + civil.month - 1)
            return civil.day == min(dayOfMonth, last)
        case .everyDays(let interval, let anchor):
            return interval > 0 && ((day - anchor) % interval + interval) % interval == 0
        }
    }

    /// Occurrences a week holds, for bounding how many windows a feed gets.
    var perWeek: Double {
        switch days {
        case .weekly(let mask): Double(mask.nonzeroBitCount)
        case .biweekly: 0.5
        case .monthly: 0.25
        case .everyDays(let interval, _): 7 / Double(max(1, interval))
        }
    }

    /// A slot whose episodes have come over more than this (seconds) is a wide one: an evening, not a minute.
    static let wideSpread = 60 * 60

    /// Whether the slot's episodes have come over hours rather than minutes.
    var isWide: Bool { late - early > Self.wideSpread }

    /// Whether a publication at local `second` of local `day` falls in the slot's window, widened by `margin` seconds
    /// either side, seen from either side of midnight.
    func covers(day: Int, second: Int, margin: Int) -> Bool {
        (day - 1...day + 1).contains { candidate in
            guard recurs(on: candidate) else { return false }
            let offset = (day - candidate) * 86_400 + second - self.second
            return offset >= early - margin && offset <= late + margin
        }
    }
}
