public import Foundation

/// The feeds a web page links in its head, as browsers and podcast apps find them:
/// `<link rel="alternate" type="application/rss+xml" href="/feed.xml" title="…">` (or `application/atom+xml`).
///
/// A plain scan of the page's `<link>` tags, not an HTML parser: attributes in any order and case, quoted with `"` or
/// `'` or not at all; `rel` is a list of words, one of them `alternate`; a `type` with parameters counts by its
/// media type. Relative `href`s are resolved against the page's address (or its `<base href>`), and a URL linked
/// twice is listed once. Comments are skipped.
public enum FeedDiscovery {
    /// One feed a page links.
    public struct LinkedFeed: Sendable, Hashable {
        public var url: URL
        /// Its `title` attribute, if any.
        public var title: String?

        public init(url: URL, title: String? = nil) {
            self.url = url
            self.title = title
        }
    }

    /// The media types of a linked feed.
    public static let feedTypes: Set<String> = ["application/rss+xml", "application/atom+xml"]

    /// The feeds `html` (a page fetched from `page`) links, in the page's order; http(s) URLs only.
    public static func linkedFeeds(in html: String, page: URL) -> [LinkedFeed] {
        var base = page
        var found: [LinkedFeed] = []
        var seen: Set<String> = []
        for (name, attributes) in tags(in: html) {
            if name == "base", let href = attributes["href"], let url = URL(string: href, relativeTo: page) {
                base = url.absoluteURL
                continue
            }
            guard name == "link", let href = attributes["href"], !href.isEmpty,
                let rel = attributes["rel"],
                rel.split(whereSeparator: \.isWhitespace).contains(where: {
                    $0.lowercased() == "alternate"
                }),
                let type = attributes["type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
                    .lowercased(), feedTypes.contains(type),
                let url = URL(string: href.trimmingCharacters(in: .whitespacesAndNewlines), relativeTo: base)?
                    .absoluteURL,
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else { continue }
            guard seen.insert(url.absoluteString).inserted else { continue }
            let title = attributes["title"].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            found.append(LinkedFeed(url: url, title: title?.isEmpty == true ? nil : title))
        }
        return found
    }

    /// The `<link>` and `<base>` tags of `html` up to `</head>` (or `<body>`), each with its attributes (names in
    /// lower case, values with `&amp;`-style references decoded).
    static func tags(in html: String) -> [(String, [String: String])] {
        var result: [(String, [String: String])] = []
        let scalars = Array(html.unicodeScalars)
        var i = 0
        // Tag and attribute names are ASCII: only ASCII letters are folded.
        func lower(_ index: Int) -> Character? {
            guard index < scalars.count else { return nil }
            let scalar = scalars[index]
            guard scalar.isASCII, ("A"..."Z").contains(scalar) else { return Character(scalar) }
            return Character(Unicode.Scalar(scalar.value + 32) ?? scalar)
        }
        while i < scalars.count {
            guard scalars[i] == "<" else {
                i += 1
                continue
            }
            // A comment is skipped whole.
            if i + 3 < scalars.count, scalars[i + 1] == "!", scalars[i + 2] == "-", scalars[i + 3] == "-" {
                var j = i + 4
                while j + 2 < scalars.count, !(scalars[j] == "-" && scalars[j + 1] == "-" && scalars[j + 2] == ">") {
                    j += 1
                }
                i = j + 3
                continue
            }
            var j = i + 1
            var name = ""
            while j < scalars.count, let c = lower(j), c.isLetter || c == "/" {
                name.append(c)
                j += 1
            }
            if name == "/head" || name == "body" { break }
            guard name == "link" || name == "base" else {
                i = j
                continue
            }
            var attributes: [String: String] = [:]
            while j < scalars.count, scalars[j] != ">" {
                while j < scalars.count, scalars[j].properties.isWhitespace || scalars[j] == "/" { j += 1 }
                var key = ""
                while j < scalars.count, let c = lower(j), !c.isWhitespace, c != "=", c != ">", c != "/" {
                    key.append(c)
                    j += 1
                }
                while j < scalars.count, scalars[j].properties.isWhitespace { j += 1 }
                var value = ""
                if j < scalars.count, scalars[j] == "=" {
                    j += 1
                    while j < scalars.count, scalars[j].properties.isWhitespace { j += 1 }
                    if j < scalars.count, scalars[j] == "\"" || scalars[j] == "'" {
                        let quote = scalars[j]
                        j += 1
                        while j < scalars.count, scalars[j] != quote {
                            value.unicodeScalars.append(scalars[j])
                            j += 1
                        }
                        j += 1
                    } else {
                        while j < scalars.count, !scalars[j].properties.isWhitespace, scalars[j] != ">" {
                            value.unicodeScalars.append(scalars[j])
                            j += 1
                        }
                    }
                }
                if !key.isEmpty, attributes[key] == nil { attributes[key] = decodeReferences(value) }
                if key.isEmpty, j < scalars.count, scalars[j] != ">" { j += 1 }
            }
            result.append((name, attributes))
            i = j + 1
        }
        return result
    }

    /// `&amp;`, `&quot;`, `&#39;`, `&lt;`, `&gt;` and numeric references decoded; anything else as written.
    static func decodeReferences(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = rest[rest.index(after: amp)..<semi]
            var decoded: String?
            switch entity {
            case "amp": decoded = "&"
            case "quot": decoded = "\""
            case "apos": decoded = "'"
            case "lt": decoded = "<"
            case "gt": decoded = ">"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    decoded = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
                } else if entity.hasPrefix("#") {
                    decoded = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
                }
            }
            if let decoded {
                result += decoded
                rest = rest[rest.index(after: semi)...]
            } else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
            }
        }
        return result + rest
    }
}
