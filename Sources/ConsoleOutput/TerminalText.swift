/// Makes text from feeds safe to print on a terminal.
public enum TerminalText {
    /// Removes what could drive a terminal or reorder a line: escape sequences, C0 and C1 control characters
    /// (newlines and tabs become spaces), and Unicode bidirectional overrides and isolates. Runs of whitespace
    /// collapse to one space.
    public static func sanitize(_ text: String) -> String {
        isAlreadySafe(text) ? text : sanitizeScalars(text)
    }

    /// ``sanitize(_:)`` one scalar at a time.
    static func sanitizeScalars(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var lastWasSpace = false
        var iterator = text.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            let value = scalar.value
            if value == 0x1B {
                // Skip an escape sequence: CSI (ESC [ … final byte) or OSC (ESC ] … BEL/ST), else ESC + one char.
                guard let next = iterator.next() else { break }
                if next == "[" {
                    while let c = iterator.next(), !(0x40...0x7E).contains(c.value) {}
                } else if next == "]" {
                    var previousWasEscape = false
                    while let c = iterator.next() {
                        if c.value == 0x07 || (previousWasEscape && c == "\\") { break }
                        previousWasEscape = c.value == 0x1B
                    }
                }
                continue
            }
            let isSpace = value == 0x20 || value == 0x09 || value == 0x0A || value == 0x0D
            if isSpace {
                if !lastWasSpace && !out.isEmpty { out.append(" ") }
                lastWasSpace = true
                continue
            }
            if value < 0x20 || (0x7F...0x9F).contains(value) { continue }
            if (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x200E
                || value == 0x200F || value == 0x061C
            {
                continue
            }
            out.append(scalar)
            lastWasSpace = false
        }
        var result = String(out)
        while result.hasSuffix(" ") { result.removeLast() }
        return result
    }

    /// True when ``sanitize(_:)`` would return `text` unchanged: no control character or escape (C0, DEL, C1), no
    /// bidirectional control (U+200E/F, U+202A–E, U+2066–9, U+061C), and single inner spaces only.
    static func isAlreadySafe(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20 else { return bytes.isEmpty }
            var previous: UInt8 = 0
            let count = bytes.count
            var i = 0
            while i < count {
                let byte = bytes[i]
                if byte < 0x20 || byte == 0x7F { return false }
                if byte == 0x20 && previous == 0x20 { return false }
                if byte >= 0xC2 {
                    let second = i + 1 < count ? bytes[i + 1] : 0
                    let third = i + 2 < count ? bytes[i + 2] : 0
                    switch byte {
                    case 0xC2 where second <= 0x9F: return false  // C1 controls
                    case 0xD8 where second == 0x9C: return false  // U+061C
                    case 0xE2 where second == 0x80 && (third == 0x8E || third == 0x8F || (0xAA...0xAE).contains(third)):
                        return false
                    case 0xE2 where second == 0x81 && (0xA6...0xA9).contains(third): return false
                    default: break
                    }
                }
                previous = byte
                i += 1
            }
            return true
        }
    }

    /// Shortens `text` to at most `limit` characters, ending in "…" when cut.
    public static func truncate(_ text: String, to limit: Int) -> String {
        guard text.count > limit, limit > 1 else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }
}
