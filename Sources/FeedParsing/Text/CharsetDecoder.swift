#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Decodes a document from a legacy character set to UTF-8 before libxml2 sees it, chunk by chunk.
///
/// libxml2 is then told the document is UTF-8, so every encoding is read the same way whatever libxml2 itself was
/// built with. A character cut by a chunk boundary is held until the next chunk, so the output does not depend on
/// how the input was split. A byte sequence that is not valid in the character set becomes U+FFFD and is counted
/// (libxml2's own conversion stops the whole parse at the first one).
///
/// Two kinds of decoder: a 128-entry table for Windows-1252 (also used for ISO-8859-1, whose C1 positions real
/// feeds use for Windows-1252's quotes, dashes and euro) and the Mac OS character sets; and the system's iconv
/// for everything else it knows (DOS code pages, Shift_JIS, EUC-KR, Big5, GBK/GB18030, ISO-8859-x, KOI8 …).
struct CharsetDecoder {
    private enum Kind {
        /// Code points for bytes 0x80–0xFF.
        case table([UInt16])
        case iconv(IconvDescriptor)
    }

    /// The character set's name, for messages.
    let name: String
    private let kind: Kind
    /// The start of a character cut by the end of the last chunk.
    private var pending: [UInt8] = []
    /// Byte sequences that were not valid in the character set (each became U+FFFD).
    private(set) var invalidSequences = 0

    private init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    // MARK: - Choosing a decoder

    /// What a charset label asks for.
    enum Resolution {
        /// UTF-8 (or its ASCII subset): no conversion.
        case utf8
        /// UTF-16 or UTF-32: left to libxml2, which detects them from the byte order mark or the first bytes.
        case wide
        /// A decoder for the label.
        case decoder(CharsetDecoder)
        /// Not a character set this system knows.
        case unknown
    }

    /// Finds how to read a document labelled `label` (an XML declaration's `encoding` or an HTTP charset).
    ///
    /// Labels are matched without regard to case, `-`, `_`, `.` and spaces, with the common aliases of each
    /// character set (`latin1`, `cp437`/`ibm437`/`437`, `x-mac-roman`, `sjis`/`windows-31j`, `ks_c_5601-1987`,
    /// `big5-hkscs`, `gb2312`/`cp936` …); any other name the system's iconv knows is used as it is.
    static func resolve(_ label: String) -> Resolution {
        let key = compactKey(label)
        if key.isEmpty { return .unknown }
        if InputDecoding.isUTF8(label.lowercased())
            || ["utf8", "unicode11utf8", "usascii", "ascii", "ansix341968", "iso646us", "csascii"].contains(key)
        {
            return .utf8
        }
        if key.hasPrefix("utf16") || key.hasPrefix("utf32") || key.hasPrefix("ucs2") || key.hasPrefix("ucs4")
            || ["unicode", "unicodefffe", "unicodefeff", "csunicode", "iso10646ucs2", "iso10646ucs4"].contains(key)
        {
            return .wide
        }
        if let table = tables[key] { return .decoder(CharsetDecoder(name: table.name, kind: .table(table.codes))) }
        for candidate in iconvCandidates(label: label, key: key) {
            if let descriptor = IconvDescriptor(from: candidate) {
                return .decoder(CharsetDecoder(name: SAXState.snippet(label), kind: .iconv(descriptor)))
            }
        }
        return .unknown
    }

    /// The label lower-cased, without `-`, `_`, `.`, spaces and quotes: `Shift_JIS` and `shift-jis` meet as `shiftjis`.
    static func compactKey(_ label: String) -> String {
        var key = ""
        for scalar in label.unicodeScalars.prefix(64) {
            switch scalar {
            case "-", "_", ".", " ", "\t", "\n", "\r", "\"", "'": continue
            default: key.unicodeScalars.append(scalar)
            }
        }
        return key.lowercased()
    }

    /// Character sets decoded from a table, by compact label.
    private static let tables: [String: (name: String, codes: [UInt16])] = {
        var tables: [String: (name: String, codes: [UInt16])] = [:]
        func add(_ name: String, _ codes: [UInt16], _ keys: [String]) {
            for key in keys { tables[key] = (name, codes) }
        }
        // ISO-8859-1 is read as Windows-1252 (as browsers do): bytes 0x80–0x9F are C1 controls in ISO-8859-1,
        // which no feed means, and Windows-1252's quotes, dashes and euro, which many feeds mean.
        add(
            "Windows-1252", windows1252Table,
            [
                "iso88591", "iso885911987", "latin1", "l1", "cp819", "ibm819", "isoir100", "csisolatin1", "88591",
                "windows1252", "cp1252", "xcp1252", "msansi", "ansi1252",
            ])
        add(
            "MacRoman", SingleByteCharsets.macRoman,
            [
                "macintosh", "mac", "macroman", "xmacroman", "csmacintosh", "macosroman", "xmac", "macos0",
            ])
        add(
            "MacCentralEurope", SingleByteCharsets.macCentralEurope,
            [
                "maccentraleurope", "xmacce", "macce", "xmaccentraleurroman", "maccentraleurroman",
                "maccentraleuroperoman",
                "xmaccentraleurope", "maclatin2", "xmaclatin2", "macoscentraleurope",
            ])
        add(
            "MacCyrillic", SingleByteCharsets.macCyrillic,
            [
                "maccyrillic", "xmaccyrillic", "macukrainian", "xmacukrainian", "macoscyrillic",
            ])
        add("MacGreek", SingleByteCharsets.macGreek, ["macgreek", "xmacgreek", "macosgreek"])
        add(
            "MacIceland", SingleByteCharsets.macIceland,
            [
                "maciceland", "xmaciceland", "macicelandic", "xmacicelandic", "macis", "macosicelandic",
            ])
        add("MacTurkish", SingleByteCharsets.macTurkish, ["macturkish", "xmacturkish", "macosturkish"])
        return tables
    }()

    /// Windows-1252 for bytes 0x80–0xFF. Its five unassigned bytes keep their C1 code point (which text cleaning
    /// drops), as browsers do.
    private static let windows1252Table: [UInt16] =
        InputDecoding.windows1252.map { UInt16($0) } + (0xA0...0xFF).map { UInt16($0) }

    /// Names to try with iconv, best first.
    static func iconvCandidates(label: String, key: String) -> [String] {
        var names: [String] = []
        func add(_ name: String) { if !names.contains(name) { names.append(name) } }
        // Families whose labels mean a superset in practice (what browsers decode them as).
        switch key {
        case "shiftjis", "sjis", "xsjis", "mskanji", "csshiftjis", "windows31j", "cswindows31j", "ms932", "cp932",
            "xmscp932", "ibm943", "ibm932", "shiftjis2004", "xshiftjis":
            add("CP932")
            add("SHIFT_JIS")
        case "euckr", "cseuckr", "ksc56011987", "ksc5601", "ksc56011989", "korean", "isoir149", "csksc56011987",
            "windows949", "cp949", "uhc", "mscp949", "xwindows949", "xeuckr", "ksx1001":
            add("CP949")
            add("EUC-KR")
        case "big5", "big5hkscs", "cnbig5", "xxbig5", "csbig5", "cp950", "xbig5", "big5eten", "windows950", "ms950":
            add("BIG5-HKSCS")
            add("CP950")
            add("BIG5")
        case "gbk", "gb2312", "gb231280", "chinese", "csgb2312", "csiso58gb231280", "xgbk", "cp936", "ms936",
            "windows936", "euccn", "xeuccn", "isoir58", "gb18030", "gb180302000", "gb180302005", "csgb18030":
            add("GB18030")
        default:
            break
        }
        // The label itself, when it is a plain charset name (never an iconv option such as "//TRANSLIT").
        let trimmed = label.trimmed(of: [" ", "\t", "\n", "\r", "\"", "'"])
        let plain =
            !trimmed.isEmpty && trimmed.utf8.count <= 40
            && trimmed.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x5F
                    || $0 == 0x2E || $0 == 0x3A
            }
        if plain { add(trimmed.uppercased()) }
        // Code pages by number: "ibm-850", "dos-866", "x-IBM437", "437", "windows-1250", "x-cp1250".
        var digits = Substring(key)
        for prefix in ["xibm", "csibm", "ibm", "xdos", "dos", "xcp", "cp", "mscp", "xwindows", "windows", "win", "pc"]
        where digits.hasPrefix(prefix) {
            digits = digits.dropFirst(prefix.count)
            break
        }
        if (3...4).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
            add("CP" + digits)
            add("IBM" + digits)
            add("WINDOWS-" + digits)
        }
        // "x-" prefixed private names ("x-koi8-r").
        if plain, trimmed.lowercased().hasPrefix("x-") { add(String(trimmed.dropFirst(2)).uppercased()) }
        return names
    }

    // MARK: - Decoding

    /// Decodes one chunk to UTF-8. With `final`, a character left incomplete at the end becomes U+FFFD.
    mutating func decode(_ input: UnsafeRawBufferPointer, final: Bool) -> [UInt8] {
        if pending.isEmpty { return decodeCore(input, final: final) }
        var joined = pending
        pending.removeAll()
        joined.append(contentsOf: input)
        return joined.withUnsafeBytes { decodeCore($0, final: final) }
    }

    private mutating func decodeCore(_ input: UnsafeRawBufferPointer, final: Bool) -> [UInt8] {
        switch kind {
        case .table(let table): return Self.decode(input, table: table)
        case .iconv(let descriptor): return decode(input, iconv: descriptor, final: final)
        }
    }

    private static func decode(_ input: UnsafeRawBufferPointer, table: [UInt16]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count + input.count / 4 + 8)
        for byte in input {
            if byte < 0x80 {
                out.append(byte)
            } else {
                appendUTF8(UInt32(table[Int(byte) - 0x80]), to: &out)
            }
        }
        return out
    }

    private mutating func decode(
        _ input: UnsafeRawBufferPointer, iconv descriptor: IconvDescriptor, final: Bool
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 2 + 16)
        var offset = 0
        while offset < input.count {
            let step = descriptor.convert(UnsafeRawBufferPointer(rebasing: input[offset...]), into: &out)
            offset += step.consumed
            switch step.stop {
            case .done:
                break
            case .invalid:
                // Skip one byte of the bad sequence and go on.
                Self.appendUTF8(0xFFFD, to: &out)
                invalidSequences += 1
                offset += 1
            case .incomplete:
                let rest = input.count - offset
                if final {
                    // The document ends inside a character.
                    Self.appendUTF8(0xFFFD, to: &out)
                    invalidSequences += 1
                    offset = input.count
                } else if rest > 16 {
                    // No character is that long: read it as an invalid sequence.
                    Self.appendUTF8(0xFFFD, to: &out)
                    invalidSequences += 1
                    offset += 1
                } else {
                    pending = Array(input[offset...])
                    return out
                }
            }
        }
        if final { descriptor.finish(into: &out) }
        return out
    }

    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}

extension String {
    fileprivate func trimmed(of characters: Set<Character>) -> String {
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

/// An iconv conversion descriptor from one character set to UTF-8, closed when released.
///
/// A reference type so that ``CharsetDecoder`` stays a value while exactly one owner closes the descriptor. Not
/// shared between tasks: it lives inside one ``FeedParser``, which is confined to one task.
final class IconvDescriptor {
    #if canImport(Glibc) || canImport(Musl)
    private let descriptor: iconv_t
    #endif

    /// Where one call stopped.
    enum Stop { case done, invalid, incomplete }

    /// Opens a converter from `charset` to UTF-8; nil when iconv does not know it.
    init?(from charset: String) {
        #if canImport(Glibc) || canImport(Musl)
        guard let opened = iconv_open("UTF-8", charset), opened != iconv_t(bitPattern: -1) else { return nil }
        descriptor = opened
        #else
        return nil
        #endif
    }

    deinit {
        #if canImport(Glibc) || canImport(Musl)
        iconv_close(descriptor)
        #endif
    }

    /// Converts as much of `input` as it can, appending UTF-8 to `out`. Returns the bytes consumed and why it
    /// stopped: at the end, at an invalid sequence, or at a character cut by the end of the input.
    func convert(_ input: UnsafeRawBufferPointer, into out: inout [UInt8]) -> (consumed: Int, stop: Stop) {
        #if canImport(Glibc) || canImport(Musl)
        guard let base = input.baseAddress, input.count > 0 else { return (0, .done) }
        var consumed = 0
        var buffer = [UInt8](repeating: 0, count: max(64, min(input.count * 3, 1 << 20)))
        while true {
            var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(
                mutating: (base + consumed).assumingMemoryBound(to: CChar.self))
            var inLeft = input.count - consumed
            let (written, result, error): (Int, Int, Int32) = buffer.withUnsafeMutableBytes { outBytes in
                var outPointer: UnsafeMutablePointer<CChar>? = outBytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                var outLeft = outBytes.count
                let result = iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                let error = result == -1 ? errno : 0
                return (outBytes.count - outLeft, result, error)
            }
            out.append(contentsOf: buffer[0..<written])
            consumed = input.count - inLeft
            if result != -1 { return (consumed, .done) }
            switch error {
            case E2BIG: continue
            case EINVAL: return (consumed, .incomplete)
            default: return (consumed, .invalid)
            }
        }
        #else
        return (0, .invalid)
        #endif
    }

    /// Ends the conversion: writes what a stateful character set still owes (a shift back to its initial state).
    func finish(into out: inout [UInt8]) {
        #if canImport(Glibc) || canImport(Musl)
        var buffer = [UInt8](repeating: 0, count: 64)
        let written: Int = buffer.withUnsafeMutableBytes { outBytes in
            var outPointer: UnsafeMutablePointer<CChar>? = outBytes.baseAddress?.assumingMemoryBound(to: CChar.self)
            var outLeft = outBytes.count
            _ = iconv(descriptor, nil, nil, &outPointer, &outLeft)
            return outBytes.count - outLeft
        }
        out.append(contentsOf: buffer[0..<written])
        #endif
    }
}

@available(*, unavailable)
extension IconvDescriptor: Sendable {}
