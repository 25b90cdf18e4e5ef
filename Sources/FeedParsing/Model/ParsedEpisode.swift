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
    /// The episode's web page as absolute URL text (see ``link``): `<link>` (Atom `link rel="alternate"`), else an
    /// RSS `guid` that is a permalink (the default) and an absolute http(s) URL, or a relative one under
    /// `isPermaLink="true"` said outright (resolved against `xml:base` or the feed's URL).
    public var linkString: String?
    /// The richest description, HTML kept: `content:encoded`, else `description` / Atom `content`
    /// or `summary`, else `itunes:summary`.
    public var description: String?
    /// A plain-text summary: tags stripped, entities decoded, whitespace collapsed.
    public var summary: String?
    /// `pubDate`, else `dc:date`, else Atom `published`, else Atom `updated`.
    public var published: Date?
    /// The zone offset ``published`` was written in, seconds east of UTC (`-0500` is -18000); nil when its text
    /// named no zone. Not part of the episode's identity or fields: the scheduler learns the publisher's zone from it.
    public var publishedOffset: Int?
    /// `itunes:duration` in seconds.
    public var duration: Double?
    /// Every enclosure in document order, one per URL: RSS `<enclosure>`, Atom `link rel="enclosure"` and
    /// `media:content` (also inside `media:group`) that is not an image. A repeated URL fills in the first one's
    /// missing length and type.
    public var enclosures: [Enclosure]
    /// `itunes:episode`, else `podcast:episode`.
    public var episode: Int?
    /// `itunes:season`, else `podcast:season`.
    public var season: Int?
    public var episodeType: EpisodeType?
    public var explicit: Bool?
    /// `itunes:image href`, else the first `media:thumbnail` or `media:content medium="image"` (also inside
    /// `media:group`), as absolute URL text (see ``image``).
    public var imageString: String?
    /// Every `podcast:transcript`.
    public var transcripts: [Transcript]
    /// `podcast:chapters url` as absolute URL text (see ``chapters``); inline Podlove Simple Chapters are in
    /// ``simpleChapters``.
    public var chaptersString: String?
    public var persons: [Person]
    /// Every `podcast:alternateEnclosure` with its `podcast:source`s.
    public var alternateEnclosures: [AlternateEnclosure]
    /// The fields below that most episodes lack, behind one reference (nil when all are empty), so that copying an
    /// episode costs what it did before they existed.
    var extrasStorage: OutOfLine<EpisodeExtras>?

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
        alternateEnclosures: [AlternateEnclosure] = [],
        soundbites: [Soundbite] = [],
        simpleChapters: [SimpleChapter] = [],
        value: [ValueBlock] = [],
        txt: [PodcastText] = [],
        locations: [Location] = [],
        license: License? = nil
    ) {
        self.id = id
        self.guid = guid
        self.guidIsPermaLink = guidIsPermaLink
        self.title = title
        self.linkString = link?.absoluteString
        self.description = description
        self.summary = summary
        self.published = published
        self.duration = duration
        self.enclosures = enclosures
        self.episode = episode
        self.season = season
        self.episodeType = episodeType
        self.explicit = explicit
        self.imageString = image?.absoluteString
        self.transcripts = transcripts
        self.chaptersString = chapters?.absoluteString
        self.persons = persons
        self.alternateEnclosures = alternateEnclosures
        if soundbites.isEmpty && simpleChapters.isEmpty && value.isEmpty && txt.isEmpty && locations.isEmpty
            && license == nil
        {
            extrasStorage = nil
        } else {
            extrasStorage = .value(
                EpisodeExtras(
                    soundbites: soundbites, simpleChapters: simpleChapters, value: value, txt: txt,
                    locations: locations,
                    license: license))
        }
    }

    var extras: EpisodeExtras {
        get { extrasStorage?.value ?? EpisodeExtras() }
        set { extrasStorage = newValue.isEmpty ? nil : .value(newValue) }
    }

    /// Every `podcast:soundbite` with a readable start and duration.
    public var soundbites: [Soundbite] {
        get { extras.soundbites }
        set { extras.soundbites = newValue }
    }

    /// Podlove Simple Chapters written in the item (`psc:chapters`).
    public var simpleChapters: [SimpleChapter] {
        get { extras.simpleChapters }
        set { extras.simpleChapters = newValue }
    }

    /// Every `podcast:value` block of the episode (it replaces the channel's).
    public var value: [ValueBlock] {
        get { extras.value }
        set { extras.value = newValue }
    }

    /// Every `podcast:txt` of the episode.
    public var txt: [PodcastText] {
        get { extras.txt }
        set { extras.txt = newValue }
    }

    /// Every `podcast:location` of the episode.
    public var locations: [Location] {
        get { extras.locations }
        set { extras.locations = newValue }
    }

    /// `podcast:license` of the episode.
    public var license: License? {
        get { extras.license }
        set { extras.license = newValue }
    }

    /// Set when the episode is a `podcast:liveItem` (a stream, pending, live or ended), never downloaded; nil for an
    /// ordinary `item`.
    public var live: LiveItem? {
        get { extras.live }
        set { extras.live = newValue }
    }

    /// `link`, `itunes:image` and `podcast:chapters` as Foundation URLs, built when asked: the parser keeps URLs as
    /// their validated absolute text, which is what the store and the JSON output use.
    public var link: URL? {
        get { linkString.flatMap(URLText.url) }
        set { linkString = newValue?.absoluteString }
    }

    /// `itunes:image href` as a URL (see ``link``).
    public var image: URL? {
        get { imageString.flatMap(URLText.url) }
        set { imageString = newValue?.absoluteString }
    }

    /// `podcast:chapters url` as a URL (see ``link``).
    public var chapters: URL? {
        get { chaptersString.flatMap(URLText.url) }
        set { chaptersString = newValue?.absoluteString }
    }
}

/// A media file attached to an episode.
///
/// RSS 2.0: `<enclosure url="https://example.com/ep1.mp3" length="24986239" type="audio/mpeg"/>`.
public struct Enclosure: Sendable, Hashable {
    /// The absolute URL text, as validated by the parser.
    public var urlString: String
    /// RSS `length` in bytes; nil when absent, zero, negative or not a number.
    public var length: Int64?
    /// The MIME type, e.g. `audio/mpeg`.
    public var type: String?

    public init(url: URL, length: Int64? = nil, type: String? = nil) {
        self.init(urlString: url.absoluteString, length: length, type: type)
    }

    /// An enclosure from URL text that is already absolute and valid (the parser's own values).
    init(urlString: String, length: Int64? = nil, type: String? = nil) {
        self.urlString = urlString
        self.length = length
        self.type = type
    }

    /// The URL as a Foundation `URL`, built when asked.
    public var url: URL {
        get { URLText.url(urlString) ?? URLText.invalid }
        set { urlString = newValue.absoluteString }
    }
}

/// `podcast:transcript url="https://…/ep1.vtt" type="text/vtt"`.
public struct Transcript: Sendable, Hashable {
    /// The absolute URL text, as validated by the parser.
    public var urlString: String
    public var type: String?
    public var language: String?
    public var rel: String?

    public init(url: URL, type: String? = nil, language: String? = nil, rel: String? = nil) {
        self.init(urlString: url.absoluteString, type: type, language: language, rel: rel)
    }

    init(urlString: String, type: String? = nil, language: String? = nil, rel: String? = nil) {
        self.urlString = urlString
        self.type = type
        self.language = language
        self.rel = rel
    }

    /// The URL as a Foundation `URL`, built when asked.
    public var url: URL {
        get { URLText.url(urlString) ?? URLText.invalid }
        set { urlString = newValue.absoluteString }
    }
}

/// `podcast:person role="host" href="https://…">Jane Doe</podcast:person>`.
public struct Person: Sendable, Hashable {
    public var name: String
    /// Lower-cased role; the namespace's default is `host`.
    public var role: String?
    public var group: String?
    /// `href` as absolute URL text.
    public var hrefString: String?
    /// `img` as absolute URL text.
    public var imageString: String?

    public init(name: String, role: String? = nil, group: String? = nil, href: URL? = nil, image: URL? = nil) {
        self.init(
            name: name, role: role, group: group, hrefString: href?.absoluteString, imageString: image?.absoluteString)
    }

    init(name: String, role: String?, group: String?, hrefString: String?, imageString: String?) {
        self.name = name
        self.role = role
        self.group = group
        self.hrefString = hrefString
        self.imageString = imageString
    }

    public var href: URL? {
        get { hrefString.flatMap(URLText.url) }
        set { hrefString = newValue?.absoluteString }
    }

    public var image: URL? {
        get { imageString.flatMap(URLText.url) }
        set { imageString = newValue?.absoluteString }
    }
}

/// `podcast:alternateEnclosure type="audio/opus" length="…" bitrate="…"` with its `podcast:source uri`s.
public struct AlternateEnclosure: Sendable, Hashable {
    /// `podcast:source uri="https://…" contentType="application/x-bittorrent"`: one place to get the media.
    public struct Source: Sendable, Hashable {
        /// The absolute http(s) URL text.
        public var uriString: String
        /// The MIME type of what the URI serves when it differs from the alternate's, e.g. `application/x-bittorrent`.
        public var contentType: String?

        /// Creates a source from its URL text and content type.
        public init(uriString: String, contentType: String? = nil) {
            self.uriString = uriString
            self.contentType = contentType
        }
    }

    /// The first source with an http(s) URL.
    public var url: URL?
    public var type: String?
    public var length: Int64?
    public var bitrate: Double?
    public var title: String?
    public var isDefault: Bool
    /// Every source with an http(s) URL, in document order (the first is ``url``).
    public var sources: [Source]
    /// Video height in pixels.
    public var height: Int?
    /// `lang`: a BCP 47 language tag.
    public var language: String?
    /// Groups alternates of the same content.
    public var rel: String?
    /// An RFC 6381 codecs string.
    public var codecs: String?

    public init(
        url: URL? = nil,
        type: String? = nil,
        length: Int64? = nil,
        bitrate: Double? = nil,
        title: String? = nil,
        isDefault: Bool = false,
        sources: [Source] = [],
        height: Int? = nil,
        language: String? = nil,
        rel: String? = nil,
        codecs: String? = nil
    ) {
        self.url = url
        self.type = type
        self.length = length
        self.bitrate = bitrate
        self.title = title
        self.isDefault = isDefault
        self.sources = sources
        self.height = height
        self.language = language
        self.rel = rel
        self.codecs = codecs
    }
}
