public import Foundation

/// Dates as real feeds write them: RFC 822/2822 and its many variants, ISO 8601 / RFC 3339 / W3C-DTF, and asctime.
///
/// Hand-written and allocation-light (no `DateFormatter`, which is slow and not safe to share). Accepts named zones
/// (`UT`, `GMT`, `Z`, US zones with or without the S/D letter (`EST`, `ET`), military letters and their phonetic
/// names (`A`, `Zulu`), `Etc/GMT+5`-style names (whose sign is inverted, as in the tz database), common
/// European/Asian/Australian abbreviations), numeric offsets (`+0100`, `+01:00`, `+01`, `GMT+05:30`), missing seconds,
/// fractional seconds (`.5` or `,5`) in every shape, missing or wrong weekdays, full month and day names, two-digit
/// years (RFC 2822: below 50 means 20xx), single-digit days, `2020/1/10 14:33:00`, extra whitespace and commas.
/// ISO 8601 in its extended and basic (compact) forms, with calendar (`2003-12-01`, `20031201`), ordinal
/// (`2003-335`, `2003335`) and week dates (`2003-W49-1`), and W3C-DTF reduced precision (`2003`, `2003-12`: the first
/// day of that year or month). asctime: `Sun Jan  4 16:29:06 2004`, also with a zone before the year. Anything else,
/// and dates outside years 1000–9999 or with out-of-range fields (hour 25, minute 61, day 99, zone +99:99), is `nil`.
public enum FeedDate {
    /// Parses a date, or returns nil.
    public static func parse(_ text: String) -> Date? {
        var tokens = Tokenizer(text)
        let parts = tokens.all()
        guard !parts.isEmpty, parts.count < 24 else { return nil }
        if let date = parseISO(parts) { return date }
        if let date = parseRFC822(parts) { return date }
        return parseAsctime(parts)
    }

    /// The shapes nearly every feed uses, read straight from bytes: RFC 822 `[Wkd, ]D Mon YYYY HH:MM[:SS]
    /// [+hhmm|GMT|UT|UTC|Z]` and RFC 3339 `YYYY-MM-DD[THH:MM:SS[.fff][Z|±HH:MM]]`. Returns nil for anything else
    /// (which ``parse(_:)`` then reads); when it returns a date, it is the date ``parse(_:)`` gives.
    static func parseCommon(_ b: UnsafeBufferPointer<UInt8>) -> Date? { parseCommonWritten(b)?.date }

    /// ``parseCommon(_:)``, with the zone offset the text named (``writtenOffset(_:)``'s answer, read in the same
    /// pass): nil when it named none.
    static func parseCommonWritten(_ b: UnsafeBufferPointer<UInt8>) -> (date: Date, offset: Int?)? {
        var c = Cursor(b)
        guard let first = c.peek else { return nil }
        let isISO = first >= 0x30 && first <= 0x39 && b.count >= 10 && b[4] == 0x2D
        guard let date = isISO ? c.iso() : c.rfc822() else { return nil }
        return (date, c.writtenOffset)
    }

    /// A reader over the bytes of a date in one of the common shapes.
    struct Cursor {
        let b: UnsafeBufferPointer<UInt8>
        var i = 0
        /// The zone offset the text named, once a date was read; nil when it named none.
        var writtenOffset: Int?

        init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

        var peek: UInt8? { i < b.count ? b[i] : nil }
        var atEnd: Bool { i == b.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard i < b.count, b[i] == byte else { return false }
            i += 1
            return true
        }

        /// Exactly `count` digits.
        mutating func digits(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var value = 0
            for k in i..<(i + count) {
                let d = b[k] &- 0x30
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
            }
            i += count
            return value
        }

        /// One or two digits.
        mutating func day() -> Int? {
            guard let first = digits(1) else { return nil }
            if let second = peek, second >= 0x30 && second <= 0x39 {
                i += 1
                return first * 10 + Int(second - 0x30)
            }
            return first
        }

        /// Three ASCII letters, lower-cased into one number.
        mutating func word3() -> UInt32? {
            guard i + 3 <= b.count else { return nil }
            var value: UInt32 = 0
            for k in i..<(i + 3) {
                let lower = b[k] | 0x20
                guard lower >= 0x61 && lower <= 0x7A else { return nil }
                value = value << 8 | UInt32(lower)
            }
            i += 3
            return value
        }

        /// Three lower-case letters packed as by ``word3()``.
        static func isWeekday(_ word: UInt32) -> Bool {
            switch word {
            case 0x6D_6F6E, 0x74_7565, 0x77_6564, 0x74_6875, 0x66_7269, 0x73_6174, 0x73_756E: return true  // mon … sun
            default: return false
            }
        }

        /// 1–12 for a three-letter month abbreviation packed as by ``word3()``.
        static func month(_ word: UInt32) -> Int? {
            switch word {
            case 0x6A_616E: return 1  // jan
            case 0x66_6562: return 2  // feb
            case 0x6D_6172: return 3  // mar
            case 0x61_7072: return 4  // apr
            case 0x6D_6179: return 5  // may
            case 0x6A_756E: return 6  // jun
            case 0x6A_756C: return 7  // jul
            case 0x61_7567: return 8  // aug
            case 0x73_6570: return 9  // sep
            case 0x6F_6374: return 10  // oct
            case 0x6E_6F76: return 11  // nov
            case 0x64_6563: return 12  // dec
            default: return nil
            }
        }

        mutating func rfc822() -> Date? {
            if let first = peek, first | 0x20 >= 0x61 && first | 0x20 <= 0x7A {
                guard let word = word3(), Self.isWeekday(word), take(0x2C), take(0x20) else { return nil }
            }
            guard let day = day(), take(0x20), let word = word3(), let month = Self.month(word),
                take(0x20), let year = digits(4), take(0x20), let hour = digits(2), take(0x3A), let minute = digits(2)
            else { return nil }
            var second = 0
            if take(0x3A) {
                guard let s = digits(2) else { return nil }
                second = s
            }
            var offset = 0
            if !atEnd {
                guard take(0x20), let zone = zone(), atEnd else { return nil }
                offset = zone
                writtenOffset = zone
            }
            return FeedDate.makeDate(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
        }

        /// `+hhmm`, `-hhmm`, `GMT`, `UT`, `UTC` or `Z` (any case): seconds east of UTC.
        mutating func zone() -> Int? {
            guard let first = peek else { return nil }
            if first == 0x2B || first == 0x2D {
                i += 1
                guard let n = digits(4) else { return nil }
                let (hours, minutes) = (n / 100, n % 100)
                guard hours <= 14, minutes < 60 else { return nil }
                let total = hours * 3600 + minutes * 60
                return first == 0x2D ? -total : total
            }
            var letters = 0
            var word: UInt32 = 0
            while i < b.count, letters < 3 {
                let lower = b[i] | 0x20
                guard lower >= 0x61 && lower <= 0x7A else { return nil }
                word = word << 8 | UInt32(lower)
                letters += 1
                i += 1
            }
            switch word {
            case 0x67_6D74, 0x75_7463, 0x7574, 0x7A: return 0  // "gmt", "utc", "ut", "z"
            default: return nil
            }
        }

        mutating func iso() -> Date? {
            guard let year = digits(4), take(0x2D), let month = digits(2), take(0x2D), let day = digits(2) else {
                return nil
            }
            if atEnd {
                return FeedDate.makeDate(year: year, month: month, day: day, hour: 0, minute: 0, second: 0, offset: 0)
            }
            guard take(0x54) || take(0x74) || take(0x20), let hour = digits(2), take(0x3A), let minute = digits(2),
                take(0x3A), let second = digits(2)
            else { return nil }
            var fraction = 0.0
            if take(0x2E) {
                var value = 0
                var count = 0
                while let d = peek, d >= 0x30 && d <= 0x39 {
                    if count < 12 { value = value * 10 + Int(d - 0x30) }
                    count += 1
                    i += 1
                }
                guard count > 0 else { return nil }
                fraction = Double(value) / pow(10, Double(min(count, 12)))
            }
            var offset = 0
            if take(0x5A) || take(0x7A) {
                writtenOffset = 0
            } else if let sign = peek, sign == 0x2B || sign == 0x2D {  // maybe ±HH:MM
                i += 1
                guard let hours = digits(2), take(0x3A), let minutes = digits(2), hours <= 14, minutes < 60 else {
                    return nil
                }
                offset = (hours * 3600 + minutes * 60) * (sign == 0x2D ? -1 : 1)
                writtenOffset = offset
            }
            guard atEnd else { return nil }
            return FeedDate.makeDate(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset
            )
            .map { $0.addingTimeInterval(fraction) }
        }
    }

    // MARK: - Tokens

    enum Token: Equatable {
        case number(Int, digits: Int)
        case word(String)
        case symbol(Character)
    }

    struct Tokenizer {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ text: String) { scalars = Array(text.unicodeScalars.prefix(200)) }

        static func isLetter(_ c: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || (c.value > 127 && c.properties.isAlphabetic)
        }

        /// True when the comma at `index` sits between the digits of a time's last field (`:05,5`, `T183005,5`).
        func isDecimalComma(_ tokens: [Token]) -> Bool {
            guard index > 0, index + 1 < scalars.count, ("0"..."9").contains(scalars[index - 1]),
                ("0"..."9").contains(scalars[index + 1]), tokens.count >= 2, case .number = tokens[tokens.count - 1]
            else { return false }
            switch tokens[tokens.count - 2] {
            case .symbol(":"), .word("t"): return true
            default: return false
            }
        }

        mutating func all() -> [Token] {
            var tokens: [Token] = []
            while index < scalars.count {
                let c = scalars[index]
                if c == ",", isDecimalComma(tokens) {
                    // ISO 8601's other decimal sign: "12:30:05,5".
                    tokens.append(.symbol("."))
                    index += 1
                } else if c == " " || c == "," || c == "\t" || c == "\n" || c == "\r"
                    || (c.value > 127 && c.properties.isWhitespace)
                {
                    index += 1
                } else if ("0"..."9").contains(c) {
                    var value = 0
                    var digits = 0
                    while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                        if digits < 12 { value = value * 10 + Int(scalars[index].value - 48) }
                        digits += 1
                        index += 1
                    }
                    tokens.append(.number(value, digits: digits))
                } else if Self.isLetter(c) {
                    var word = ""
                    while index < scalars.count, Self.isLetter(scalars[index]), word.unicodeScalars.count < 16 {
                        word.unicodeScalars.append(scalars[index])
                        index += 1
                    }
                    while index < scalars.count, Self.isLetter(scalars[index]) { index += 1 }
                    if word == "." { continue }
                    tokens.append(.word(word.lowercased()))
                } else {
                    tokens.append(.symbol(Character(c)))
                    index += 1
                }
            }
            return tokens
        }
    }

    // MARK: - ISO 8601 / RFC 3339 / W3C-DTF: 2024-05-01T12:00:00.123+02:00, 2024-05-01, 2020/1/10 14:33:00, 2003,
    // 2003-12, 2003-335, 2003-W49-1, 20031201T183000Z

    static func parseISO(_ t: [Token]) -> Date? {
        guard case .number(let first, let firstDigits) = t.first else { return nil }
        var i = 1
        var days: Int
        /// Basic (compact) date forms allow a basic time without the "T".
        var basicDate = false
        switch firstDigits {
        case 4:
            let year = first
            guard (1000...9999).contains(year) else { return nil }
            // W3C-DTF reduced precision: the year alone.
            if i == t.count {
                return makeDate(
                    days: daysFromCivil(year: year, month: 1, day: 1), hour: 0, minute: 0, second: 0, offset: 0)
            }
            switch t[i] {
            case .symbol(let separator) where separator == "-" || separator == "/":
                i += 1
                guard i < t.count else { return nil }
                switch t[i] {
                case .number(let n, let digits):
                    i += 1
                    if i + 1 < t.count, case .symbol(let s2) = t[i], s2 == separator,
                        case .number(let day, let dayDigits) = t[i + 1],
                        dayDigits <= 2
                    {
                        // Calendar date: 2003-12-01, 2020/1/10.
                        guard (1...12).contains(n), day >= 1, day <= daysIn(month: n, year: year) else { return nil }
                        days = daysFromCivil(year: year, month: n, day: day)
                        i += 2
                    } else if separator == "-", digits == 3 {
                        // Ordinal date: 2003-335.
                        guard let ordinal = ordinalDays(year: year, day: n) else { return nil }
                        days = ordinal
                    } else if separator == "-", digits <= 2, i == t.count {
                        // W3C-DTF reduced precision: 2003-12 is its first day.
                        guard (1...12).contains(n) else { return nil }
                        return makeDate(
                            days: daysFromCivil(year: year, month: n, day: 1), hour: 0, minute: 0, second: 0, offset: 0)
                    } else {
                        return nil
                    }
                case .word("w") where separator == "-":
                    // Week date: 2003-W49-1, or 2003-W49 for its Monday.
                    i += 1
                    guard i < t.count, case .number(let week, 2) = t[i] else { return nil }
                    i += 1
                    var weekday = 1
                    if i + 1 < t.count, case .symbol("-") = t[i], case .number(let d, 1) = t[i + 1] {
                        weekday = d
                        i += 2
                    }
                    guard let week = weekDays(year: year, week: week, weekday: weekday) else { return nil }
                    days = week
                default:
                    return nil
                }
            case .word("w"):
                // Basic week date: 2003W491, 2003W49.
                i += 1
                guard i < t.count, case .number(let n, let digits) = t[i], digits == 2 || digits == 3 else {
                    return nil
                }
                i += 1
                guard let week = weekDays(year: year, week: digits == 3 ? n / 10 : n, weekday: digits == 3 ? n % 10 : 1)
                else { return nil }
                days = week
                basicDate = true
            default:
                return nil
            }
        case 8:
            // Basic calendar date: 20031201.
            let (year, month, day) = (first / 10_000, first / 100 % 100, first % 100)
            guard (1000...9999).contains(year), (1...12).contains(month), day >= 1,
                day <= daysIn(month: month, year: year)
            else { return nil }
            days = daysFromCivil(year: year, month: month, day: day)
            basicDate = true
        case 7:
            // Basic ordinal date: 2003335.
            let year = first / 1000
            guard (1000...9999).contains(year), let ordinal = ordinalDays(year: year, day: first % 1000) else {
                return nil
            }
            days = ordinal
            basicDate = true
        default:
            return nil
        }
        var hour = 0
        var minute = 0
        var second = 0
        var fraction = 0.0
        var offset = 0
        // "T" may be glued to the day ("01T12"): the tokenizer gives it as the word "t".
        var sawT = false
        if i < t.count, case .word("t") = t[i] {
            i += 1
            sawT = true
        }
        if i < t.count, case .number(let h, let hourDigits) = t[i] {
            if let clock = parseClock(t, from: &i) {
                (hour, minute, second, fraction) = clock
            } else if sawT || basicDate, hourDigits == 2 || hourDigits == 4 || hourDigits == 6 {
                // Basic time: 18, 1830, 183000, with an optional fraction of its last field's unit (seconds only).
                switch hourDigits {
                case 2: hour = h
                case 4: (hour, minute) = (h / 100, h % 100)
                default: (hour, minute, second) = (h / 10_000, h / 100 % 100, h % 100)
                }
                i += 1
                if hourDigits == 6, let f = parseFraction(t, from: &i) { fraction = f }
            } else {
                return nil
            }
            guard let zone = parseZone(t, from: &i) else { return nil }
            offset = zone
        } else if sawT {
            return nil
        }
        guard i == t.count else { return nil }
        return makeDate(days: days, hour: hour, minute: minute, second: second, offset: offset).map {
            $0.addingTimeInterval(fraction)
        }
    }

    /// `H:MM[:SS[.fff]]` at `i`: hour, minute, second and the fraction of a second; nil (and `i` unchanged) when
    /// there is no clock time there.
    static func parseClock(_ t: [Token], from i: inout Int) -> (Int, Int, Int, Double)? {
        guard i + 2 < t.count, case .number(let h, _) = t[i], case .symbol(":") = t[i + 1],
            case .number(let m, _) = t[i + 2]
        else { return nil }
        var j = i + 3
        var second = 0
        var fraction = 0.0
        if j + 1 < t.count, case .symbol(":") = t[j], case .number(let s, _) = t[j + 1] {
            second = s
            j += 2
            if let f = parseFraction(t, from: &j) { fraction = f }
        }
        i = j
        return (h, m, second, fraction)
    }

    /// `.fff` at `i` as a fraction (at most 12 digits count).
    static func parseFraction(_ t: [Token], from i: inout Int) -> Double? {
        guard i + 1 < t.count, case .symbol(".") = t[i], case .number(let f, let digits) = t[i + 1] else { return nil }
        i += 2
        return Double(f) / pow(10, Double(min(digits, 12)))
    }

    /// Days since 1970 of day `day` (1-based) of `year`; nil past the year's end.
    static func ordinalDays(year: Int, day: Int) -> Int? {
        let length = daysIn(month: 2, year: year) == 29 ? 366 : 365
        guard (1...length).contains(day) else { return nil }
        return daysFromCivil(year: year, month: 1, day: 1) + day - 1
    }

    /// Days since 1970 of ISO 8601 week `week`, day `weekday` (1 = Monday) of `year`; nil when out of range.
    static func weekDays(year: Int, week: Int, weekday: Int) -> Int? {
        // Week 1 is the week with the year's first Thursday, so it holds 4 January.
        func firstMonday(_ year: Int) -> Int {
            let january4 = daysFromCivil(year: year, month: 1, day: 4)
            let weekdayOfJanuary4 = ((january4 + 3) % 7 + 7) % 7  // 0 = Monday (1970-01-01 was a Thursday)
            return january4 - weekdayOfJanuary4
        }
        let start = firstMonday(year)
        let weeks = (firstMonday(year + 1) - start) / 7
        guard (1...weeks).contains(week), (1...7).contains(weekday) else { return nil }
        return start + (week - 1) * 7 + weekday - 1
    }

    static func makeDate(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int) -> Date? {
        guard (1000...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        return makeDate(
            days: daysFromCivil(year: year, month: month, day: day), hour: hour, minute: minute, second: second,
            offset: offset)
    }

    /// The date `days` after 1970-01-01 at the given time in a zone `offset` seconds east of UTC; nil when the time
    /// is out of range.
    static func makeDate(days: Int, hour: Int, minute: Int, second: Int, offset: Int) -> Date? {
        guard (0...24).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            hour < 24 || (minute == 0 && second == 0)
        else { return nil }
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func weekday(_ word: String) -> Bool {
        let prefix = word.prefix(3)
        return ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].contains(prefix)
            && [
                "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "monday", "tuesday",
                "wednesday", "thursday", "friday", "saturday", "sunday",
            ].contains(word)
    }

    static func monthNumber(_ word: String) -> Int? {
        let names = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        let full = [
            "january", "february", "march", "april", "may", "june", "july", "august", "september",
            "october", "november", "december",
        ]
        if let index = names.firstIndex(of: word) { return index + 1 }
        if let index = full.firstIndex(of: word) { return index + 1 }
        if word == "sept" { return 9 }
        return nil
    }

    /// Zone names seen in feeds, in hours east of UTC.
    static let zoneOffsets: [String: Double] = {
        var zones: [String: Double] = [
            "ut": 0, "utc": 0, "gmt": 0, "z": 0, "wet": 0, "bst": 1, "ist": 5.5, "west": 1,
            "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7,
            "akst": -9, "akdt": -8, "hst": -10, "ast": -4, "adt": -3, "nst": -3.5, "ndt": -2.5,
            "cet": 1, "cest": 2, "met": 1, "mest": 2, "eet": 2, "eest": 3, "msk": 3, "msd": 4,
            "jst": 9, "kst": 9, "hkt": 8, "sgt": 8, "awst": 8, "acst": 9.5, "acdt": 10.5, "aest": 10, "aedt": 11,
            "nzst": 12, "nzdt": 13, "brt": -3, "art": -3,
            // US zones without the standard/daylight letter, read as standard time.
            "et": -5, "ct": -6, "mt": -7, "pt": -8, "at": -4,
        ]
        // Military zones: A–M (not J) east, N–Y west, Z zero.
        for (index, letter) in "abcdefghiklm".enumerated() { zones[String(letter)] = Double(index + 1) }
        for (index, letter) in "nopqrstuvwxy".enumerated() { zones[String(letter)] = -Double(index + 1) }
        zones["z"] = 0
        // …and their phonetic names ("1200 Zulu"); X-ray is only ever written "X".
        let phonetic = [
            "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "kilo", "lima", "mike",
        ]
        for (index, name) in phonetic.enumerated() { zones[name] = Double(index + 1) }
        let phoneticWest = [
            "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
        ]
        for (index, name) in phoneticWest.enumerated() { zones[name] = -Double(index + 1) }
        zones["yankee"] = -12
        zones["zulu"] = 0
        return zones
    }()
}
