public import Foundation

/// A JSON value whose object keys keep the order they were written in, so JSON Lines output is stable.
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }
    public func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }

    /// A string, or null when nil.
    public static func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    /// A URL as a string, or null when nil.
    public static func url(_ value: URL?) -> JSONValue { value.map { .string($0.absoluteString) } ?? .null }
    /// An RFC 3339 UTC timestamp, or null when nil.
    public static func date(_ value: Date?) -> JSONValue { value.map { .string(RFC3339.string(from: $0)) } ?? .null }
    /// An integer, or null when nil.
    public static func int(_ value: Int?) -> JSONValue { value.map { .int($0) } ?? .null }
    /// A number (integral values without a fraction), or null when nil.
    public static func number(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 1e15 { return .int(Int(value)) }
        return .double(value)
    }

    /// The compact JSON text, on one line.
    public func serialized() -> String {
        var out = ""
        out.reserveCapacity(128)
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? "\(value)" : "null"
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(into: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ value: String, into out: inout String) {
        out += "\""
        // Most strings (URLs, MIME types, names) need no escape at all: one pass over their bytes, then a whole copy.
        let needsNoEscape = value.utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { $0 == 0x22 || $0 == 0x5C || CharacterRules.mayStartListedCharacter($0) }
        }
        if needsNoEscape == true {
            out += value
            out += "\""
            return
        }
        // Runs of bytes that need no escape are copied whole; only a byte that may start something to escape
        // (quote, backslash, or a character of ``CharacterRules``) is looked at as a scalar.
        let utf8 = value.utf8
        var runStart = utf8.startIndex
        var i = utf8.startIndex
        while i != utf8.endIndex {
            let byte = utf8[i]
            if byte == 0x22 || byte == 0x5C || CharacterRules.mayStartListedCharacter(byte) {
                out += value[runStart..<i]
                let scalar = value.unicodeScalars[i]
                writeScalar(scalar, into: &out)
                i = value.unicodeScalars.index(after: i)
                runStart = i
            } else {
                utf8.formIndex(after: &i)
            }
        }
        out += value[runStart..<utf8.endIndex]
        out += "\""
    }

    private static func writeScalar(_ scalar: Unicode.Scalar, into out: inout String) {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            // Controls, line separators and bidirectional controls are escaped (same string once decoded), so JSON
            // Lines printed on a terminal cannot reorder what is shown.
            if CharacterRules.isControl(scalar) || CharacterRules.isLineOrParagraphSeparator(scalar)
                || CharacterRules.isBidiControl(scalar)
            {
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
}

/// RFC 3339 timestamps in UTC, e.g. `2024-05-01T12:00:00Z`.
public enum RFC3339 {
    /// Formats a date in UTC with whole seconds.
    public static func string(from date: Date) -> String {
        var seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        seconds -= days * 86_400
        let (year, month, day) = civilDate(fromDays: days)
        guard (0...9999).contains(year) else {
            return String(
                format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, seconds / 3600, (seconds % 3600) / 60,
                seconds % 60)
        }
        // Digits written directly: String(format:) costs more than the rest of an episode's output line.
        return String(unsafeUninitializedCapacity: 20) { buffer in
            var i = 0
            func put(_ value: Int, width: Int, then separator: Character) {
                var rest = value
                for k in stride(from: width - 1, through: 0, by: -1) {
                    buffer[i + k] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                buffer[i + width] = separator.asciiValue!
                i += width + 1
            }
            put(year, width: 4, then: "-")
            put(month, width: 2, then: "-")
            put(day, width: 2, then: "T")
            put(seconds / 3600, width: 2, then: ":")
            put((seconds % 3600) / 60, width: 2, then: ":")
            put(seconds % 60, width: 2, then: "Z")
            return i
        }
    }

    /// Days since 1970-01-01 to a proleptic Gregorian (year, month, day) (Howard Hinnant's algorithm).
    private static func civilDate(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
