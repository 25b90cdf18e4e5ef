public import Foundation

/// The one spelling of a feed URL that the store keeps and compares.
///
/// Two URLs that differ only in the case of the scheme or host (`HTTPS://Example.COM/feed` and
/// `https://example.com/feed`) or in a fragment (`…/feed#latest`) name the same feed: a fragment never reaches the
/// server, and schemes and hosts are case-insensitive (RFC 3986 §3.1, §3.2.2). Everything else — path, query, user
/// information, percent-encoding — is kept byte for byte, since servers may treat it case-sensitively.
public enum FeedURL {
    /// `url` with its scheme and host lowercased and its fragment removed.
    public static func normalized(_ url: URL) -> URL {
        let text = normalizedString(url.absoluteString)
        return text == url.absoluteString ? url : (URL(string: text) ?? url)
    }

    /// ``normalized(_:)`` on the URL's text.
    public static func normalizedString(_ text: String) -> String {
        if isNormalized(text) { return text }
        var text = Substring(text)
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        guard let colon = text.firstIndex(of: ":") else { return String(text) }
        let scheme = text[..<colon]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else {
            return String(text)
        }
        var result = scheme.lowercased() + ":"
        var rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return result + rest }
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        // user:password@host:port — only the host (and the port's digits, unaffected) is case-insensitive.
        let hostStart = authority.lastIndex(of: "@").map(authority.index(after:)) ?? authority.startIndex
        result += "//" + authority[..<hostStart] + authority[hostStart...].lowercased()
        return result + rest[authorityEnd...]
    }

    /// Whether `text` is already in ``normalizedString(_:)``'s spelling: no fragment, and no capital letter in its
    /// scheme or (for a URL with `//`) its authority. A byte scan, so comparing many URLs (a sync's episode actions)
    /// costs no copies for the usual lowercase ones.
    static func isNormalized(_ text: String) -> Bool {
        var phase = 0  // 0: scheme, 1: after ':', 2: after ':/', 3: authority, 4: the rest
        for byte in text.utf8 {
            if byte == UInt8(ascii: "#") { return false }
            switch phase {
            case 0:
                if byte == UInt8(ascii: ":") {
                    phase = 1
                } else if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                    return false
                }
            case 1: phase = byte == UInt8(ascii: "/") ? 2 : 4
            case 2: phase = byte == UInt8(ascii: "/") ? 3 : 4
            case 3:
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") {
                    phase = 4
                } else if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                    return false
                }
            default: break
            }
        }
        return true
    }
}
