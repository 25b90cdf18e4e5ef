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

/// Cleaning text that comes from feeds. Works on UTF-8 bytes (no Foundation bridging): this runs for every field.
enum TextCleaning {
    /// Removes characters that must never reach output (C0 controls but tab/newline/CR, DEL, C1 controls) and trims
    /// whitespace.
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
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// True when two adjacent bytes of `word` are both spaces (conservatively: any space at all).
    @inline(__always)
    static func hasDoubleSpace(_ word: UInt64) -> Bool {
        let x = word ^ 0x2020_2020_2020_2020
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
    }

    /// A cleaned string from valid UTF-8 bytes.
    static func string(from bytes: UnsafeBufferPointer<UInt8>, collapse: Bool) -> String {
        var start = 0
        var end = bytes.count
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return "" }
        // Fast path: nothing to drop or collapse.
        var needsWork = false
        var i = start
        let raw = UnsafeRawPointer(bytes.baseAddress)
        while i < end {
            // Eight ordinary ASCII bytes at a time (none below 0x20, none at or above 0x7F).
            if let raw, i + 8 <= end {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let low = (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080
                let high = (word | (word &+ 0x0101_0101_0101_0101)) & 0x8080_8080_8080_8080
                if low == 0 && high == 0 && !(collapse && hasDoubleSpace(word)) {
                    i += 8
                    continue
                }
            }
            let b = bytes[i]
            if b < 0x20 {
                if !isSpace(b) || (collapse && b != 0x20) { needsWork = true; break }
            } else if b == 0x7F || (b == 0xC2 && i + 1 < end && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9F) {
                needsWork = true
                break
            } else if collapse && b == 0x20 && i + 1 < end && isSpace(bytes[i + 1]) {
                needsWork = true
                break
            }
            i += 1
        }
        if !needsWork { return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var lastWasSpace = false
        i = start
        while i < end {
            let b = bytes[i]
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
            lastWasSpace = false
            if b < 0x20 || b == 0x7F {
                i += 1
                continue
            }
            if b == 0xC2 && i + 1 < end && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9F {
                i += 2
                continue
            }
            out.append(b)
            i += 1
        }
        while let last = out.last, isSpace(last) { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || (0x7F...0x9F).contains(v)
    }

    /// Plain text from HTML: tags removed, common entities decoded, whitespace collapsed, cut at about `limit`
    /// characters (at a word boundary, with "…"). Works on UTF-8 bytes.
    static func plainSummary(_ html: String, limit: Int) -> String {
        let utf8 = html.utf8
        return utf8.withContiguousStorageIfAvailable { plainSummary(bytes: $0, limit: limit) }
            ?? Array(utf8).withUnsafeBufferPointer { plainSummary(bytes: $0, limit: limit) }
    }

    static func plainSummary(bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(min(bytes.count, limit * 2))
        var characters = 0
        var lastWasSpace = true
        var cut = false
        var i = 0
        let count = bytes.count
        while i < count {
            if characters >= limit {
                cut = true
                break
            }
            let byte = bytes[i]
            if byte == 0x3C {  // "<": skip the tag
                i += 1
                while i < count && bytes[i] != 0x3E { i += 1 }
                i += 1
                if !lastWasSpace { out.append(0x20); characters += 1 }
                lastWasSpace = true
            } else if byte == 0x26 {  // "&": an entity
                var j = i + 1
                while j < count, j - i <= 10, bytes[j] == 0x23 || (bytes[j] >= 0x30 && bytes[j] <= 0x39) || (bytes[j] | 0x20 >= 0x61 && bytes[j] | 0x20 <= 0x7A) { j += 1 }
                if j < count, bytes[j] == 0x3B, let decoded = decodeEntity(String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 1)..<j]), as: UTF8.self)) {
                    if decoded.isWhitespace {
                        if !lastWasSpace { out.append(0x20); characters += 1 }
                        lastWasSpace = true
                    } else {
                        out.append(contentsOf: decoded.utf8)
                        characters += 1
                        lastWasSpace = false
                    }
                    i = j + 1
                } else {
                    out.append(0x26)
                    characters += 1
                    lastWasSpace = false
                    i += 1
                }
            } else if isSpace(byte) {
                if !lastWasSpace { out.append(0x20); characters += 1 }
                lastWasSpace = true
                i += 1
            } else {
                out.append(byte)
                if byte & 0xC0 != 0x80 { characters += 1 }
                lastWasSpace = false
                i += 1
            }
        }
        if cut {
            // Do not end inside a multi-byte character or a word.
            while let last = out.last, last & 0xC0 == 0x80 { out.removeLast() }
            if let last = out.last, last >= 0xC0 { out.removeLast() }
            if let space = out.lastIndex(of: 0x20), space > out.count / 2 { out.removeSubrange(space...) }
            out.append(contentsOf: Array("…".utf8))
        }
        return out.withUnsafeBufferPointer { string(from: $0, collapse: true) }
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

extension String {
    /// Trimmed of ASCII whitespace and cleaned of control characters, without Foundation (which bridges through
    /// UTF-16 and is slow on this hot path).
    var trimmedText: String { TextCleaning.clean(self) }
}
