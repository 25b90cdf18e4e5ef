public import Foundation

// Podcast Index namespace (`https://podcastindex.org/namespace/1.0`) and Podlove Simple Chapters values that
// `podfresh parse --json` reports. They are read and printed, not stored.

/// `podcast:updateFrequency rrule="FREQ=WEEKLY" complete="false" dtstart="2023-08-28T00:00:00.000Z">Weekly<…>`:
/// the publisher's intended release schedule.
public struct UpdateFrequency: Sendable, Hashable {
    /// The free-form text, e.g. `Weekly`.
    public var text: String?
    /// An iCalendar recurrence rule (RFC 5545), e.g. `FREQ=WEEKLY;INTERVAL=2`.
    public var rrule: String?
    /// `complete="true"`: no further episodes are planned.
    public var complete: Bool?
    /// When the rule starts.
    public var start: Date?

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(text: String? = nil, rrule: String? = nil, complete: Bool? = nil, start: Date? = nil) {
        self.text = text
        self.rrule = rrule
        self.complete = complete
        self.start = start
    }
}

/// `podcast:value type="lightning" method="keysend" suggested="0.00000005000"` with its recipients: how listeners
/// can pay the show (value for value). On an episode it replaces the channel's.
public struct ValueBlock: Sendable, Hashable {
    /// The payment layer, e.g. `lightning`.
    public var type: String?
    /// The transport, e.g. `keysend`.
    public var method: String?
    /// A suggested amount per payment, as written (a decimal in the payment layer's unit).
    public var suggested: String?
    /// Who is paid, in document order.
    public var recipients: [ValueRecipient]

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(type: String? = nil, method: String? = nil, suggested: String? = nil, recipients: [ValueRecipient] = [])
    {
        self.type = type
        self.method = method
        self.suggested = suggested
        self.recipients = recipients
    }
}

/// `podcast:valueRecipient name="Alice" type="node" address="02d5…" split="40" fee="false"`.
public struct ValueRecipient: Sendable, Hashable {
    /// Who the recipient is, e.g. `Alice (Podcaster)`.
    public var name: String?
    /// The kind of address, e.g. `node` or `lnaddress`.
    public var type: String?
    /// The receiving address, e.g. a Lightning node's public key.
    public var address: String?
    /// Shares of each payment this recipient receives.
    public var split: Double?
    /// A fee recipient (`fee="true"`); false when absent.
    public var fee: Bool
    /// A custom record key sent with each payment.
    public var customKey: String?
    /// The value sent under ``customKey``.
    public var customValue: String?

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(
        name: String? = nil, type: String? = nil, address: String? = nil, split: Double? = nil, fee: Bool = false,
        customKey: String? = nil, customValue: String? = nil
    ) {
        self.name = name
        self.type = type
        self.address = address
        self.split = split
        self.fee = fee
        self.customKey = customKey
        self.customValue = customValue
    }
}

/// `podcast:remoteItem feedGuid="917393e3-…" feedUrl="https://…" itemGuid="…" medium="music" title="…"`: a pointer
/// to another feed (or one of its items), here as an entry of the channel's `podcast:podroll`.
public struct RemoteItem: Sendable, Hashable {
    /// The remote feed's `podcast:guid`.
    public var feedGUID: String?
    /// `feedUrl` as absolute URL text.
    public var feedURLString: String?
    /// The `guid` of one item of the remote feed, when the pointer is to an item.
    public var itemGUID: String?
    /// The remote feed's `podcast:medium` when it is not `podcast`.
    public var medium: String?
    /// A title to show without fetching the remote feed.
    public var title: String?

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(
        feedGUID: String? = nil, feedURLString: String? = nil, itemGUID: String? = nil, medium: String? = nil,
        title: String? = nil
    ) {
        self.feedGUID = feedGUID
        self.feedURLString = feedURLString
        self.itemGUID = itemGUID
        self.medium = medium
        self.title = title
    }
}

/// `podcast:txt purpose="verify">S6lpp-7ZCn8-dZfGc-OoyVG</podcast:txt>`: free text for a stated purpose.
public struct PodcastText: Sendable, Hashable {
    /// What the text is for, e.g. `verify`.
    public var purpose: String?
    /// The text (line breaks kept).
    public var text: String

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(purpose: String? = nil, text: String) {
        self.purpose = purpose
        self.text = text
    }
}

/// `podcast:trailer url="https://…/teaser.mp3" pubdate="Thu, 01 Apr 2021 08:00:00 EST" length="12345678"
/// type="audio/mpeg" season="4">Coming April 1st</podcast:trailer>`: a trailer for the show or one season.
public struct Trailer: Sendable, Hashable {
    /// The absolute URL text.
    public var urlString: String
    /// The trailer's title (the element's text).
    public var title: String?
    /// `pubdate`.
    public var published: Date?
    /// Bytes; nil when absent, zero or not a number.
    public var length: Int64?
    /// The MIME type, e.g. `audio/mpeg`.
    public var type: String?
    /// The season the trailer is for.
    public var season: Int?

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(
        urlString: String, title: String? = nil, published: Date? = nil, length: Int64? = nil, type: String? = nil,
        season: Int? = nil
    ) {
        self.urlString = urlString
        self.title = title
        self.published = published
        self.length = length
        self.type = type
        self.season = season
    }
}

/// `podcast:location geo="geo:30.2672,97.7431" osm="R113314" rel="subject" country="us">Austin, TX<…>`.
public struct Location: Sendable, Hashable {
    /// The human-readable place.
    public var name: String
    /// `subject` (what the content is about, the default) or `creator` (where it was made), as written.
    public var rel: String?
    /// A `geo:` URI, e.g. `geo:30.2672,97.7431`.
    public var geo: String?
    /// An OpenStreetMap identifier, e.g. `R113314`.
    public var osm: String?
    /// An ISO 3166-1 alpha-2 country code.
    public var country: String?

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(name: String, rel: String? = nil, geo: String? = nil, osm: String? = nil, country: String? = nil) {
        self.name = name
        self.rel = rel
        self.geo = geo
        self.osm = osm
        self.country = country
    }
}

/// `podcast:license url="https://…">cc-by-4.0</podcast:license>`: the content's license.
public struct License: Sendable, Hashable {
    /// The license's identifier or name, e.g. `cc-by-4.0`.
    public var name: String?
    /// `url` as absolute URL text: where the license is written.
    public var urlString: String?

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(name: String? = nil, urlString: String? = nil) {
        self.name = name
        self.urlString = urlString
    }
}

/// `podcast:soundbite startTime="73.0" duration="60.0">Why the Podcast Namespace Matters<…>`: a shareable clip.
public struct Soundbite: Sendable, Hashable {
    /// Seconds from the start of the media.
    public var start: Double
    /// Seconds.
    public var duration: Double
    /// The clip's title (the element's text), when it has one.
    public var title: String?

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(start: Double, duration: Double, title: String? = nil) {
        self.start = start
        self.duration = duration
        self.title = title
    }
}

/// Podlove Simple Chapters, written inline: `<psc:chapter start="00:01:30.500" title="Intro" href="…" image="…"/>`
/// inside `psc:chapters` (namespace `http://podlove.org/simple-chapters`).
public struct SimpleChapter: Sendable, Hashable {
    /// Seconds from the start of the media (`start` is normal play time: `HH:MM:SS.mmm`, `MM:SS` or seconds).
    public var start: Double
    /// The chapter's title.
    public var title: String
    /// `href` as absolute URL text.
    public var hrefString: String?
    /// `image` as absolute URL text.
    public var imageString: String?

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(start: Double, title: String, hrefString: String? = nil, imageString: String? = nil) {
        self.start = start
        self.title = title
        self.hrefString = hrefString
        self.imageString = imageString
    }
}

// MARK: - Storage

/// An episode's Podcast Index and Podlove values that most episodes lack.
struct EpisodeExtras: Sendable, Hashable {
    var soundbites: [Soundbite] = []
    var simpleChapters: [SimpleChapter] = []
    var value: [ValueBlock] = []
    var txt: [PodcastText] = []
    var locations: [Location] = []
    var license: License?
    var live: LiveItem?

    var isEmpty: Bool {
        soundbites.isEmpty && simpleChapters.isEmpty && value.isEmpty && txt.isEmpty && locations.isEmpty
            && license == nil && live == nil
    }
}

/// A value kept behind one reference: a struct that holds one is as cheap to copy whatever the value's size.
indirect enum OutOfLine<Value: Sendable & Hashable>: Sendable, Hashable {
    case value(Value)

    var value: Value {
        switch self {
        case .value(let value): return value
        }
    }
}

/// `<podcast:podping usesPodping="true"><podcast:hiveAccount account="podping.aaa"/></podcast:podping>`: the feed
/// says whether its host writes podping notices when it changes, and may name the Hive accounts that send them.
public struct PodpingDeclaration: Sendable, Hashable {
    /// `usesPodping`: true or false as written; nil when the element is there without it.
    public var usesPodping: Bool?
    /// The accounts named by `podcast:hiveAccount` (its `account` attribute, or its text), in document order.
    public var hiveAccounts: [String]

    /// Creates a value from its parts (the parser fills them from the feed).
    public init(usesPodping: Bool? = nil, hiveAccounts: [String] = []) {
        self.usesPodping = usesPodping
        self.hiveAccounts = hiveAccounts
    }
}
