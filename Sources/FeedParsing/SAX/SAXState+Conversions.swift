import Foundation

/// Conversions of attribute and element text shared by the namespaces' handlers.
extension SAXState {
    static func positiveInt64(_ text: String) -> Int64? {
        guard let value = Int64(text.trimmedText), value > 0 else { return nil }
        return value
    }

    static func number(_ text: String) -> Int? {
        let trimmed = text.trimmedText
        if let value = Int(trimmed), value >= 0, value < 1_000_000 { return value }
        if let value = Double(trimmed), value.isFinite, value >= 0, value < 1_000_000, value == value.rounded() {
            return Int(value)
        }
        return nil
    }

    static func explicitFlag(_ text: String) -> Bool? {
        var trimmed = text.trimmedText
        return trimmed.withUTF8(explicitFlag(bytes:))
    }

    static func explicitFlag(bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        if asciiLowercaseEquals(bytes, "true") || asciiLowercaseEquals(bytes, "yes")
            || asciiLowercaseEquals(bytes, "explicit")
        {
            return true
        }
        if asciiLowercaseEquals(bytes, "false") || asciiLowercaseEquals(bytes, "no")
            || asciiLowercaseEquals(bytes, "clean")
        {
            return false
        }
        return nil
    }

    /// True when `bytes`, lower-cased (ASCII only), equal `word` (lower-case ASCII).
    static func asciiLowercaseEquals(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        let expected = word.utf8Start
        for i in 0..<bytes.count {
            var c = bytes[i]
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            if c != expected[i] { return false }
        }
        return true
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.trimmedText.lowercased() {
        case "yes", "true": return true
        case "no", "false": return false
        default: return nil
        }
    }

    static func yes(_ text: String) -> Bool { boolean(text) == true }

    static func snippet(_ text: String) -> String {
        let cleaned = TextCleaning.cleanLine(text)
        return cleaned.count > 60 ? String(cleaned.prefix(60)) + "…" : cleaned
    }

    static func escapeAttribute(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}

/// `text`, or nil when empty.
func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }
