public import Foundation

/// Channel fields as they are read, before the final choice between alternatives.
struct ChannelBuilder {
    var title: String?
    var link: URL?
    var description: String?
    var atomSubtitle: String?
    var itunesSummary: String?
    var itunesSubtitle: String?
    var language: String?
    var itunesImage: URL?
    var rssImage: URL?
    var atomLogo: URL?
    var atomIcon: URL?
    var itunesAuthor: String?
    var otherAuthor: String?
    var ownerName: String?
    var ownerEmail: String?
    var categories: [String] = []
    var explicit: Bool?
    var type: PodcastType?
    var newFeedURL: URL?
    var block: Bool?
    var complete: Bool?
    var podcastGUID: String?
    var locked: Bool?
    var funding: [Funding] = []
    var updateFrequency: String?
    var generator: String?
    var lastBuildDate: Date?
    var ttl: Int?
    var syPeriod: String?
    var syFrequency: Int?
    var selfURL: URL?
    var nextPage: URL?
    var firstPage: URL?
    var lastPage: URL?

    mutating func addCategory(_ category: String) {
        guard !category.isEmpty, !categories.contains(category) else { return }
        categories.append(category)
    }
}

/// One episode's fields as they are read.
struct EpisodeBuilder {
    /// Position of the start tag among all items, for document order when items nest illegally.
    var ordinal: Int
    var depth: Int
    var guid: String?
    var guidIsPermaLink: Bool?
    var rdfAbout: String?
    var title: String?
    var itunesTitle: String?
    var link: URL?
    var contentEncoded: String?
    var description: String?
    var atomSummary: String?
    var itunesSummary: String?
    var itunesSubtitle: String?
    var pubDate: Date?
    var dcDate: Date?
    var atomPublished: Date?
    var atomUpdated: Date?
    var duration: Double?
    var enclosures: [Enclosure] = []
    var mediaContents: [Enclosure] = []
    var itunesEpisode: Int?
    var itunesSeason: Int?
    var podcastEpisode: Int?
    var podcastSeason: Int?
    var episodeType: EpisodeType?
    var explicit: Bool?
    var image: URL?
    var transcripts: [Transcript] = []
    var chapters: URL?
    var persons: [Person] = []
    var alternateEnclosures: [AlternateEnclosure] = []
    /// Dropped because the feed already had `maxEpisodes` episodes.
    var ignored = false

    init(ordinal: Int, depth: Int) {
        self.ordinal = ordinal
        self.depth = depth
    }

    func build() -> ParsedEpisode {
        let chosenTitle = title ?? itunesTitle
        let html = contentEncoded ?? description ?? atomSummary ?? itunesSummary
        let plainSource = itunesSummary ?? description ?? atomSummary ?? contentEncoded ?? itunesSubtitle
        let allEnclosures = enclosures.isEmpty ? mediaContents : enclosures
        let published = pubDate ?? dcDate ?? atomPublished ?? atomUpdated
        let chosenGUID = guid ?? rdfAbout
        let id = EpisodeIdentity.key(
            guid: chosenGUID, enclosureURL: allEnclosures.first?.url, link: link, title: chosenTitle, published: published)
        return ParsedEpisode(
            id: id,
            guid: chosenGUID,
            guidIsPermaLink: guid == nil ? nil : (guidIsPermaLink ?? true),
            title: chosenTitle,
            link: link,
            description: html,
            summary: plainSource.map { TextCleaning.plainSummary($0, limit: 500) }.flatMap { $0.isEmpty ? nil : $0 },
            published: published,
            duration: duration,
            enclosures: allEnclosures,
            episode: itunesEpisode ?? podcastEpisode,
            season: itunesSeason ?? podcastSeason,
            episodeType: episodeType,
            explicit: explicit,
            image: image,
            transcripts: transcripts,
            chapters: chapters,
            persons: persons,
            alternateEnclosures: alternateEnclosures)
    }
}

/// How an episode's identity key is chosen, scoped to its feed.
///
/// In order: the trimmed `guid` (Atom `id`, RSS 1.0 `rdf:about`); else the first enclosure URL; else the link; else
/// `"hash:"` and a 64-bit FNV-1a hash (hex) of the title and the published date (RFC 3339). The key is stable across
/// runs and machines, so the store can tell a new episode from a known one.
public enum EpisodeIdentity {
    /// The identity key from an episode's fields.
    public static func key(guid: String?, enclosureURL: URL?, link: URL?, title: String?, published: Date?) -> String {
        if let guid, !guid.isEmpty { return guid }
        if let enclosureURL { return enclosureURL.absoluteString }
        if let link { return link.absoluteString }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let material = (title ?? "") + "\u{1F}" + (published.map { RFC3339.string(from: $0) } ?? "")
        for byte in material.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "hash:" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Cleaning text that comes from feeds.
enum TextCleaning {
    /// Removes characters that must never reach output (C0 controls but tab/newline, DEL, C1 controls) and trims.
    static func clean(_ text: String) -> String {
        var needsWork = false
        for scalar in text.unicodeScalars where isForbidden(scalar) {
            needsWork = true
            break
        }
        var result = text
        if needsWork {
            var scalars = String.UnicodeScalarView()
            for scalar in text.unicodeScalars where !isForbidden(scalar) { scalars.append(scalar) }
            result = String(scalars)
        }
        return result.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Like ``clean(_:)``, and runs of whitespace (newlines included) become one space: for titles and names.
    static func cleanLine(_ text: String) -> String {
        let cleaned = clean(text)
        guard cleaned.contains(where: { $0.isWhitespace && $0 != " " }) || cleaned.contains("  ") else { return cleaned }
        return cleaned.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || (0x7F...0x9F).contains(v)
    }

    /// Plain text from HTML: tags removed, common entities decoded, whitespace collapsed, cut at `limit` characters.
    static func plainSummary(_ html: String, limit: Int) -> String {
        var out = ""
        out.reserveCapacity(min(html.utf8.count, limit * 2))
        var inTag = false
        var entity: String? = nil
        var count = 0
        var lastWasSpace = true
        func emit(_ c: Character) {
            if c.isWhitespace {
                if lastWasSpace { return }
                out.append(" ")
                lastWasSpace = true
            } else {
                out.append(c)
                lastWasSpace = false
            }
            count += 1
        }
        for c in html {
            if count >= limit { break }
            if inTag {
                if c == ">" {
                    inTag = false
                    emit(" ")
                }
                continue
            }
            if var name = entity {
                if c == ";" {
                    entity = nil
                    if let decoded = decodeEntity(name) { emit(decoded) } else { for e in "&\(name);" { emit(e) } }
                } else if name.count < 10, c.isLetter || c.isNumber || c == "#" {
                    name.append(c)
                    entity = name
                } else {
                    entity = nil
                    for e in "&\(name)" { emit(e) }
                    emit(c)
                }
                continue
            }
            switch c {
            case "<": inTag = true
            case "&": entity = ""
            default: emit(c)
            }
        }
        var result = out.trimmingCharacters(in: .whitespaces)
        if count >= limit, let lastSpace = result.lastIndex(of: " "), result.distance(from: result.startIndex, to: lastSpace) > limit / 2 {
            result = String(result[..<lastSpace]) + "…"
        }
        return clean(result)
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
        default:
            if name.hasPrefix("#x") || name.hasPrefix("#X"), let v = UInt32(name.dropFirst(2), radix: 16),
                let s = Unicode.Scalar(v), !isForbidden(s)
            {
                return Character(s)
            }
            if name.hasPrefix("#"), let v = UInt32(name.dropFirst()), let s = Unicode.Scalar(v), !isForbidden(s) {
                return Character(s)
            }
            return nil
        }
    }
}
