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
    /// `<redirect><newLocation>`, used when there is no `itunes:new-feed-url`.
    var redirectLocation: URL?
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
    var podcastUpdateFrequency: UpdateFrequency?
    var medium: String?
    var license: License?
    var locations: [Location] = []
    var trailers: [Trailer] = []
    var podroll: [RemoteItem] = []
    var txt: [PodcastText] = []
    var value: [ValueBlock] = []

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
    /// URLs as their absolute text (see ``URLText``).
    var link: String?
    // Show notes, kept as bytes until ``build(text:)`` knows which of them the episode uses.
    var contentEncoded: DeferredText?
    var description: DeferredText?
    var atomSummary: DeferredText?
    var itunesSummary: DeferredText?
    var itunesSubtitle: DeferredText?
    var pubDate: Date?
    var dcDate: Date?
    var atomPublished: Date?
    var atomUpdated: Date?
    var duration: Double?
    /// `<enclosure>`, Atom `link rel="enclosure"` and `media:content` (not images) in document order, one per URL.
    var enclosures: [Enclosure] = []
    /// The first `<enclosure>` (or Atom enclosure link), and the first `media:content`: the identity key's inputs.
    var identityEnclosureURL: String?
    var identityMediaURL: String?
    var itunesEpisode: Int?
    var itunesSeason: Int?
    var podcastEpisode: Int?
    var podcastSeason: Int?
    var episodeType: EpisodeType?
    var explicit: Bool?
    var image: String?
    /// The first `media:thumbnail` or image `media:content`, used when there is no `itunes:image`.
    var mediaImage: String?
    /// The guid as a link, when it is a permalink that is an absolute http(s) URL.
    var guidLink: String?
    var transcripts: [Transcript] = []
    var chapters: String?
    var persons: [Person] = []
    var alternateEnclosures: [AlternateEnclosure] = []
    /// Soundbites, Simple Chapters, value blocks, txt, locations and license: rare, so behind one reference.
    var extrasStorage: OutOfLine<EpisodeExtras>?
    /// Dropped because the feed already had `maxEpisodes` episodes.
    var ignored = false

    init(ordinal: Int, depth: Int) {
        self.ordinal = ordinal
        self.depth = depth
    }

    var extras: EpisodeExtras {
        get { extrasStorage?.value ?? EpisodeExtras() }
        set { extrasStorage = newValue.isEmpty ? nil : .value(newValue) }
    }

    /// The parsed episode; `text` holds the bytes of its deferred fields.
    func build(text: [UInt8]) -> ParsedEpisode {
        let chosenTitle = title ?? itunesTitle
        // The first field with text left after cleaning, in each order of preference.
        let html = contentEncoded?.string(in: text) ?? description?.string(in: text) ?? atomSummary?.string(in: text)
            ?? itunesSummary?.string(in: text)
        // The summary comes from the first field with text; it is nil when that text is only markup.
        func summary(of field: DeferredText?) -> String?? {
            guard let field, let found = field.plainSummary(in: text, limit: 500) else { return nil }
            return .some(found.isEmpty ? nil : found)
        }
        let summary = summary(of: itunesSummary) ?? summary(of: description) ?? summary(of: atomSummary)
            ?? summary(of: contentEncoded) ?? summary(of: itunesSubtitle)
        let published = pubDate ?? dcDate ?? atomPublished ?? atomUpdated
        let chosenGUID = guid ?? rdfAbout
        let id = EpisodeIdentity.key(
            guid: chosenGUID, enclosureURLString: identityEnclosureURL ?? identityMediaURL, linkString: link, title: chosenTitle,
            published: published)
        var episode = ParsedEpisode(
            id: id,
            guid: chosenGUID,
            guidIsPermaLink: guid == nil ? nil : (guidIsPermaLink ?? true),
            title: chosenTitle,
            description: html,
            summary: summary ?? nil,
            published: published,
            duration: duration,
            enclosures: enclosures,
            episode: itunesEpisode ?? podcastEpisode,
            season: itunesSeason ?? podcastSeason,
            episodeType: episodeType,
            explicit: explicit,
            transcripts: transcripts,
            persons: persons,
            alternateEnclosures: alternateEnclosures)
        episode.extrasStorage = extrasStorage
        episode.linkString = link ?? guidLink
        episode.imageString = image ?? mediaImage
        episode.chaptersString = chapters
        return episode
    }
}

/// A text field whose string is made only if the episode uses it: either its trimmed, non-empty bytes in the
/// parser's text buffer (not yet checked for characters to drop), or a string already cleaned.
enum DeferredText {
    case bytes(Range<Int>)
    case string(String)

    /// The field as ``SAXState/nonEmptyValue`` would have given it: cleaned, nil when nothing is left.
    func string(in text: [UInt8]) -> String? {
        switch self {
        case .bytes(let range):
            return text.withUnsafeBufferPointer { buffer in
                let string = TextCleaning.string(from: UnsafeBufferPointer(rebasing: buffer[range]), collapse: false)
                return string.isEmpty ? nil : string
            }
        case .string(let string): return string
        }
    }

    /// The plain-text summary of the field, straight from clean bytes; nil when no text is left after cleaning.
    func plainSummary(in text: [UInt8], limit: Int) -> String? {
        switch self {
        case .bytes(let range):
            return text.withUnsafeBufferPointer { buffer in
                let bytes = UnsafeBufferPointer(rebasing: buffer[range])
                if TextCleaning.needsCleaning(bytes, collapse: false) {
                    let cleaned = TextCleaning.string(from: bytes, collapse: false)
                    return cleaned.isEmpty ? nil : TextCleaning.plainSummary(cleaned, limit: limit)
                }
                return TextCleaning.plainSummary(bytes: bytes, limit: limit)
            }
        case .string(let string): return TextCleaning.plainSummary(string, limit: limit)
        }
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
        key(guid: guid, enclosureURLString: enclosureURL?.absoluteString, linkString: link?.absoluteString, title: title, published: published)
    }

    /// The identity key from an episode's fields, URLs given as their absolute text.
    public static func key(guid: String?, enclosureURLString enclosureURL: String?, linkString link: String?, title: String?, published: Date?) -> String {
        if let guid, !guid.isEmpty { return guid }
        if let enclosureURL { return enclosureURL }
        if let link { return link }
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
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

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
        if !needsCleaning(trimmed, collapse: collapse) { return String(decoding: trimmed, as: UTF8.self) }
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
            if b < 0x20 || b == 0x7F {
                i += 1
                continue
            }
            if b == 0xC2 && i + 1 < count && trimmed[i + 1] >= 0x80 && trimmed[i + 1] <= 0x9F {
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
        return String(decoding: out, as: UTF8.self)
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
                var suspicious = controls != 0 && (collapse || !ByteScan.onlyWhitespaceControls(word, controls)) ? controls : 0
                // DEL, and the lead byte of a C1 control (only in words that are not all ASCII).
                suspicious |= ascii
                    ? ByteScan.asciiDeleteBytes(word) : ByteScan.bytes(word, equalTo: 0x7F) | ByteScan.bytes(word, equalTo: 0xC2)
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

    private static func blockNeedsCleaning(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, collapse: Bool) -> Bool {
        let count = bytes.count
        var i = from
        while i < to {
            let b = bytes[i]
            if b < 0x20 {
                if !isSpace(b) || collapse { return true }
            } else if b == 0x7F || (b == 0xC2 && i + 1 < count && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9F) {
                return true
            } else if collapse && b == 0x20 && i + 1 < count && isSpace(bytes[i + 1]) {
                return true
            }
            i += 1
        }
        return false
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || (0x7F...0x9F).contains(v)
    }

    /// A numeric character reference's character: `&#150;` (a C1 control) means Windows-1252's `–`, as in HTML;
    /// nil for characters that must not reach output.
    static func referencedCharacter(_ value: UInt32) -> Character? {
        var value = value
        if (0x80...0x9F).contains(value) { value = InputDecoding.windows1252[Int(value - 0x80)] }
        guard let scalar = Unicode.Scalar(value), !isForbidden(scalar) else { return nil }
        return Character(scalar)
    }

    /// Plain text from HTML: tags removed, common entities decoded, whitespace collapsed, cut at about `limit`
    /// characters (at a word boundary, with "…"). Works on UTF-8 bytes.
    static func plainSummary(_ html: String, limit: Int) -> String {
        let utf8 = html.utf8
        return utf8.withContiguousStorageIfAvailable { plainSummary(bytes: $0, limit: limit) }
            ?? Array(utf8).withUnsafeBufferPointer { plainSummary(bytes: $0, limit: limit) }
    }

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
        while i < count {
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
                while j < count, j - i <= 10, bytes[j] == 0x23 || (bytes[j] >= 0x30 && bytes[j] <= 0x39) || (bytes[j] | 0x20 >= 0x61 && bytes[j] | 0x20 <= 0x7A) { j += 1 }
                if j < count, bytes[j] == 0x3B, let decoded = decodeEntity(String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 1)..<j]), as: UTF8.self)) {
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
        return string(from: UnsafeBufferPointer(start: out, count: length), collapse: true)
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
