import FeedParsing

/// Makes text from feeds safe to print on a terminal. The characters it removes are ``CharacterRules``' controls and
/// bidirectional controls; what it does with them (skip escape sequences, turn whitespace into one space, drop the
/// rest) is its own.
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
            if value == CharacterRules.escape {
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
            if CharacterRules.isASCIIWhitespace(value) {
                if !lastWasSpace && !out.isEmpty { out.append(" ") }
                lastWasSpace = true
                continue
            }
            if CharacterRules.isControl(value) || CharacterRules.isBidiControl(value) { continue }
            out.append(scalar)
            lastWasSpace = false
        }
        var result = String(out)
        while result.hasSuffix(" ") { result.removeLast() }
        return result
    }

    /// True when ``sanitize(_:)`` would return `text` unchanged: no control character or escape (C0, DEL, C1), no
    /// bidirectional control (``CharacterRules/isBidiControl(_:)``), and single inner spaces only.
    static func isAlreadySafe(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20 else {
                return bytes.isEmpty
            }
            var previous: UInt8 = 0
            let count = bytes.count
            var i = 0
            while i < count {
                let byte = bytes[i]
                if byte == 0x20 && previous == 0x20 { return false }
                if CharacterRules.mayStartListedCharacter(byte) {
                    // Controls (C0, DEL, C1) and bidirectional controls; line separators are left alone.
                    if let value = CharacterRules.scalarValue(bytes, at: i),
                        CharacterRules.isControl(value) || CharacterRules.isBidiControl(value)
                    {
                        return false
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
