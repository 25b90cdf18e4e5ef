/// Byte-level handling before libxml2 sees a document: the encoding decision and the lossy UTF-8 fallback.
enum InputDecoding {
    /// What the first bytes of a document say about its encoding.
    struct Declaration {
        /// The byte range of the `encoding` value inside the XML declaration, if there is one.
        var valueRange: Range<Int>?
        /// The declared encoding, lower-cased.
        var encoding: String?
        /// The document starts with a UTF-16 or UTF-32 byte order mark, or is UTF-16 without one.
        var isWide: Bool
        var hasUTF8BOM: Bool
    }

    /// Reads the BOM and the XML declaration from the start of a document.
    static func sniff(_ bytes: [UInt8]) -> Declaration {
        var declaration = Declaration(valueRange: nil, encoding: nil, isWide: false, hasUTF8BOM: false)
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            declaration.isWide = true
            return declaration
        }
        if bytes.count >= 4, (bytes[0] == 0 && bytes[1] == 0x3C) || (bytes[0] == 0x3C && bytes[1] == 0) {
            declaration.isWide = true
            return declaration
        }
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            declaration.hasUTF8BOM = true
            start = 3
        }
        while start < bytes.count,
            bytes[start] == 0x20 || bytes[start] == 0x09 || bytes[start] == 0x0A || bytes[start] == 0x0D
        {
            start += 1
        }
        guard bytes.count >= start + 5, Array(bytes[start..<start + 5]) == Array("<?xml".utf8) else {
            return declaration
        }
        guard let end = firstIndex(of: Array("?>".utf8), in: bytes, from: start) else { return declaration }
        guard let key = firstIndex(of: Array("encoding".utf8), in: bytes[..<end], from: start) else {
            return declaration
        }
        var i = key + 8
        while i < end, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x3D
        { i += 1 }
        guard i < end, bytes[i] == 0x22 || bytes[i] == 0x27 else { return declaration }
        let quote = bytes[i]
        var j = i + 1
        while j < end, bytes[j] != quote { j += 1 }
        guard j < end else { return declaration }
        declaration.valueRange = (i + 1)..<j
        declaration.encoding = String(decoding: bytes[(i + 1)..<j], as: UTF8.self).lowercased()
        return declaration
    }

    static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>, from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.endIndex - needle.count else { return nil }
        var i = start
        while i <= haystack.endIndex - needle.count {
            if haystack[i] == needle[0] && haystack[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        firstIndex(of: needle, in: haystack[...], from: start)
    }

    /// True for labels that mean UTF-8 (or its ASCII subset).
    static func isUTF8(_ label: String) -> Bool {
        ["utf-8", "utf8", "us-ascii", "ascii", "unicode-1-1-utf-8"].contains(label)
    }

    /// Windows-1252's characters for bytes 0x80–0x9F (C1 positions); other bytes map to the same code point.
    static let windows1252: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
        0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x9D, 0x017E, 0x0178,
    ]
}

/// Passes valid UTF-8 through untouched and turns every byte that is not part of a valid sequence into the
/// Windows-1252 character it most likely was, so a feed that lies about being UTF-8 still parses. Control characters
/// that XML 1.0 forbids (C0 except tab, newline, carriage return) are dropped. A sequence cut by a chunk boundary is
/// held until the next chunk, so the output does not depend on how the input was split.
struct UTF8Sanitizer {
    private var pending: [UInt8] = []
    /// Bytes that were not valid UTF-8 and were read as Windows-1252.
    private(set) var replacedBytes = 0
    /// Forbidden control characters dropped.
    private(set) var droppedControls = 0

    /// Sanitises one chunk. Returns nil when the chunk can be passed on unchanged (the common case); otherwise the
    /// bytes to pass on instead.
    mutating func process(_ input: UnsafeRawBufferPointer, final: Bool) -> [UInt8]? {
        guard pending.isEmpty else {
            var joined = pending
            pending.removeAll()
            joined.append(contentsOf: input)
            let result = joined.withUnsafeBytes { processCore($0, final: final) }
            return result ?? joined
        }
        return processCore(input, final: final)
    }

    private mutating func processCore(_ input: UnsafeRawBufferPointer, final: Bool) -> [UInt8]? {
        let bytes = input.bindMemory(to: UInt8.self)
        let count = bytes.count
        var out: [UInt8]? = nil
        var runStart = 0
        var i = 0

        func flushRun(to end: Int) {
            if out == nil {
                out = []
                out!.reserveCapacity(count + 16)
            }
            if end > runStart { out!.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<end])) }
        }

        let base = UnsafeRawPointer(bytes.baseAddress)
        while i < count {
            // Fast path: eight bytes at a time that are ASCII with no control characters but tab, newline and CR.
            if let base, i + 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if word & ByteScan.highs == 0 {
                    let controls = ByteScan.asciiControlBytes(word)
                    if controls == 0 || ByteScan.onlyWhitespaceControls(word, controls) {
                        i += 8
                        continue
                    }
                }
            }
            let byte = bytes[i]
            if byte < 0x80 {
                if CharacterRules.isXMLForbiddenControl(byte) {
                    flushRun(to: i)
                    droppedControls += 1
                    i += 1
                    runStart = i
                } else {
                    i += 1
                }
                continue
            }
            let length = Self.leadLength(byte)
            if length > 0 && i + length > count && !final && Self.prefixCouldBeValid(bytes, from: i, count: count - i) {
                // Cut by the chunk boundary: hold it for the next chunk.
                flushRun(to: i)
                pending = Array(UnsafeBufferPointer(rebasing: bytes[i..<count]))
                return out
            }
            if length > 0 && i + length <= count && Self.isValid(bytes, at: i, length: length) {
                i += length
                continue
            }
            flushRun(to: i)
            Self.appendWindows1252(byte, to: &out!)
            replacedBytes += 1
            i += 1
            runStart = i
        }
        if out != nil { flushRun(to: count) }
        return out
    }

    static func leadLength(_ byte: UInt8) -> Int {
        switch byte {
        case 0xC2...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF4: return 4
        default: return 0
        }
    }

    static func isValid<C: RandomAccessCollection>(_ bytes: C, at i: Int, length: Int) -> Bool
    where C.Element == UInt8, C.Index == Int {
        let lead = bytes[i]
        let second = bytes[i + 1]
        switch lead {
        case 0xE0: guard (0xA0...0xBF).contains(second) else { return false }
        case 0xED: guard (0x80...0x9F).contains(second) else { return false }
        case 0xF0: guard (0x90...0xBF).contains(second) else { return false }
        case 0xF4: guard (0x80...0x8F).contains(second) else { return false }
        default: guard (0x80...0xBF).contains(second) else { return false }
        }
        for k in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[i + k]) { return false }
        // U+FFFE and U+FFFF are not XML characters.
        if length == 3, lead == 0xEF, second == 0xBF, bytes[i + 2] >= 0xBE { return false }
        return true
    }

    static func prefixCouldBeValid(_ bytes: UnsafeBufferPointer<UInt8>, from i: Int, count: Int) -> Bool {
        guard count >= 1, count < 4 else { return false }
        for k in 1..<count where !(0x80...0xBF).contains(bytes[i + k]) { return false }
        return true
    }

    static func appendWindows1252(_ byte: UInt8, to out: inout [UInt8]) {
        let scalar = byte >= 0x80 && byte <= 0x9F ? InputDecoding.windows1252[Int(byte - 0x80)] : UInt32(byte)
        if scalar < 0x800 {
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        } else {
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}
