import Foundation

extension FeedDate {
    // MARK: - asctime: Sun Jan  4 16:29:06 2004, Sun Jan 4 16:29:06 +0100 2004, Sun Jan 4 16:29:06 PST 2004

    static func parseAsctime(_ t: [Token]) -> Date? {
        var i = 0
        if case .word(let w) = t.first, weekday(w) { i = 1 }
        guard i + 1 < t.count, case .word(let name) = t[i], let month = monthNumber(name),
            case .number(let day, let dayDigits) = t[i + 1],
            dayDigits <= 2
        else { return nil }
        i += 2
        guard let (hour, minute, second, fraction) = parseClock(t, from: &i) else { return nil }
        var offset = 0
        if i < t.count, case .number = t[i] {
            // No zone before the year.
        } else {
            guard let zone = parseZone(t, from: &i) else { return nil }
            offset = zone
        }
        guard i < t.count, case .number(let year, 4) = t[i] else { return nil }
        i += 1
        if i < t.count {
            // A zone after the year ("… 2004 GMT"), once.
            guard offset == 0, let zone = parseZone(t, from: &i), i == t.count else { return nil }
            offset = zone
        }
        return makeDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
            .map { $0.addingTimeInterval(fraction) }
    }

    // MARK: - RFC 822 / 2822 and variants: [Weekday,] D Month YYYY HH:MM[:SS] [zone]

    static func parseRFC822(_ tokens: [Token]) -> Date? {
        var t = tokens[...]
        // Drop a leading weekday (any, even the wrong one).
        if case .word(let w) = t.first, weekday(w) { t = t.dropFirst() }
        var day: Int?
        var month: Int?
        var year: Int?
        // Day and month in either order: "1 May 2024", "May 1 2024", "May 1, 2024".
        for _ in 0..<2 {
            guard let token = t.first else { return nil }
            switch token {
            case .number(let n, let digits) where day == nil && digits <= 2:
                day = n
            case .word(let w) where month == nil:
                guard let m = monthNumber(w) else { return nil }
                month = m
            default:
                return nil
            }
            t = t.dropFirst()
            if case .symbol(let s) = t.first, s == "-" || s == "/" || s == "." { t = t.dropFirst() }
        }
        guard let d = day, let m = month, case .number(let y, let yearDigits) = t.first else { return nil }
        t = t.dropFirst()
        switch yearDigits {
        case 4: year = y
        case 2: year = y < 50 ? 2000 + y : 1900 + y
        case 3: year = y + 1900
        default: return nil
        }
        var hour = 0
        var minute = 0
        var second = 0
        var fraction = 0.0
        var offset = 0
        if case .word(let w) = t.first, w == "at" { t = t.dropFirst() }
        if case .number(let h, _) = t.first {
            var rest = Array(t)
            guard rest.count >= 3, case .symbol(":") = rest[1], case .number(let mi, _) = rest[2] else { return nil }
            hour = h
            minute = mi
            var i = 3
            if i + 1 < rest.count, case .symbol(":") = rest[i], case .number(let s, _) = rest[i + 1] {
                second = s
                i += 2
                if let f = parseFraction(rest, from: &i) { fraction = f }
            }
            if i < rest.count, case .word(let w) = rest[i], w == "am" || w == "pm" {
                guard hour >= 1 && hour <= 12 else { return nil }
                hour = hour % 12 + (w == "pm" ? 12 : 0)
                i += 1
            }
            guard let zone = parseZone(rest, from: &i) else { return nil }
            offset = zone
            // A trailing "(PDT)" style comment or a repeated zone name is tolerated.
            while i < rest.count {
                switch rest[i] {
                case .symbol("("), .symbol(")"), .word: i += 1
                default: return nil
                }
            }
            rest.removeAll()
        } else if !t.isEmpty {
            var rest = Array(t)
            var i = 0
            guard let zone = parseZone(rest, from: &i), i == rest.count else { return nil }
            offset = zone
            rest.removeAll()
        }
        return makeDate(year: year!, month: m, day: d, hour: hour, minute: minute, second: second, offset: offset)
            .map { $0.addingTimeInterval(fraction) }
    }

    /// Reads an optional zone at `i`: `Z`, a name, or `±HH[:]MM` / `±HH`. Returns the offset in seconds east of UTC
    /// (0 when there is none), or nil when what is there is not a zone.
    static func parseZone(_ t: [Token], from i: inout Int) -> Int? {
        guard i < t.count else { return 0 }
        switch t[i] {
        case .word("etc"):
            return parseEtcZone(t, from: &i)
        case .word(let w):
            if let hours = zoneOffsets[w] {
                i += 1
                // "GMT+0100", "UTC-5"
                if i < t.count, case .symbol(let sign) = t[i], sign == "+" || sign == "-" {
                    var j = i
                    if let numeric = parseNumericOffset(t, from: &j) {
                        i = j
                        return numeric
                    }
                }
                return Int(hours * 3600)
            }
            return nil
        case .symbol(let sign) where sign == "+" || sign == "-":
            return parseNumericOffset(t, from: &i)
        default:
            return nil
        }
    }

    /// `Etc/UTC`, `Etc/GMT`, `Etc/GMT+5` (five hours *west*: the tz database's POSIX-style sign), `Etc/GMT-14`.
    static func parseEtcZone(_ t: [Token], from i: inout Int) -> Int? {
        guard i + 2 < t.count, case .symbol("/") = t[i + 1], case .word(let name) = t[i + 2] else { return nil }
        var j = i + 3
        switch name {
        case "utc", "uct", "ut", "zulu", "universal", "greenwich", "z":
            i = j
            return 0
        case "gmt":
            var hours = 0
            if j + 1 < t.count, case .symbol(let sign) = t[j], sign == "+" || sign == "-",
                case .number(let n, let digits) = t[j + 1], digits <= 2
            {
                guard n <= 14 else { return nil }
                hours = sign == "+" ? -n : n
                j += 2
            } else if j < t.count, case .number(0, _) = t[j] {
                j += 1  // Etc/GMT0
            }
            i = j
            return hours * 3600
        default:
            return nil
        }
    }

    static func parseNumericOffset(_ t: [Token], from i: inout Int) -> Int? {
        guard case .symbol(let sign) = t[i], i + 1 < t.count, case .number(let n, let digits) = t[i + 1] else {
            return nil
        }
        var hours = 0
        var minutes = 0
        i += 2
        switch digits {
        case 4: (hours, minutes) = (n / 100, n % 100)
        case 3: (hours, minutes) = (n / 100, n % 100)
        case 1, 2:
            hours = n
            if i + 1 < t.count, case .symbol(":") = t[i], case .number(let m, 2) = t[i + 1] {
                minutes = m
                i += 2
            }
        default: return nil
        }
        guard hours <= 14, minutes < 60 else { return nil }
        let total = hours * 3600 + minutes * 60
        return sign == "-" ? -total : total
    }
}
