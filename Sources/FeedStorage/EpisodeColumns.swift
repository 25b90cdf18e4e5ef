import FeedModels
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
        let enclosures = EpisodeFields.enclosuresJSON(e)
        let transcripts = EpisodeFields.transcriptsJSON(e)
        let persons = EpisodeFields.personsJSON(e)
        let alternates = EpisodeFields.alternateEnclosuresJSON(e)
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

    static func storedEpisode(from row: Row) -> StoredEpisode {
        let fields = EpisodeFields(
            guid: row["guid"], guidIsPermaLink: row["guidIsPermaLink"], title: row["title"], link: row["link"],
            description: row["description"], summary: row["summary"], published: row["published"],
            duration: row["duration"], enclosures: row["enclosures"] ?? "[]", episodeNumber: row["episodeNumber"],
            season: row["season"], episodeType: row["episodeType"], explicit: row["explicit"], image: row["image"],
            transcripts: row["transcripts"] ?? "[]", chapters: row["chapters"], persons: row["persons"] ?? "[]",
            alternateEnclosures: row["alternateEnclosures"] ?? "[]")
        let episode = fields.episode(key: row["key"])
        return StoredEpisode(
            subscriptionID: row["subscriptionId"], key: row["key"], episode: episode,
            firstSeenAt: Date(timeIntervalSince1970: row["firstSeenAt"]),
            lastSeenAt: Date(timeIntervalSince1970: row["lastSeenAt"]),
            firstSeenRunID: row["firstSeenRunId"])
    }
}
