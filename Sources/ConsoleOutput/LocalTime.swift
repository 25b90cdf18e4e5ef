import FeedParsing
public import Foundation

/// Times in text output, in the local time zone (`TZ`; ``TimeZone/current``): RFC 3339 with the zone's offset,
/// `2026-12-07T23:30:00+01:00`, or `…Z` where the zone is UTC. JSON keeps UTC (``RFC3339``).
public enum LocalTime {
    /// `date` in `zone` with whole seconds and its offset: `2026-12-07T23:30:00+01:00`; `…Z` at offset 0.
    public static func string(_ date: Date, zone: TimeZone = .current) -> String {
        let offset = zone.secondsFromGMT(for: date)
        let utc = RFC3339.string(from: date.addingTimeInterval(Double(offset)))
        guard offset != 0 else { return utc }
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        return String(utc.dropLast()) + sign + twoDigits(minutes / 60) + ":" + twoDigits(minutes % 60)
    }

    /// The local calendar day of `date`: `2026-12-07`.
    public static func day(_ date: Date, zone: TimeZone = .current) -> String {
        String(string(date, zone: zone).prefix(10))
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
