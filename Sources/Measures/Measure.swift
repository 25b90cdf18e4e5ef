/// How podfresh writes a span of time and an amount of bytes: one style, whichever module words the message.
///
/// Durations are compact and exact to the unit shown: `0.4s`, `45s`, `1m 30s`, `15m`, `6h 5m`, `1d 2h` (at most two
/// units, the smaller one left out when it is zero). Byte counts are decimal, as `df -H`, `--max-feed-size` and
/// download sizes are usually given: `512 B`, `1.5 kB`, `50 MB`, `12.3 MB`, `3.1 GB`.
public enum Measure {
    /// A span of time: `0.4s`, `45s`, `1m 30s`, `6h`, `1d 2h` (negative spans read as zero).
    public static func duration(seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0s" }
        let tenths = (seconds * 10).rounded() / 10
        if tenths < 60 {
            return tenths == tenths.rounded()
                ? "\(Int(tenths))s" : "\(Int(tenths)).\(Int((tenths * 10).rounded()) % 10)s"
        }
        let whole = Int(min(seconds, 1e15).rounded())
        func pair(_ big: Int, _ bigUnit: String, _ small: Int, _ smallUnit: String) -> String {
            small == 0 ? "\(big)\(bigUnit)" : "\(big)\(bigUnit) \(small)\(smallUnit)"
        }
        if whole < 3600 { return pair(whole / 60, "m", whole % 60, "s") }
        if whole < 86_400 { return pair(whole / 3600, "h", whole % 3600 / 60, "m") }
        return pair(whole / 86_400, "d", whole % 86_400 / 3600, "h")
    }

    /// A span of time given as a `Duration`.
    public static func duration(_ duration: Duration) -> String {
        let parts = duration.components
        return Self.duration(seconds: Double(parts.seconds) + Double(parts.attoseconds) / 1e18)
    }

    /// An amount of bytes: `512 B`, `1.5 kB`, `50 MB`, `12.3 MB` (one decimal, left out when it is zero).
    public static func bytes(_ count: Int64) -> String {
        if count < 1000 { return "\(max(count, 0)) B" }
        let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
        var value = Double(count) / 1000
        var unit = 0
        // Past 999.95 of a unit, one decimal would round up to "1000.0": the next unit reads better.
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return (tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)") + " " + units[unit]
    }

    /// An amount of bytes given as an `Int`.
    public static func bytes(_ count: Int) -> String { bytes(Int64(count)) }

    /// A transfer rate: `2.1 MB/s`.
    public static func rate(bytesPerSecond: Double) -> String {
        bytes(Int64(max(0, min(bytesPerSecond, 9e18)))) + "/s"
    }
}
