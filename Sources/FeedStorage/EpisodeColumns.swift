import FeedParsing
import Foundation
import GRDB

/// How a ``ParsedEpisode`` is laid out in the `episode` table. Lists are JSON text; dates are Unix seconds.
///
/// Built before the write transaction (it needs no database), so the single writer only runs SQL.
struct EpisodeColumns: Sendable {
    /// The columns after `fingerprint`, in table order (`guid` … `alternateEnclosures`).
    let values: [DatabaseValue]
    /// A hash of every stored field: equal fingerprints mean nothing changed.
    let fingerprint: String

    init(_ e: ParsedEpisode) {
        let enclosures = Self.json(e.enclosures) {
            .object([
                ("url", .string($0.urlString)), ("length", $0.length.map { .int(Int($0)) } ?? .null),
                ("type", .string($0.type)),
            ])
        }
        let transcripts = Self.json(e.transcripts) {
            .object([
                ("url", .string($0.urlString)), ("type", .string($0.type)), ("language", .string($0.language)),
                ("rel", .string($0.rel)),
            ])
        }
        let persons = Self.json(e.persons) {
            .object([
                ("name", .string($0.name)), ("role", .string($0.role)), ("group", .string($0.group)),
                ("href", .string($0.hrefString)), ("image", .string($0.imageString)),
            ])
        }
        let alternates = Self.json(e.alternateEnclosures) {
            .object([
                ("url", .url($0.url)), ("type", .string($0.type)), ("length", $0.length.map { .int(Int($0)) } ?? .null),
                ("bitrate", .number($0.bitrate)), ("title", .string($0.title)), ("default", .bool($0.isDefault)),
            ])
        }
        let convertible: [(any DatabaseValueConvertible)?] = [
            e.guid, e.guidIsPermaLink, e.title, e.linkString, e.description, e.summary,
            e.published?.timeIntervalSince1970, e.duration, enclosures, e.episode, e.season, e.episodeType?.rawValue,
            e.explicit, e.imageString, transcripts, e.chaptersString, persons, alternates,
        ]
        values = convertible.map { $0?.databaseValue ?? .null }
        // FNV-1a over the raw values (bytes of text, bit patterns of numbers): cheap on long show notes.
        var hash = FNV1a()
        for value in values {
            switch value.storage {
            case .null: hash.mix(0)
            case .int64(let number):
                hash.mix(1)
                hash.mix(word: UInt64(bitPattern: number))
            case .double(let number):
                hash.mix(2)
                hash.mix(word: number.bitPattern)
            case .string(let text):
                hash.mix(3)
                var text = text
                text.withUTF8 { hash.mix($0) }
            case .blob(let data):
                hash.mix(4)
                hash.mix(data)
            }
            hash.mix(0x1F)
        }
        fingerprint = String(hash.value, radix: 16)
    }

    /// A list column: JSON text, `[]` without building anything when the list is empty (the common case).
    private static func json<T>(_ items: [T], _ value: (T) -> JSONValue) -> String {
        items.isEmpty ? "[]" : JSONValue.array(items.map(value)).serialized()
    }

    static func storedEpisode(from row: Row) -> StoredEpisode {
        func url(_ column: String) -> URL? { (row[column] as String?).flatMap(URL.init(string:)) }
        func list(_ column: String) -> [[String: Any]] {
            guard let text = row[column] as String?, let data = text.data(using: .utf8),
                let array = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
            else { return [] }
            return array
        }
        func string(_ object: [String: Any], _ key: String) -> String? { object[key] as? String }
        func int64(_ object: [String: Any], _ key: String) -> Int64? { (object[key] as? NSNumber)?.int64Value }
        let episode = ParsedEpisode(
            id: row["key"],
            guid: row["guid"],
            guidIsPermaLink: row["guidIsPermaLink"],
            title: row["title"],
            link: url("link"),
            description: row["description"],
            summary: row["summary"],
            published: (row["published"] as Double?).map(Date.init(timeIntervalSince1970:)),
            duration: row["duration"],
            enclosures: list("enclosures").compactMap { object in
                string(object, "url").flatMap(URL.init(string:)).map {
                    Enclosure(url: $0, length: int64(object, "length"), type: string(object, "type"))
                }
            },
            episode: row["episodeNumber"],
            season: row["season"],
            episodeType: (row["episodeType"] as String?).flatMap(EpisodeType.init(rawValue:)),
            explicit: row["explicit"],
            image: url("image"),
            transcripts: list("transcripts").compactMap { object in
                string(object, "url").flatMap(URL.init(string:)).map {
                    Transcript(
                        url: $0, type: string(object, "type"), language: string(object, "language"),
                        rel: string(object, "rel"))
                }
            },
            chapters: url("chapters"),
            persons: list("persons").compactMap { object in
                string(object, "name").map {
                    Person(
                        name: $0, role: string(object, "role"), group: string(object, "group"),
                        href: string(object, "href").flatMap(URL.init(string:)),
                        image: string(object, "image").flatMap(URL.init(string:)))
                }
            },
            alternateEnclosures: list("alternateEnclosures").map { object in
                AlternateEnclosure(
                    url: string(object, "url").flatMap(URL.init(string:)), type: string(object, "type"),
                    length: int64(object, "length"), bitrate: (object["bitrate"] as? NSNumber)?.doubleValue,
                    title: string(object, "title"), isDefault: (object["default"] as? Bool) ?? false)
            })
        return StoredEpisode(
            subscriptionID: row["subscriptionId"], key: row["key"], episode: episode,
            firstSeenAt: Date(timeIntervalSince1970: row["firstSeenAt"]),
            lastSeenAt: Date(timeIntervalSince1970: row["lastSeenAt"]),
            firstSeenRunID: row["firstSeenRunId"])
    }
}
