import Foundation

/// `itunes:duration` and friends, in seconds.
public enum EpisodeDuration {
    /// Whole seconds, `MM:SS` or `HH:MM:SS` of plain digits, read straight from trimmed bytes; nil for anything else
    /// (which ``parse(_:)`` then reads). When it returns a value, it is the value ``parse(_:)`` gives.
    static func parseClock(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !b.isEmpty, b.count <= 20 else { return nil }
        var total = 0
        var part = 0
        var partDigits = 0
        var parts = 1
        for byte in b {
            if byte == 0x3A {
                guard partDigits > 0, parts < 3 else { return nil }
                total = total * 60 + part
                part = 0
                partDigits = 0
                parts += 1
            } else {
                let d = byte &- 0x30
                guard d < 10, partDigits < 7 else { return nil }
                part = part * 10 + Int(d)
                partDigits += 1
            }
        }
        guard partDigits > 0 else { return nil }
        total = total * 60 + part
        guard total <= 366 * 86_400 else { return nil }
        return Double(total)
    }

    /// Seconds (`3130`, `1014.708`), `MM:SS`, `HH:MM:SS` (fields may overflow: `100:25`), with whitespace.
    /// Garbage, negatives, non-finite values and anything over a year → nil.
    public static func parse(_ text: String) -> Double? {
        let trimmed = text.trimmedText
        guard !trimmed.isEmpty, trimmed.count <= 32 else { return nil }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (isLast && $0 == ".")) }),
                part.filter({ $0 == "." }).count <= 1, part != "."
            else { return nil }
            guard let value = Double(part), value.isFinite, value >= 0 else { return nil }
            if !isLast && value != value.rounded() { return nil }
            total = total * 60 + value
        }
        guard total.isFinite, total <= 366 * 86_400 else { return nil }
        return total
    }
}
