import FeedModels
import FeedParsing
import Foundation
import GRDB

/// How a ``ParsedEpisode`` is laid out in the `episode` table: its ``EpisodeFields`` as SQLite values (lists are JSON
/// text; dates are Unix seconds), and their one fingerprint (``EpisodeFields/fingerprint``, the same in every store).
///
/// Built before the write transaction (it needs no database), so the single writer only runs SQL.
struct EpisodeColumns: Sendable {
    /// The columns after `fingerprint`, in table order (`guid` … `alternateEnclosures`, `liveItem`), as statement arguments.
    ///
    /// Built here, off the single writer: GRDB's generic `StatementArguments` initialiser projects each value through
    /// a key path instantiated per call, which costs the writer a quarter of its time in a cold refresh; arguments
    /// appended to arguments are a plain array append.
    let arguments: StatementArguments
    /// A hash of every stored field: equal fingerprints mean nothing changed.
    let fingerprint: String

    init(_ e: ParsedEpisode) {
        self.init(EpisodeFields(e))
    }

    init(_ f: EpisodeFields) {
        let convertible: [(any DatabaseValueConvertible)?] = [
            f.guid, f.guidIsPermaLink, f.title, f.link, f.description, f.summary, f.published, f.duration,
            f.enclosures, f.episodeNumber, f.season, f.episodeType, f.explicit, f.image, f.transcripts, f.chapters,
            f.persons, f.alternateEnclosures, f.live,
        ]
        arguments = StatementArguments(convertible)
        fingerprint = f.fingerprint
    }

    static func storedEpisode(from row: Row) -> StoredEpisode {
        let fields = EpisodeFields(
            guid: row["guid"], guidIsPermaLink: row["guidIsPermaLink"], title: row["title"], link: row["link"],
            description: row["description"], summary: row["summary"], published: row["published"],
            duration: row["duration"], enclosures: row["enclosures"] ?? "[]", episodeNumber: row["episodeNumber"],
            season: row["season"], episodeType: row["episodeType"], explicit: row["explicit"], image: row["image"],
            transcripts: row["transcripts"] ?? "[]", chapters: row["chapters"], persons: row["persons"] ?? "[]",
            alternateEnclosures: row["alternateEnclosures"] ?? "[]", live: row["liveItem"])
        let episode = fields.episode(key: row["key"])
        return StoredEpisode(
            subscriptionID: row["subscriptionId"], key: row["key"], episode: episode,
            firstSeenAt: Date(timeIntervalSince1970: row["firstSeenAt"]),
            lastSeenAt: Date(timeIntervalSince1970: row["lastSeenAt"]),
            firstSeenRunID: row["firstSeenRunId"])
    }
}
