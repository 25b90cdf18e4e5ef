public import Foundation

/// `itunes:episodeType`.
public enum EpisodeType: String, Sendable, Hashable, Codable {
    case full
    case trailer
    case bonus
}

/// One episode (an RSS `<item>` or Atom `<entry>`) as parsed.
public struct ParsedEpisode: Sendable, Hashable {
    /// The episode's identity key, scoped to its feed: the trimmed guid, else the first enclosure URL,
    /// else the link, else a hash of title and published date. See ``EpisodeIdentity``.
    public var id: String
    /// `guid` (RSS 2.0), `id` (Atom), `rdf:about` (RSS 1.0), trimmed.
    public var guid: String?
    /// `guid isPermaLink` (RSS 2.0 default: true when a guid is present).
    public var guidIsPermaLink: Bool?
    public var title: String?
    public var link: URL?
    /// The richest description, HTML kept: `content:encoded`, else `description` / Atom `content`
    /// or `summary`, else `itunes:summary`.
    public var description: String?
    /// A plain-text summary: tags stripped, entities decoded, whitespace collapsed.
    public var summary: String?
    /// `pubDate`, else `dc:date`, else Atom `published`, else Atom `updated`.
    public var published: Date?
    /// `itunes:duration` in seconds.
    public var duration: Double?
    /// Every enclosure: RSS `<enclosure>`, Atom `link rel="enclosure"`; `media:content` only when none.
    public var enclosures: [Enclosure]
    /// `itunes:episode`, else `podcast:episode`.
    public var episode: Int?
    /// `itunes:season`, else `podcast:season`.
    public var season: Int?
    public var episodeType: EpisodeType?
    public var explicit: Bool?
    /// `itunes:image href`.
    public var image: URL?
    /// Every `podcast:transcript`.
    public var transcripts: [Transcript]
    /// `podcast:chapters url`, else Podlove Simple Chapters are ignored (inline).
    public var chapters: URL?
    public var persons: [Person]
    /// Every `podcast:alternateEnclosure` with its first `podcast:source`.
    public var alternateEnclosures: [AlternateEnclosure]

    public init(
        id: String,
        guid: String? = nil,
        guidIsPermaLink: Bool? = nil,
        title: String? = nil,
        link: URL? = nil,
        description: String? = nil,
        summary: String? = nil,
        published: Date? = nil,
        duration: Double? = nil,
        enclosures: [Enclosure] = [],
        episode: Int? = nil,
        season: Int? = nil,
        episodeType: EpisodeType? = nil,
        explicit: Bool? = nil,
        image: URL? = nil,
        transcripts: [Transcript] = [],
        chapters: URL? = nil,
        persons: [Person] = [],
        alternateEnclosures: [AlternateEnclosure] = []
    ) {
        self.id = id
        self.guid = guid
        self.guidIsPermaLink = guidIsPermaLink
        self.title = title
        self.link = link
        self.description = description
        self.summary = summary
        self.published = published
        self.duration = duration
        self.enclosures = enclosures
        self.episode = episode
        self.season = season
        self.episodeType = episodeType
        self.explicit = explicit
        self.image = image
        self.transcripts = transcripts
        self.chapters = chapters
        self.persons = persons
        self.alternateEnclosures = alternateEnclosures
    }
}

/// A media file attached to an episode.
///
/// RSS 2.0: `<enclosure url="https://example.com/ep1.mp3" length="24986239" type="audio/mpeg"/>`.
public struct Enclosure: Sendable, Hashable {
    public var url: URL
    /// RSS `length` in bytes; nil when absent, zero, negative or not a number.
    public var length: Int64?
    /// The MIME type, e.g. `audio/mpeg`.
    public var type: String?

    public init(url: URL, length: Int64? = nil, type: String? = nil) {
        self.url = url
        self.length = length
        self.type = type
    }
}

/// `podcast:transcript url="https://…/ep1.vtt" type="text/vtt"`.
public struct Transcript: Sendable, Hashable {
    public var url: URL
    public var type: String?
    public var language: String?
    public var rel: String?

    public init(url: URL, type: String? = nil, language: String? = nil, rel: String? = nil) {
        self.url = url
        self.type = type
        self.language = language
        self.rel = rel
    }
}

/// `podcast:person role="host" href="https://…">Jane Doe</podcast:person>`.
public struct Person: Sendable, Hashable {
    public var name: String
    /// Lower-cased role; the namespace's default is `host`.
    public var role: String?
    public var group: String?
    public var href: URL?
    public var image: URL?

    public init(name: String, role: String? = nil, group: String? = nil, href: URL? = nil, image: URL? = nil) {
        self.name = name
        self.role = role
        self.group = group
        self.href = href
        self.image = image
    }
}

/// `podcast:alternateEnclosure type="audio/opus" length="…" bitrate="…"` with its `podcast:source uri`.
public struct AlternateEnclosure: Sendable, Hashable {
    public var url: URL?
    public var type: String?
    public var length: Int64?
    public var bitrate: Double?
    public var title: String?
    public var isDefault: Bool

    public init(
        url: URL? = nil,
        type: String? = nil,
        length: Int64? = nil,
        bitrate: Double? = nil,
        title: String? = nil,
        isDefault: Bool = false
    ) {
        self.url = url
        self.type = type
        self.length = length
        self.bitrate = bitrate
        self.title = title
        self.isDefault = isDefault
    }
}
