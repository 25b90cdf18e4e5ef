extension FeedDate {
    /// The zone offset (seconds east of UTC) a date's text names at its end: `±hh:mm` or `±hhmm` after a time, `Z`,
    /// or a zone name (`GMT`, `EST`, `PDT` …); nil when it names none. What a publisher's local time was, which the
    /// instant alone does not say: the scheduler learns a feed's time zone from it.
    static func writtenOffset(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var end = b.count
        while end > 0, b[end - 1] == 0x20 || b[end - 1] == 0x09 { end -= 1 }
        // A trailing "(PDT)"-style comment.
        if end > 0, b[end - 1] == 0x29, let open = (0..<end).last(where: { b[$0] == 0x28 }) {
            end = open
            while end > 0, b[end - 1] == 0x20 { end -= 1 }
        }
        guard end >= 3, b[0..<end].contains(0x3A) else { return nil }
        func digit(_ i: Int) -> Int? {
            let d = Int(b[i]) - 0x30
            return (0...9).contains(d) ? d : nil
        }
        func signed(at i: Int, hours: Int, minutes: Int) -> Int? {
            guard b[i] == 0x2B || b[i] == 0x2D, hours <= 14, minutes < 60 else { return nil }
            return (hours * 3600 + minutes * 60) * (b[i] == 0x2D ? -1 : 1)
        }
        if digit(end - 1) != nil {
            if end >= 6, b[end - 3] == 0x3A, let h1 = digit(end - 5), let h2 = digit(end - 4), let m1 = digit(end - 2),
                let m2 = digit(end - 1)
            {
                return signed(at: end - 6, hours: h1 * 10 + h2, minutes: m1 * 10 + m2)
            }
            if end >= 5, let h1 = digit(end - 4), let h2 = digit(end - 3), let m1 = digit(end - 2),
                let m2 = digit(end - 1)
            {
                return signed(at: end - 5, hours: h1 * 10 + h2, minutes: m1 * 10 + m2)
            }
            return nil
        }
        var start = end
        while start > 0, (b[start - 1] | 0x20) >= 0x61 && (b[start - 1] | 0x20) <= 0x7A { start -= 1 }
        guard start < end, end - start <= 5 else { return nil }
        let word = String(decoding: b[start..<end].map { $0 | 0x20 }, as: UTF8.self)
        return zoneOffsets[word].map { Int($0 * 3600) }
    }
}
