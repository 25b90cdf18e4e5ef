/// Undoing libxml2's `&#38;`.
///
/// Without entity substitution (we never set `XML_PARSE_NOENT`), libxml2 hands `&amp;` in an attribute value over as
/// the literal text `&#38;` (STYLE.md, pitfall 3), so `url="https://example.com/a.mp3?x=1&amp;y=2"` would reach us as
/// `…?x=1&#38;y=2`. Every reader of libxml2 text that can hold such a value (feed attributes, URLs, OPML outlines)
/// goes through here: each `&#38;` becomes `&`, in one pass from the left (so `&#38;#38;` becomes `&#38;`).
enum AmpersandReferences {
    /// `bytes` (UTF-8) as a string, with each `&#38;` turned into `&`.
    static func undo(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard let first = firstReference(in: bytes) else { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count) { out in
            var length = 0
            var i = 0
            func copy(upTo end: Int) {
                while i < end {
                    out[length] = bytes[i]
                    length += 1
                    i += 1
                }
            }
            copy(upTo: first)
            let count = bytes.count
            while i < count {
                if isReference(bytes, at: i) {
                    out[length] = 0x26
                    length += 1
                    i += 5
                } else {
                    copy(upTo: i + 1)
                }
            }
            return length
        }
    }

    /// `text` with each `&#38;` turned into `&`; `text` itself when it holds none (the common case, found without
    /// copying: most text has no `&` at all).
    static func undo(_ text: String) -> String {
        guard text.utf8.contains(0x26) else { return text }
        var text = text
        let undone: String? = text.withUTF8 { bytes in firstReference(in: bytes) == nil ? nil : undo(bytes) }
        return undone ?? text
    }

    /// The offset of the first `&#38;` in `bytes`, if any.
    private static func firstReference(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        while i < bytes.count {
            if isReference(bytes, at: i) { return i }
            i += 1
        }
        return nil
    }

    /// True when `&#38;` starts at `bytes[i]`.
    @inline(__always)
    private static func isReference(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        bytes[i] == 0x26 && i + 4 < bytes.count && bytes[i + 1] == 0x23 && bytes[i + 2] == 0x33 && bytes[i + 3] == 0x38
            && bytes[i + 4] == 0x3B
    }
}
