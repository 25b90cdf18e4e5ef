/// The one table of characters that text from feeds may carry but output must treat specially: control characters,
/// line and paragraph separators, and Unicode bidirectional controls.
///
/// The sets live here. What happens to a character is each user's own policy:
/// - feed text cleaning (``FeedParser``'s fields) drops C0 controls other than ``isWhitespaceControl(_:)``, drops DEL,
///   and reads a C1 control as the Windows-1252 character its byte stands for;
/// - ``JSONValue`` escapes every ``isControl(_:)``, ``isLineOrParagraphSeparator(_:)`` and ``isBidiControl(_:)``
///   character as `\uXXXX`;
/// - the console's `TerminalText` skips escape sequences, turns whitespace into spaces, and drops other controls and
///   bidirectional controls.
///
/// Predicates take a scalar's value (`Unicode.Scalar.value`) or, for scans over UTF-8, bytes. A fast path that copies
/// runs of bytes looks at a byte more closely only when ``mayStartListedCharacter(_:)`` says it can begin one of the
/// characters listed here.
public enum CharacterRules {
    // MARK: - Scalar classes

    /// ESC (U+001B), which starts a terminal escape sequence.
    public static let escape: UInt32 = 0x1B

    /// True for a C0 control character, U+0000–U+001F (tab, newline and carriage return included).
    @inlinable @inline(__always)
    public static func isC0Control(_ value: UInt32) -> Bool { value < 0x20 }

    /// True for DEL, U+007F.
    @inlinable @inline(__always)
    public static func isDelete(_ value: UInt32) -> Bool { value == 0x7F }

    /// True for a C1 control character, U+0080–U+009F.
    @inlinable @inline(__always)
    public static func isC1Control(_ value: UInt32) -> Bool { value &- 0x80 < 0x20 }

    /// True for any control character: C0 (``isC0Control(_:)``), DEL (``isDelete(_:)``) or C1 (``isC1Control(_:)``).
    @inlinable @inline(__always)
    public static func isControl(_ value: UInt32) -> Bool { value < 0x20 || value &- 0x7F < 0x21 }

    /// True for tab (U+0009), newline (U+000A) and carriage return (U+000D): the C0 controls that XML 1.0 allows and
    /// that text keeps as whitespace.
    @inlinable @inline(__always)
    public static func isWhitespaceControl(_ value: UInt32) -> Bool { value == 0x09 || value == 0x0A || value == 0x0D }

    /// True for space (U+0020) and the ``isWhitespaceControl(_:)`` characters: the whitespace that text cleaning trims
    /// and collapses.
    @inlinable @inline(__always)
    public static func isASCIIWhitespace(_ value: UInt32) -> Bool { value == 0x20 || isWhitespaceControl(value) }

    /// True for a C0 control that XML 1.0 cannot carry at all: every one but tab, newline and carriage return.
    @inlinable @inline(__always)
    public static func isXMLForbiddenControl(_ value: UInt32) -> Bool { value < 0x20 && !isWhitespaceControl(value) }

    /// True for LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029), which end a line in JavaScript and in some
    /// terminals but are not JSON control characters.
    @inlinable @inline(__always)
    public static func isLineOrParagraphSeparator(_ value: UInt32) -> Bool { value == 0x2028 || value == 0x2029 }

    /// True for a character that changes the direction or order in which a line is shown: the embeddings and overrides
    /// U+202A–U+202E, the isolates U+2066–U+2069, the marks U+200E (LRM) and U+200F (RLM), and U+061C (ALM).
    @inlinable @inline(__always)
    public static func isBidiControl(_ value: UInt32) -> Bool {
        value &- 0x202A < 5 || value &- 0x2066 < 4 || value == 0x200E || value == 0x200F || value == 0x061C
    }

    /// ``isControl(_:)`` for a scalar.
    @inlinable @inline(__always)
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool { isControl(scalar.value) }

    /// ``isBidiControl(_:)`` for a scalar.
    @inlinable @inline(__always)
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool { isBidiControl(scalar.value) }

    /// ``isLineOrParagraphSeparator(_:)`` for a scalar.
    @inlinable @inline(__always)
    public static func isLineOrParagraphSeparator(_ scalar: Unicode.Scalar) -> Bool {
        isLineOrParagraphSeparator(scalar.value)
    }

    // MARK: - UTF-8

    /// The lead byte of every C1 control in UTF-8 (U+0080–U+009F are `C2 80`–`C2 9F`).
    public static let c1LeadByte: UInt8 = 0xC2

    /// True for a byte that is a C0 control or DEL on its own (in UTF-8 these are single bytes).
    @inlinable @inline(__always)
    public static func isASCIIControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

    /// ``isASCIIWhitespace(_:)`` for a UTF-8 byte (compared as a byte: this runs for every byte trimmed).
    @inlinable @inline(__always)
    public static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// ``isXMLForbiddenControl(_:)`` for a UTF-8 byte.
    @inlinable @inline(__always)
    public static func isXMLForbiddenControl(_ byte: UInt8) -> Bool { isXMLForbiddenControl(UInt32(byte)) }

    /// True when the UTF-8 bytes `lead`, `second` encode a C1 control (`C2 80`–`C2 9F`).
    @inlinable @inline(__always)
    public static func isC1Control(lead: UInt8, second: UInt8) -> Bool { lead == c1LeadByte && second &- 0x80 < 0x20 }

    /// True when a C1 control starts at `bytes[i]` (the lead byte is tested first: it is the rare one).
    @inlinable @inline(__always)
    public static func isC1Control(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        bytes[i] == c1LeadByte && i + 1 < bytes.count && bytes[i + 1] &- 0x80 < 0x20
    }

    /// True when `byte` can begin one of the characters listed here in UTF-8: a C0 control, DEL, or the lead byte of
    /// a C1 control (`C2`), of U+061C (`D8`), or of U+200E/F, U+2028/9, U+202A–E and U+2066–9 (`E2`). Any other
    /// byte can be copied without decoding.
    @inlinable @inline(__always)
    public static func mayStartListedCharacter(_ byte: UInt8) -> Bool {
        isASCIIControl(byte) || byte == c1LeadByte || byte == 0xD8 || byte == 0xE2
    }

    /// The value of the scalar whose valid UTF-8 starts at `bytes[i]`, for a lead byte below `F0` (one to three
    /// bytes): what to ask the scalar predicates about once ``mayStartListedCharacter(_:)`` has flagged a byte. Nil
    /// when `bytes` end inside the character.
    @inlinable @inline(__always)
    public static func scalarValue(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> UInt32? {
        let lead = bytes[i]
        if lead < 0x80 { return UInt32(lead) }
        if lead < 0xE0 {
            guard i + 1 < bytes.count else { return nil }
            return UInt32(lead & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F)
        }
        guard i + 2 < bytes.count else { return nil }
        return UInt32(lead & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
    }
}
