/// Cleaning text that comes from feeds. Works on UTF-8 bytes (no Foundation bridging): this runs for every field.
/// Which characters are controls comes from ``CharacterRules``; what happens to them is decided here.
enum TextCleaning {
    /// Removes characters that must never reach output (C0 controls but tab/newline/CR, DEL) and trims whitespace. A C1
    /// control (U+0080–U+009F, from `&#150;` or from Windows-1252 text converted as if it were ISO-8859-1) becomes
    /// the Windows-1252 character its byte stands for (`–`), as browsers read it; the five bytes Windows-1252 leaves
    /// unassigned are dropped.
    static func clean(_ text: String) -> String {
        let utf8 = text.utf8
        return utf8.withContiguousStorageIfAvailable { string(from: $0, collapse: false) }
            ?? Array(utf8).withUnsafeBufferPointer { string(from: $0, collapse: false) }
    }

    /// Like ``clean(_:)``, and runs of whitespace (newlines included) become one space: for titles and names.
    static func cleanLine(_ text: String) -> String {
        let utf8 = text.utf8
        return utf8.withContiguousStorageIfAvailable { string(from: $0, collapse: true) }
            ?? Array(utf8).withUnsafeBufferPointer { string(from: $0, collapse: true) }
    }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { CharacterRules.isASCIIWhitespace(byte) }

    /// The part of `bytes[range]` without leading and trailing ASCII whitespace.
    static func trimmedRange(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound
        var end = range.upperBound
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        return start..<end
    }

    /// A cleaned string from valid UTF-8 bytes.
    static func string(from bytes: UnsafeBufferPointer<UInt8>, collapse: Bool) -> String {
        let range = trimmedRange(bytes, bytes.indices)
        guard !range.isEmpty else { return "" }
        let trimmed = UnsafeBufferPointer(rebasing: bytes[range])
        if !needsCleaning(trimmed, collapse: collapse) { return decodedString(trimmed) }
        var out: [UInt8] = []
        out.reserveCapacity(trimmed.count)
        // Dropped characters are transparent: whitespace around them still collapses, and none leads the line.
        var lastWasSpace = true
        var i = 0
        let count = trimmed.count
        while i < count {
            let b = trimmed[i]
            if isSpace(b) {
                if collapse {
                    if !lastWasSpace { out.append(0x20) }
                    lastWasSpace = true
                } else {
                    out.append(b)
                }
                i += 1
                continue
            }
            if CharacterRules.isASCIIControl(b) {
                i += 1
                continue
            }
            if CharacterRules.isC1Control(trimmed, at: i) {
                let scalar = InputDecoding.windows1252[Int(trimmed[i + 1] - 0x80)]
                i += 2
                // Unassigned in Windows-1252: dropped like any other C1 control.
                guard scalar >= 0xA0 else { continue }
                lastWasSpace = false
                CharsetDecoder.appendUTF8(scalar, to: &out)
                continue
            }
            lastWasSpace = false
            out.append(b)
            i += 1
        }
        while let last = out.last, isSpace(last) { out.removeLast() }
        return out.withUnsafeBufferPointer(decodedString)
    }

    /// `String(decoding: bytes, as: UTF8.self)` (invalid sequences become U+FFFD), made faster for long text that is
    /// ASCII but for a few characters, as show notes often are (a `’` or an `é` in a page of text): Swift validates such
    /// a string byte by byte, at about ten times the cost of its all-ASCII path. Here the ASCII runs take the all-ASCII
    /// path and only the other bytes are validated, each run on its own, and the pieces are joined (an ASCII byte ends
    /// any sequence, so each piece decodes as it would inside the whole).
    static func decodedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let count = bytes.count
        guard count >= 128, let base = bytes.baseAddress.map(UnsafeRawPointer.init) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        // Words that hold a non-ASCII byte: none is the all-ASCII path; many, and the pieces would cost more than
        // validating.
        var mixedWords = 0
        var offset = 0
        while offset + 8 <= count {
            if base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & ByteScan.highs != 0 { mixedWords += 1 }
            offset += 8
        }
        guard mixedWords > 0, mixedWords * 64 <= count else { return String(decoding: bytes, as: UTF8.self) }
        var result = String()
        result.reserveCapacity(count)
        var i = 0
        while i < count {
            var high = i
            while high + 8 <= count, base.loadUnaligned(fromByteOffset: high, as: UInt64.self) & ByteScan.highs == 0 {
                high += 8
            }
            while high < count, bytes[high] < 0x80 { high += 1 }
            if high > i {
                result.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<high]), as: UTF8.self))
            }
            guard high < count else { break }
            var low = high + 1
            while low < count, bytes[low] >= 0x80 { low += 1 }
            result.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[high..<low]), as: UTF8.self))
            i = low
        }
        return result
    }

    /// True when trimmed `bytes` hold a character to drop or replace (C0 but tab/newline/CR, DEL, C1) or, with `collapse`,
    /// whitespace other than single spaces. Eight bytes at a time; a block that might need work is checked byte
    /// by byte.
    static func needsCleaning(_ bytes: UnsafeBufferPointer<UInt8>, collapse: Bool) -> Bool {
        let count = bytes.count
        var i = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 9 <= count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let ascii = word & ByteScan.highs == 0
                let controls = ascii ? ByteScan.asciiControlBytes(word) : ByteScan.controlBytes(word)
                var suspicious =
                    controls != 0 && (collapse || !ByteScan.onlyWhitespaceControls(word, controls)) ? controls : 0
                // DEL, and the lead byte of a C1 control (only in words that are not all ASCII).
                suspicious |=
                    ascii
                    ? ByteScan.asciiDeleteBytes(word)
                    : ByteScan.bytes(word, equalTo: 0x7F) | ByteScan.bytes(word, equalTo: CharacterRules.c1LeadByte)
                if collapse {
                    // A space followed by a space.
                    let next = raw.loadUnaligned(fromByteOffset: i + 1, as: UInt64.self)
                    suspicious |= ByteScan.bytes(word, equalTo: 0x20) & ByteScan.bytes(next, equalTo: 0x20)
                }
                if suspicious != 0 && blockNeedsCleaning(bytes, from: i, to: i + 8, collapse: collapse) { return true }
                i += 8
            }
        }
        return blockNeedsCleaning(bytes, from: i, to: count, collapse: collapse)
    }

    private static func blockNeedsCleaning(
        _ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, collapse: Bool
    ) -> Bool {
        let count = bytes.count
        var i = from
        while i < to {
            let b = bytes[i]
            if b < 0x20 {
                if !isSpace(b) || collapse { return true }
            } else if b == 0x7F || CharacterRules.isC1Control(bytes, at: i) {
                return true
            } else if collapse && b == 0x20 && i + 1 < count && isSpace(bytes[i + 1]) {
                return true
            }
            i += 1
        }
        return false
    }

    /// True for a character that never reaches output: a C0 control XML forbids, DEL or a C1 control.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return CharacterRules.isXMLForbiddenControl(v) || CharacterRules.isDelete(v) || CharacterRules.isC1Control(v)
    }

    /// A numeric character reference's character: `&#150;` (a C1 control) means Windows-1252's `–`, as in HTML;
    /// nil for characters that must not reach output.
    static func referencedCharacter(_ value: UInt32) -> Character? {
        var value = value
        if CharacterRules.isC1Control(value) { value = InputDecoding.windows1252[Int(value - 0x80)] }
        guard let scalar = Unicode.Scalar(value), !isForbidden(scalar) else { return nil }
        return Character(scalar)
    }

    /// Plain text from clean HTML (see ``clean(_:)``): tags removed, common entities decoded, whitespace collapsed,
    /// cut at about `limit` characters (at a word boundary, with "…"). Works on UTF-8 bytes.
    static func plainSummary(_ html: String, limit: Int) -> String {
        let utf8 = html.utf8
        return utf8.withContiguousStorageIfAvailable { plainSummary(bytes: $0, limit: limit) }
            ?? Array(utf8).withUnsafeBufferPointer { plainSummary(bytes: $0, limit: limit) }
    }

    /// ``plainSummary(_:limit:)`` of clean text (``needsCleaning(_:collapse:)`` false): no control, DEL or C1
    /// character.
    static func plainSummary(bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> String {
        // Each step adds at most one character (four bytes); "…" adds three more.
        let capacity = min(bytes.count, limit) * 4 + 8
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { out.deallocate() }
        var length = 0
        var characters = 0
        var lastWasSpace = true
        var cut = false
        var i = 0
        let count = bytes.count
        @inline(__always) func space() {
            if !lastWasSpace {
                out[length] = 0x20
                length += 1
                characters += 1
            }
            lastWasSpace = true
        }
        let base = bytes.baseAddress.map(UnsafeRawPointer.init)
        while i < count {
            // Eight bytes at a time while they are copied as they are: no tag, entity, control or whitespace but
            // single spaces, and the limit at least eight characters away. Most of a summary's text goes this way.
            if let base, i + 8 <= count, characters + 8 <= limit, length + 8 <= capacity {
                let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let special =
                    ByteScan.controlBytes(word) | ByteScan.bytes(word, equalTo: 0x26)
                    | ByteScan.bytes(word, equalTo: 0x3C)
                let spaces = ByteScan.bytes(word, equalTo: 0x20)
                // A space after a space (in this word, or a space already written) is collapsed by the byte loop.
                if special == 0 && spaces & (spaces << 8) == 0 && !(lastWasSpace && spaces & 0x80 != 0) {
                    UnsafeMutableRawPointer(out + length).storeBytes(of: word, as: UInt64.self)
                    length += 8
                    // Every byte but a UTF-8 continuation byte (10xxxxxx) starts a character.
                    characters += 8 - (word & ~(word << 1) & ByteScan.highs).nonzeroBitCount
                    lastWasSpace = spaces >> 63 != 0
                    i += 8
                    continue
                }
            }
            if characters >= limit {
                cut = true
                break
            }
            let byte = bytes[i]
            if byte > 0x3C {  // letters and every non-ASCII byte: nothing special (all special bytes are below)
                out[length] = byte
                length += 1
                if byte & 0xC0 != 0x80 { characters += 1 }
                lastWasSpace = false
                i += 1
                continue
            }
            if byte == 0x3C {  // "<": skip the tag
                i += 1
                while i < count && bytes[i] != 0x3E { i += 1 }
                i += 1
                space()
            } else if byte == 0x26 {  // "&": an entity
                var j = i + 1
                while j < count, j - i <= 10,
                    bytes[j] == 0x23 || (bytes[j] >= 0x30 && bytes[j] <= 0x39)
                        || (bytes[j] | 0x20 >= 0x61 && bytes[j] | 0x20 <= 0x7A)
                { j += 1 }
                if j < count, bytes[j] == 0x3B,
                    let decoded = decodeEntity(
                        String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 1)..<j]), as: UTF8.self))
                {
                    if decoded.isWhitespace {
                        space()
                    } else {
                        for unit in decoded.utf8.prefix(4) {
                            out[length] = unit
                            length += 1
                        }
                        characters += 1
                        lastWasSpace = false
                    }
                    i = j + 1
                } else {
                    out[length] = 0x26
                    length += 1
                    characters += 1
                    lastWasSpace = false
                    i += 1
                }
            } else if isSpace(byte) {
                space()
                i += 1
            } else {
                out[length] = byte
                length += 1
                if byte & 0xC0 != 0x80 { characters += 1 }
                lastWasSpace = false
                i += 1
            }
        }
        if cut {
            // Do not end inside a multi-byte character or a word.
            while length > 0, out[length - 1] & 0xC0 == 0x80 { length -= 1 }
            if length > 0, out[length - 1] >= 0xC0 { length -= 1 }
            var space = length - 1
            while space >= 0 && out[space] != 0x20 { space -= 1 }
            if space >= 0, space > length / 2 { length = space }
            for unit in "…".utf8 {
                out[length] = unit
                length += 1
            }
        }
        // The text is clean already (its callers give cleaned text, and what is decoded here is never a control) and
        // its whitespace collapsed, but for one space at its end.
        while length > 0, out[length - 1] == 0x20 { length -= 1 }
        return decodedString(UnsafeBufferPointer(start: out, count: length))
    }

    /// `bytes` (UTF-8) with each numeric (`&#8364;`, `&#x20AC;`) or common named (`&eacute;`, `&amp;`) character
    /// reference decoded, handed to `body`; an unknown name, or a reference to a character that must not reach output,
    /// stays as it was written.
    static func decodingReferences<T>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> T
    ) -> T {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        let count = bytes.count
        while i < count {
            let b = bytes[i]
            if b == 0x26, let end = (i + 2..<min(count, i + 12)).first(where: { bytes[$0] == 0x3B }),
                let character = decodeEntity(
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[i + 1..<end]), as: UTF8.self))
            {
                out.append(contentsOf: String(character).utf8)
                i = end + 1
                continue
            }
            out.append(b)
            i += 1
        }
        return out.withUnsafeBufferPointer(body)
    }

    static func decodeEntity(_ name: String) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos", "#39": return "'"
        case "nbsp": return " "
        case "mdash": return "—"
        case "ndash": return "–"
        case "hellip": return "…"
        case "rsquo": return "’"
        case "lsquo": return "‘"
        case "rdquo": return "”"
        case "ldquo": return "“"
        case "euro": return "€"
        case "pound": return "£"
        case "copy": return "©"
        case "reg": return "®"
        case "trade": return "™"
        case "laquo": return "«"
        case "raquo": return "»"
        default:
            if let character = latin1Entities[name] { return character }
            if name.hasPrefix("#x") || name.hasPrefix("#X"), let v = UInt32(name.dropFirst(2), radix: 16) {
                return referencedCharacter(v)
            }
            if name.hasPrefix("#"), let v = UInt32(name.dropFirst()) { return referencedCharacter(v) }
            return nil
        }
    }
}

extension String {
    /// Trimmed of ASCII whitespace and cleaned of control characters, without Foundation (which bridges through
    /// UTF-16 and is slow on this hot path).
    var trimmedText: String { TextCleaning.clean(self) }
}

/// The Latin-1 letters' HTML entity names (`&eacute;` → `é`), the named references feeds use most after the ones above.
private let latin1Entities: [String: Character] = {
    let names = [
        "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute", "Ecirc", "Euml",
        "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute", "Ocirc", "Otilde", "Ouml", "times",
        "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute", "acirc",
        "atilde", "auml", "aring", "aelig", "ccedil", "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc",
        "iuml", "eth", "ntilde", "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute",
        "ucirc", "uuml", "yacute", "thorn", "yuml",
    ]
    var table: [String: Character] = [:]
    for (offset, name) in names.enumerated() {
        table[name] = Character(Unicode.Scalar(UInt8(0xC0 + offset)))
    }
    return table
}()
