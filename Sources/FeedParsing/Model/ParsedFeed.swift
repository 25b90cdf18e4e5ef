public import Foundation

/// The syndication format of a parsed document, detected from its root element and namespace.
public enum FeedFormat: String, Sendable, Hashable, Codable {
    /// RSS 0.9x or 2.0 (`<rss>`).
    case rss2
    /// RSS 1.0 / RDF (`<rdf:RDF>` with the RSS 1.0 namespace).
    case rss1
    /// Atom 1.0 (`<feed xmlns="http://www.w3.org/2005/Atom">`).
    case atom
}

/// `itunes:type`: how a podcast's episodes are meant to be listened to.
public enum PodcastType: String, Sendable, Hashable, Codable {
    case episodic
    case serial
}

/// A podcast feed as parsed from one RSS 2.0, RSS 1.0 or Atom document.
///
/// Every field a real feed may omit is optional; collections are empty when absent.
public struct ParsedFeed: Sendable, Hashable {
    public var format: FeedFormat
    public var title: String?
    /// The website of the show (`<link>`, Atom `link rel="alternate"`).
    public var link: URL?
    /// The show description: `description` / Atom `subtitle`, else `itunes:summary`, else `itunes:subtitle`.
    public var description: String?
    /// `itunes:subtitle`.
    public var subtitle: String?
    public var language: String?
    /// Artwork: `itunes:image href`, else `image/url`, else Atom `logo`, else Atom `icon`.
    public var image: URL?
    /// `itunes:author`, else `managingEditor` / `dc:creator` / Atom `author/name`.
    public var author: String?
    public var owner: Owner?
    /// Categories in document order; nested `itunes:category` read as one path per innermost category,
    /// `"Parent/Child/Grandchild"`.
    public var categories: [String]
    /// `itunes:explicit` (`true`/`yes`/`explicit` → true; `false`/`no`/`clean` → false).
    public var explicit: Bool?
    /// `itunes:type`.
    public var type: PodcastType?
    /// `itunes:new-feed-url` (else an old-style `<redirect><newLocation>`): the publisher asks subscribers to move
    /// to this URL.
    public var newFeedURL: URL?
    /// `itunes:block` is `Yes`.
    public var block: Bool?
    /// `itunes:complete` is `Yes`: no more episodes will be published.
    public var complete: Bool?
    /// `podcast:guid`.
    public var podcastGUID: String?
    /// `podcast:locked` (`yes` → true, `no` → false).
    public var locked: Bool?
    /// Every `podcast:funding` with an http(s) URL.
    public var funding: [Funding]
    /// `podcast:updateFrequency` as its `rrule` attribute or text (see ``podcastUpdateFrequency`` for all of it).
    public var updateFrequency: String?
    public var generator: String?
    public var lastBuildDate: Date?
    /// RSS `<ttl>` in minutes.
    public var ttl: Int?
    /// `sy:updatePeriod` (`hourly`, `daily`, `weekly`, `monthly`, `yearly`).
    public var syndicationUpdatePeriod: String?
    /// `sy:updateFrequency`: how many times per period.
    public var syndicationUpdateFrequency: Int?
    /// `atom:link rel="self"`.
    public var selfURL: URL?
    /// RFC 5005 paging: `atom:link rel="next"`.
    public var nextPage: URL?
    /// RFC 5005 paging: `atom:link rel="first"`.
    public var firstPage: URL?
    /// RFC 5005 paging: `atom:link rel="last"`.
    public var lastPage: URL?
    /// `podcast:updateFrequency` with its text, `rrule`, `complete` and `dtstart`.
    public var podcastUpdateFrequency: UpdateFrequency?
    /// `podcast:medium`, e.g. `podcast`, `music`, `audiobook`.
    public var medium: String?
    /// `podcast:podping`: whether the feed's host announces changes through podping, and from which Hive accounts.
    public var podping: PodpingDeclaration?
    /// `podcast:license`.
    public var license: License?
    /// Every `podcast:location` of the channel.
    public var locations: [Location]
    /// Every `podcast:trailer` with an http(s) URL.
    public var trailers: [Trailer]
    /// The `podcast:remoteItem`s of `podcast:podroll`: other feeds the show recommends.
    public var podroll: [RemoteItem]
    /// Every `podcast:txt` of the channel.
    public var txt: [PodcastText]
    /// Every `podcast:value` block of the channel.
    public var value: [ValueBlock]
    /// Episodes in document order.
    public var episodes: [ParsedEpisode]
    /// Problems met while parsing that did not stop it: recovered XML errors, unparseable dates,
    /// duplicate identity keys, limits reached.
    public var warnings: [ParseWarning]

    /// Whether the document ended before its root element was closed (``ParseWarning/Reason/documentEndedEarly(root:)``):
    /// the episodes read before the break are kept, and the feed is reported, not `ok`.
    public var endedEarly: Bool {
        warnings.contains { if case .documentEndedEarly = $0.reason { true } else { false } }
    }

    public init(
        format: FeedFormat,
        title: String? = nil,
        link: URL? = nil,
        description: String? = nil,
        subtitle: String? = nil,
        language: String? = nil,
        image: URL? = nil,
        author: String? = nil,
        owner: Owner? = nil,
        categories: [String] = [],
        explicit: Bool? = nil,
        type: PodcastType? = nil,
        newFeedURL: URL? = nil,
        block: Bool? = nil,
        complete: Bool? = nil,
        podcastGUID: String? = nil,
        locked: Bool? = nil,
        funding: [Funding] = [],
        updateFrequency: String? = nil,
        generator: String? = nil,
        lastBuildDate: Date? = nil,
        ttl: Int? = nil,
        syndicationUpdatePeriod: String? = nil,
        syndicationUpdateFrequency: Int? = nil,
        selfURL: URL? = nil,
        nextPage: URL? = nil,
        firstPage: URL? = nil,
        lastPage: URL? = nil,
        podcastUpdateFrequency: UpdateFrequency? = nil,
        medium: String? = nil,
        license: License? = nil,
        locations: [Location] = [],
        trailers: [Trailer] = [],
        podroll: [RemoteItem] = [],
        txt: [PodcastText] = [],
        value: [ValueBlock] = [],
        episodes: [ParsedEpisode] = [],
        warnings: [ParseWarning] = []
    ) {
        self.format = format
        self.title = title
        self.link = link
        self.description = description
        self.subtitle = subtitle
        self.language = language
        self.image = image
        self.author = author
        self.owner = owner
        self.categories = categories
        self.explicit = explicit
        self.type = type
        self.newFeedURL = newFeedURL
        self.block = block
        self.complete = complete
        self.podcastGUID = podcastGUID
        self.locked = locked
        self.funding = funding
        self.updateFrequency = updateFrequency
        self.generator = generator
        self.lastBuildDate = lastBuildDate
        self.ttl = ttl
        self.syndicationUpdatePeriod = syndicationUpdatePeriod
        self.syndicationUpdateFrequency = syndicationUpdateFrequency
        self.selfURL = selfURL
        self.nextPage = nextPage
        self.firstPage = firstPage
        self.lastPage = lastPage
        self.podcastUpdateFrequency = podcastUpdateFrequency
        self.medium = medium
        self.license = license
        self.locations = locations
        self.trailers = trailers
        self.podroll = podroll
        self.txt = txt
        self.value = value
        self.episodes = episodes
        self.warnings = warnings
    }
}

/// `itunes:owner`.
public struct Owner: Sendable, Hashable {
    public var name: String?
    public var email: String?

    public init(name: String? = nil, email: String? = nil) {
        self.name = name
        self.email = email
    }
}

/// `podcast:funding url="https://…"`: where listeners can support the show; the text is the label.
public struct Funding: Sendable, Hashable {
    public var url: URL
    public var text: String?

    public init(url: URL, text: String? = nil) {
        self.url = url
        self.text = text
    }
}

/// A problem met while parsing that did not stop the parse: where, and a typed ``Reason`` (the facts).
/// ConsoleOutput words it (`ParseWarningText`); the parser builds no sentence.
public struct ParseWarning: Sendable, Hashable {
    /// The 1-based line in the document, or 0 when unknown.
    public var line: Int
    /// What was wrong, and what the parser did about it.
    public var reason: Reason

    public init(line: Int, _ reason: Reason) {
        self.line = line
        self.reason = reason
    }

    /// What a warning is about. Text quoted from the document is cleaned to one line and cut to its first 60
    /// characters (then ends in "…").
    public enum Reason: Sendable, Hashable {
        /// libxml2 recovered from an error in the document: its own message, cleaned to one line.
        case xml(libxml2Message: String)
        /// A namespace prefix used without a declaration (libxml2's message), read by its well-known meaning.
        case undeclaredPrefix(libxml2Message: String)
        /// The document has more than `limit` episodes (``FeedParserOptions/maxEpisodes``): the rest were ignored.
        case tooManyEpisodes(limit: Int)
        /// A field longer than `limit` bytes (``FeedParserOptions/maxFieldBytes``) was cut.
        case fieldCut(limit: Int)
        /// An episode has more than `limit` enclosures, transcripts or persons: the rest were ignored.
        case tooManyEpisodeEntries(limit: Int)
        /// The channel has more than `limit` entries of one kind (podroll, trailers, locations, txt or value).
        case tooManyChannelEntries(limit: Int)
        /// An `itunes:duration` that could not be read.
        case unreadableDuration(text: String)
        /// A `podcast:soundbite` without a readable `startTime` and `duration`, ignored.
        case unreadableSoundbite
        /// A date that could not be read, in an element or in `attribute` (e.g. `podcast:trailer pubdate`).
        case unreadableDate(text: String, attribute: String?)
        /// A URL with a scheme other than http and https (e.g. `javascript`), ignored.
        case ignoredScheme(String)
        /// Items `first` and `second` (1-based) share the episode id `id`; the first is kept.
        case sharedEpisodeID(first: Int, second: Int, id: String)
        /// `count` `podcast:source` URLs were left out because of their schemes (`schemes`, in order met).
        case sourceURLsLeftOut(count: Int, schemes: [String])
        /// An encoding label nobody can decode, from `source`; the document was read as `readAs` instead, or, when
        /// nil, as UTF-8 with the bytes that are not UTF-8 taken as Windows-1252.
        case unknownEncoding(label: String, source: EncodingSource, readAs: String?)
        /// `count` control characters that XML forbids were removed.
        case controlCharactersRemoved(count: Int)
        /// `count` bytes were not valid UTF-8 and were read as Windows-1252.
        case readAsWindows1252(count: Int)
        /// `count` byte sequences were not valid in `encoding` and were replaced by U+FFFD.
        case invalidSequences(count: Int, encoding: String)
        /// `count` more warnings were found than ``FeedParserOptions/maxWarnings`` keeps.
        case moreNotShown(count: Int)
        /// The document ended before its root element (`root`, e.g. `rss`) was closed: it was cut off, and what
        /// came before the break was read. libxml2 itself says only "Extra content at the end of the document" or
        /// "Premature end of data".
        case documentEndedEarly(root: String)
    }

    /// Where an encoding label came from.
    public enum EncodingSource: Sendable, Hashable {
        /// A byte order mark.
        case byteOrderMark
        /// The server's `Content-Type` charset.
        case server
        /// The document's XML declaration.
        case document
    }
}
