import Foundation

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
    /// `podcast:podping` was present; its `usesPodping`, and the `podcast:hiveAccount`s inside it.
    var declaresPodping = false
    var usesPodping: Bool?
    var hiveAccounts: [String] = []

    mutating func addCategory(_ category: String) {
        let path = Self.categoryPath(category)
        guard !path.isEmpty, !categories.contains(path) else { return }
        categories.append(path)
    }

    /// A category path without stray separators: `Arts/` + `Design` written as `Arts//Design`, `News/` or
    /// `Technology / Podcasting` become `Arts/Design`, `News` and `Technology/Podcasting`.
    static func categoryPath(_ text: String) -> String {
        guard text.contains("/") else { return text }
        return text.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "/")
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
    /// The zone offsets the dates above were written in (``FeedDate/writtenOffset(_:)``).
    var pubDateOffset: Int?
    var dcDateOffset: Int?
    var atomPublishedOffset: Int?
    var atomUpdatedOffset: Int?
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
    /// The guid as a link, when it is a permalink that is an http(s) URL (see `RSSElements.setGuidLink`).
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
        let html =
            contentEncoded?.string(in: text) ?? description?.string(in: text) ?? atomSummary?.string(in: text)
            ?? itunesSummary?.string(in: text)
        // The summary comes from the first field with text; it is nil when that text is only markup.
        func summary(of field: DeferredText?) -> String?? {
            guard let field, let found = field.plainSummary(in: text, limit: 500) else { return nil }
            return .some(found.isEmpty ? nil : found)
        }
        let summary =
            summary(of: itunesSummary) ?? summary(of: description) ?? summary(of: atomSummary)
            ?? summary(of: contentEncoded) ?? summary(of: itunesSubtitle)
        let published = pubDate ?? dcDate ?? atomPublished ?? atomUpdated
        let chosenGUID = guid ?? rdfAbout
        let id = EpisodeIdentity.key(
            guid: chosenGUID, enclosureURLString: identityEnclosureURL ?? identityMediaURL, linkString: link,
            title: chosenTitle,
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
        episode.publishedOffset =
            pubDate != nil
            ? pubDateOffset
            : dcDate != nil ? dcDateOffset : atomPublished != nil ? atomPublishedOffset : atomUpdatedOffset
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
