public import FeedParsing
import Foundation

/// A ``ParsedEpisode`` as every store keeps it, in no database's words: the stored fields in table order, lists as
/// JSON text, dates as Unix seconds, and a fingerprint of them all.
///
/// The SQLite store (`EpisodeColumns`) and the PostgreSQL store lay out the same fields, so an episode reads back the
/// same from either, and both tell a changed episode from an unchanged one the same way.
public struct EpisodeFields: Sendable, Hashable {
    /// `guid`.
    public var guid: String?
    /// `guid isPermaLink`.
    public var guidIsPermaLink: Bool?
    /// The episode title.
    public var title: String?
    /// The episode page, as written.
    public var link: String?
    /// The show notes.
    public var description: String?
    /// `itunes:summary`.
    public var summary: String?
    /// Unix seconds.
    public var published: Double?
    /// Seconds.
    public var duration: Double?
    /// JSON: `[{url, length, type}]`.
    public var enclosures: String
    /// `itunes:episode`.
    public var episodeNumber: Int?
    /// `itunes:season`.
    public var season: Int?
    /// `itunes:episodeType` (an ``EpisodeType`` raw value).
    public var episodeType: String?
    /// `itunes:explicit`.
    public var explicit: Bool?
    /// The episode image, as written.
    public var image: String?
    /// JSON: `[{url, type, language, rel}]`.
    public var transcripts: String
    /// `podcast:chapters`, as written.
    public var chapters: String?
    /// JSON: `[{name, role, group, href, image}]`.
    public var persons: String
    /// JSON: `[{url, type, length, bitrate, title, default}]`.
    public var alternateEnclosures: String
    /// JSON `{status, start, end, content_links: [{href, text}]}` for a `podcast:liveItem`; nil for an ordinary item.
    public var live: String?

    /// The stored fields of `e`.
    public init(_ e: ParsedEpisode) {
        guid = e.guid
        guidIsPermaLink = e.guidIsPermaLink
        title = e.title
        link = e.linkString
        description = e.description
        summary = e.summary
        published = e.published?.timeIntervalSince1970
        duration = e.duration
        enclosures = Self.enclosuresJSON(e)
        episodeNumber = e.episode
        season = e.season
        episodeType = e.episodeType?.rawValue
        explicit = e.explicit
        image = e.imageString
        transcripts = Self.transcriptsJSON(e)
        chapters = e.chaptersString
        persons = Self.personsJSON(e)
        alternateEnclosures = Self.alternateEnclosuresJSON(e)
        live = e.live.map(Self.liveJSON)
    }

    /// Fields as read back from a store.
    public init(
        guid: String?, guidIsPermaLink: Bool?, title: String?, link: String?, description: String?, summary: String?,
        published: Double?, duration: Double?, enclosures: String, episodeNumber: Int?, season: Int?,
        episodeType: String?, explicit: Bool?, image: String?, transcripts: String, chapters: String?,
        persons: String, alternateEnclosures: String, live: String? = nil
    ) {
        self.live = live
        self.guid = guid
        self.guidIsPermaLink = guidIsPermaLink
        self.title = title
        self.link = link
        self.description = description
        self.summary = summary
        self.published = published
        self.duration = duration
        self.enclosures = enclosures
        self.episodeNumber = episodeNumber
        self.season = season
        self.episodeType = episodeType
        self.explicit = explicit
        self.image = image
        self.transcripts = transcripts
        self.chapters = chapters
        self.persons = persons
        self.alternateEnclosures = alternateEnclosures
    }

    /// A hash of every field: equal fingerprints mean nothing changed.
    ///
    /// FNV-1a over the raw values (integers and booleans as 64-bit words, reals by bit pattern, text as UTF-8; each
    /// value tagged by kind and followed by a separator): cheap on long show notes. Every store stores this one
    /// fingerprint, so a fingerprint means the same in each; changing it would make every stored episode look
    /// changed once.
    public var fingerprint: String {
        var hash = FNV1a()
        func mix(_ value: Int64?) {
            guard let value else { return hash.mix(0) }
            hash.mix(1)
            hash.mix(word: UInt64(bitPattern: value))
        }
        func mix(_ value: Double?) {
            guard let value else { return hash.mix(0) }
            hash.mix(2)
            hash.mix(word: value.bitPattern)
        }
        func mix(_ value: String?) {
            guard var value else { return hash.mix(0) }
            hash.mix(3)
            value.withUTF8 { hash.mix($0) }
        }
        func separate() { hash.mix(0x1F) }
        mix(guid)
        separate()
        mix(guidIsPermaLink.map { $0 ? 1 : 0 } as Int64?)
        separate()
        for text in [title, link, description, summary] {
            mix(text)
            separate()
        }
        mix(published)
        separate()
        mix(duration)
        separate()
        mix(enclosures)
        separate()
        mix(episodeNumber.map(Int64.init))
        separate()
        mix(season.map(Int64.init))
        separate()
        mix(episodeType)
        separate()
        mix(explicit.map { $0 ? 1 : 0 } as Int64?)
        separate()
        for text in [image, transcripts, chapters, persons, alternateEnclosures] {
            mix(text)
            separate()
        }
        // Only a live item mixes this in, so an ordinary episode's fingerprint stays what it always was.
        if let live {
            mix(live)
            separate()
        }
        return String(hash.value, radix: 16)
    }

    /// The episode these fields hold, with its identity `key`.
    public func episode(key: String) -> ParsedEpisode {
        func url(_ text: String?) -> URL? { text.flatMap(URL.init(string:)) }
        func list(_ text: String) -> [[String: Any]] {
            guard let data = text.data(using: .utf8),
                let array = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
            else { return [] }
            return array
        }
        func string(_ object: [String: Any], _ key: String) -> String? { object[key] as? String }
        func int64(_ object: [String: Any], _ key: String) -> Int64? { (object[key] as? NSNumber)?.int64Value }
        var episode = ParsedEpisode(
            id: key,
            guid: guid,
            guidIsPermaLink: guidIsPermaLink,
            title: title,
            link: url(link),
            description: description,
            summary: summary,
            published: published.map(Date.init(timeIntervalSince1970:)),
            duration: duration,
            enclosures: list(enclosures).compactMap { object in
                string(object, "url").flatMap(URL.init(string:)).map {
                    Enclosure(url: $0, length: int64(object, "length"), type: string(object, "type"))
                }
            },
            episode: episodeNumber,
            season: season,
            episodeType: episodeType.flatMap(EpisodeType.init(rawValue:)),
            explicit: explicit,
            image: url(image),
            transcripts: list(transcripts).compactMap { object in
                string(object, "url").flatMap(URL.init(string:)).map {
                    Transcript(
                        url: $0, type: string(object, "type"), language: string(object, "language"),
                        rel: string(object, "rel"))
                }
            },
            chapters: url(chapters),
            persons: list(persons).compactMap { object in
                string(object, "name").map {
                    Person(
                        name: $0, role: string(object, "role"), group: string(object, "group"),
                        href: string(object, "href").flatMap(URL.init(string:)),
                        image: string(object, "image").flatMap(URL.init(string:)))
                }
            },
            alternateEnclosures: list(alternateEnclosures).map { object in
                AlternateEnclosure(
                    url: string(object, "url").flatMap(URL.init(string:)), type: string(object, "type"),
                    length: int64(object, "length"), bitrate: (object["bitrate"] as? NSNumber)?.doubleValue,
                    title: string(object, "title"), isDefault: (object["default"] as? Bool) ?? false)
            })
        episode.live = live.flatMap(Self.liveItem)
        return episode
    }

    /// A live item's stored JSON.
    static func liveJSON(_ live: LiveItem) -> String {
        JSONValue.object([
            ("status", .string(live.status.rawValue)),
            ("start", live.start.map { .number($0.timeIntervalSince1970) } ?? .null),
            ("end", live.end.map { .number($0.timeIntervalSince1970) } ?? .null),
            (
                "content_links",
                .array(
                    live.contentLinks.map { .object([("href", .string($0.hrefString)), ("text", .string($0.text))]) })
            ),
        ]).serialized()
    }

    /// Whether a stored `live` column (``live``) holds a live item whose status is live.
    public static func isLive(storedJSON: String?) -> Bool {
        storedJSON.flatMap(liveItem)?.status == .live
    }

    /// A live item from its stored JSON; nil when it does not read.
    static func liveItem(_ text: String) -> LiveItem? {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        let status = (object["status"] as? String).flatMap(LiveItem.Status.init(rawValue:)) ?? .pending
        func date(_ key: String) -> Date? {
            (object[key] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) }
        }
        let links = (object["content_links"] as? [[String: Any]] ?? []).compactMap { link in
            (link["href"] as? String).map { LiveItem.ContentLink(hrefString: $0, text: link["text"] as? String) }
        }
        return LiveItem(status: status, start: date("start"), end: date("end"), contentLinks: links)
    }

    // MARK: - List columns

    static func enclosuresJSON(_ e: ParsedEpisode) -> String {
        json(e.enclosures) {
            .object([
                ("url", .string($0.urlString)), ("length", $0.length.map { .int(Int($0)) } ?? .null),
                ("type", .string($0.type)),
            ])
        }
    }

    static func transcriptsJSON(_ e: ParsedEpisode) -> String {
        json(e.transcripts) {
            .object([
                ("url", .string($0.urlString)), ("type", .string($0.type)), ("language", .string($0.language)),
                ("rel", .string($0.rel)),
            ])
        }
    }

    static func personsJSON(_ e: ParsedEpisode) -> String {
        json(e.persons) {
            .object([
                ("name", .string($0.name)), ("role", .string($0.role)), ("group", .string($0.group)),
                ("href", .string($0.hrefString)), ("image", .string($0.imageString)),
            ])
        }
    }

    static func alternateEnclosuresJSON(_ e: ParsedEpisode) -> String {
        json(e.alternateEnclosures) {
            .object([
                ("url", .url($0.url)), ("type", .string($0.type)), ("length", $0.length.map { .int(Int($0)) } ?? .null),
                ("bitrate", .number($0.bitrate)), ("title", .string($0.title)), ("default", .bool($0.isDefault)),
            ])
        }
    }

    /// A list column: JSON text, `[]` without building anything when the list is empty (the common case).
    private static func json<T>(_ items: [T], _ value: (T) -> JSONValue) -> String {
        items.isEmpty ? "[]" : JSONValue.array(items.map(value)).serialized()
    }
}
