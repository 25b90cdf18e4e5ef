public import Foundation

/// URLs as the parser keeps them: their absolute text, validated once.
///
/// Building a Foundation `URL` costs several thousand instructions, and a podcast feed has three or more URLs per
/// episode, while the store and the JSON output only need the text. So the parser checks a URL's bytes and keeps its
/// text; a `URL` is built only when somebody asks for one.
public enum URLText {
    /// A Foundation URL from text the parser produced (absolute and valid by construction).
    public static func url(_ text: String) -> URL? { URL(string: text) }

    /// True when `text` (leading whitespace aside) starts with `http://` or `https://`, the scheme in any case.
    static func hasHTTPScheme(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { b in
            var i = 0
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
            func lower(_ k: Int) -> UInt8 { b[k] >= 0x41 && b[k] <= 0x5A ? b[k] | 0x20 : b[k] }
            guard b.count - i >= 7, lower(i) == 0x68, lower(i + 1) == 0x74, lower(i + 2) == 0x74, lower(i + 3) == 0x70
            else {
                return false
            }
            var j = i + 4
            if lower(j) == 0x73 { j += 1 }  // "s"
            return b.count - j >= 3 && b[j] == 0x3A && b[j + 1] == 0x2F && b[j + 2] == 0x2F  // "://"
        }
    }

    /// What a non-optional URL property returns for text that Foundation refuses, which the parser never produces.
    static let invalid = URL(string: "about:blank")!

    /// True when `bytes` are an absolute `http://` or `https://` URL that needs no trimming, escaping, unescaping or
    /// resolving: a lower-case scheme, a host of letters, digits, `.`, `-` and `_` with an optional port up to 65535, then only
    /// characters RFC 3986 allows unescaped, well-formed `%XX` escapes and at most one `#`. Foundation accepts every
    /// such text unchanged; anything else goes the slow way through Foundation.
    static func isPlainHTTP(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        var i: Int
        guard n > 8, b[0] == 0x68, b[1] == 0x74, b[2] == 0x74, b[3] == 0x70 else { return false }  // "http"
        if b[4] == 0x3A && b[5] == 0x2F && b[6] == 0x2F {  // "://"
            i = 7
        } else if b[4] == 0x73 && b[5] == 0x3A && b[6] == 0x2F && b[7] == 0x2F {  // "s://"
            i = 8
        } else {
            return false
        }
        let hostStart = i
        while i < n, isHostByte(b[i]) { i += 1 }
        guard i > hostStart else { return false }
        if i < n && b[i] == 0x3A {  // ":port"
            i += 1
            var port = 0
            let portStart = i
            while i < n, b[i] >= 0x30 && b[i] <= 0x39, i - portStart < 5 {
                port = port * 10 + Int(b[i] - 0x30)
                i += 1
            }
            guard i > portStart, port <= 65535 else { return false }
        }
        guard i == n || b[i] == 0x2F || b[i] == 0x3F || b[i] == 0x23 else { return false }  // "/", "?", "#"
        var sawFragment = false
        while i < n {
            let c = b[i]
            if c == 0x25 {  // "%XX"
                guard i + 2 < n, isHex(b[i + 1]), isHex(b[i + 2]) else { return false }
                i += 3
                continue
            }
            if c == 0x23 {  // "#"
                if sawFragment { return false }
                sawFragment = true
            } else if c == 0x26 && i + 1 < n && b[i + 1] == 0x23 {
                return false  // "&#": possibly libxml2's `&#38;`, which the slow path undoes
            } else if !isURLByte(c) {
                return false
            }
            i += 1
        }
        return true
    }

    /// Unreserved, sub-delims, ":", "@", "/" and "?" (RFC 3986), as bit masks over ASCII: bytes 0–63 and 64–127.
    /// Literals, so the hot loop reads no lazily initialised global.
    private static let urlLow: UInt64 = 0xAFFF_FFD2_0000_0000  // !$&'()*+,-./0-9:;=?
    private static let urlHigh: UInt64 = 0x47FF_FFFE_87FF_FFFF  // @A-Z_a-z~

    @inline(__always)
    static func isURLByte(_ c: UInt8) -> Bool {
        if c < 64 { return (urlLow >> UInt64(c)) & 1 != 0 }
        if c < 128 { return (urlHigh >> UInt64(c - 64)) & 1 != 0 }
        return false
    }

    @inline(__always)
    static func isHostByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || c == 0x2E || c == 0x2D
            || c == 0x5F
    }

    @inline(__always)
    static func isHex(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x66)
    }
}
