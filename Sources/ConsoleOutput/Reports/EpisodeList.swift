public import FeedModels
public import FeedParsing
import Foundation
import RefreshEngine

/// What `podfresh episodes` prints: one line per stored episode (date, feed, title), or with `--json` one JSON object
/// per episode (JSON Lines).
public struct EpisodeList: Sendable {
    /// The episodes, in the order they are listed (newest first, as the store returns them).
    public var episodes: [StoredEpisode]
    /// Each subscription's title, or its URL when it has none.
    private var feedTitles: [Int64: String]
    /// The download records of the listed episodes, by feed and key.
    private var downloads: [DownloadKey: DownloadRecord]

    private struct DownloadKey: Hashable, Sendable {
        var subscriptionID: Int64
        var key: String
    }

    /// - Parameters:
    ///   - episodes: The episodes to list, in order.
    ///   - subscriptions: The subscriptions they belong to, for their feeds' titles.
    ///   - downloads: Download records (any feed's; those of other episodes are ignored), for `file` and
    ///     `downloaded_at`.
    public init(episodes: [StoredEpisode], subscriptions: [Subscription], downloads: [DownloadRecord] = []) {
        self.episodes = episodes
        self.downloads = Dictionary(
            downloads.map { (DownloadKey(subscriptionID: $0.subscriptionID, key: $0.episodeKey), $0) },
            uniquingKeysWith: { first, _ in first })
        self.feedTitles = Dictionary(
            subscriptions.map { ($0.id, $0.title ?? $0.url.absoluteString) }, uniquingKeysWith: { first, _ in first })
    }

    /// `episodes --new` before any refresh has run.
    public static let noRunYet = "no refresh has run yet"

    /// The line when no stored episode matches.
    public static let noneMatch = "no episodes match"

    /// How wide the feed's title may be in a line before it is cut with "…".
    static let feedTitleWidth = 30

    /// Says, on standard error, that `--limit` hid some episodes and how to see them all.
    public static func moreThanShown(limit: Int, total: Int) -> String {
        "showing \(limit) of \(total) episodes; use --limit \(total) to see them all"
    }

    // MARK: - Text

    /// One line per episode — the publication day (blank when unknown), the feed's title and the episode's title, all
    /// safe to print on a terminal — or ``noneMatch`` when there are none.
    ///
    /// - Parameter width: The terminal's width: each line fits it, the feed's title taking at most a third and the
    ///   episode's title cut with "…". Nil (a pipe, a file, `--wide`): the episode's title whole.
    ///
    /// An episode that is new (first seen in the last run that checked feeds, ``newRunID``), downloaded (its file on
    /// disk, as its record says) or played (to the end on some device, or marked so with `podfresh mark`) ends with
    /// those words in brackets, `  [new, downloaded]`, kept whole when the title is cut.
    public func lines(width: Int? = nil) -> [String] {
        guard !episodes.isEmpty else { return [Self.noneMatch] }
        return episodes.map { stored in
            let episode = stored.episode
            let date = episode.published.map { LocalTime.day($0) } ?? "          "
            let title = TerminalText.sanitize(episode.title ?? "(untitled)")
            let feed = TerminalText.sanitize(feedTitles[stored.subscriptionID] ?? "")
            let marks = self.marks(of: stored)
            let tail = marks.isEmpty ? "" : "  [" + marks.joined(separator: ", ") + "]"
            // A pipe, a file, `--wide`: every line whole, the feed's title too (as the docs promise).
            guard let width else { return "\(date)  \(feed): \(title)\(tail)" }
            let head = "\(date)  \(TerminalWidth.fit(feed, to: min(Self.feedTitleWidth, max(8, width / 3)))): "
            // The marks stay whole while the title keeps a few columns; on a very narrow terminal they are cut too.
            let room = width - TerminalWidth.of(tail)
            guard room >= TerminalWidth.of(head) + 8 else { return TerminalWidth.fit(head + title + tail, to: width) }
            return TerminalWidth.fit(head + title, to: room) + tail
        }
    }

    /// The first run that checked feeds last (`episodes --new`'s): its episodes are marked `new` in text and JSON.
    public var newRunID: Int64?

    /// What an episode's line says of it: `new`, `downloaded`, `played`, in that order, each only when so.
    func marks(of stored: StoredEpisode) -> [String] {
        var marks: [String] = []
        if let live = stored.episode.live { marks.append(Self.liveMark(live)) }
        if isNew(stored) { marks.append("new") }
        if downloads[DownloadKey(subscriptionID: stored.subscriptionID, key: stored.key)]?.isOnDisk == true {
            marks.append("downloaded")
        }
        if playStates[EpisodeRef(subscriptionID: stored.subscriptionID, episodeKey: stored.key)]?.played == true {
            marks.append("played")
        }
        return marks
    }

    /// A live item's mark: `upcoming 2026-12-08 20:00`, `live`, `live stream ended`.
    static func liveMark(_ live: LiveItem) -> String {
        switch live.status {
        case .pending: "upcoming" + (live.start.map { " " + LocalTime.string($0) } ?? "")
        case .live: "live"
        case .ended: "live stream ended"
        }
    }

    /// A live item's `live` object for `--json` (null for an ordinary episode): `status` (`upcoming`, `live`,
    /// `ended`), `start`, `end` and `content_links` (`[{href, text}]`).
    static func liveJSON(_ live: LiveItem?) -> JSONValue {
        guard let live else { return .null }
        let status =
            switch live.status {
            case .pending: "upcoming"
            case .live: "live"
            case .ended: "ended"
            }
        return .object([
            ("status", .string(status)), ("start", .date(live.start)), ("end", .date(live.end)),
            (
                "content_links",
                .array(
                    live.contentLinks.map { .object([("href", .string($0.hrefString)), ("text", .string($0.text))]) })
            ),
        ])
    }

    /// First seen in the last run that checked feeds.
    func isNew(_ stored: StoredEpisode) -> Bool {
        guard let newRunID, let run = stored.firstSeenRunID else { return false }
        return run == newRunID
    }

    // MARK: - JSON

    /// `episodes --json`: one serialised ``json(_:feedTitle:)`` object per episode (nothing when there are none).
    public func jsonLines() -> [String] {
        episodes.map {
            let value = Self.json(
                $0, feedTitle: feedTitles[$0.subscriptionID],
                download: downloads[DownloadKey(subscriptionID: $0.subscriptionID, key: $0.key)])
            guard case .object(var fields) = value else { return value.serialized() }
            // Before `file` and `downloaded_at`, which stay last.
            let at = fields.firstIndex { $0.0 == "file" } ?? fields.endIndex
            fields.insert(
                contentsOf: PodpingReport.episodeFields(podping[$0.subscriptionID])
                    + Self.playFields(playStates[EpisodeRef(subscriptionID: $0.subscriptionID, episodeKey: $0.key)])
                    + [("new", .bool(isNew($0))), ("live", Self.liveJSON($0.episode.live))],
                at: at)
            return JSONValue.object(fields).serialized()
        }
    }

    /// Each feed's podping state, for `--json`: `feed_host_pings` and `feed_last_ping_at` on each episode.
    public var podping: [Int64: PodpingFeedState] = [:]

    /// Where each episode stands on the user's other devices (synced episode actions), for `--json`: `played` and
    /// `position` on each episode.
    public var playStates: [EpisodeRef: EpisodePlayState] = [:]

    /// `played` (played to the end on some device) and `position` (seconds where playing stopped, or null).
    static func playFields(_ state: EpisodePlayState?) -> [(String, JSONValue)] {
        [("played", .bool(state?.played ?? false)), ("position", .int(state?.position))]
    }

    /// One stored episode as `episodes --json` prints it: the `new_episode` event's keys first (unchanged), then
    /// every other stored field — show notes, all enclosures, transcripts, persons, alternate enclosures — and
    /// when podfresh first and last saw it; last `file` (the downloaded file's path while the record says it is on
    /// disk, else null) and `downloaded_at` (when it was completed, else null).
    public static func json(_ stored: StoredEpisode, feedTitle: String?, download: DownloadRecord? = nil) -> JSONValue {
        let episode = stored.episode
        let event = EventJSON.episodeFields(
            EpisodeAnnouncement(feedID: stored.subscriptionID, episode: episode), feedTitle: feedTitle)
        // `alternate_enclosures` comes once, after `guid_is_permalink`, in the form below.
        let eventKeys = Set(event.map(\.0)).union(["alternate_enclosures"])
        guard case .object(let parsed) = episode.jsonValue() else { return .object(event) }
        var fields = event + parsed.filter { !eventKeys.contains($0.0) }
        fields = fields.map { key, value in
            switch key {
            case "transcripts":
                return (
                    key,
                    .array(
                        episode.transcripts.map {
                            .object([
                                ("url", .string($0.urlString)), ("type", .string($0.type)),
                                ("language", .string($0.language)), ("rel", .string($0.rel)),
                            ])
                        })
                )
            case "persons":
                return (
                    key,
                    .array(
                        episode.persons.map {
                            .object([
                                ("name", .string($0.name)), ("role", .string($0.role)), ("group", .string($0.group)),
                                ("href", .string($0.hrefString)), ("image", .string($0.imageString)),
                            ])
                        })
                )
            default:
                return (key, value)
            }
        }
        return .object(
            fields + [
                ("guid_is_permalink", episode.guidIsPermaLink.map { .bool($0) } ?? .null),
                (
                    "alternate_enclosures",
                    .array(
                        episode.alternateEnclosures.map {
                            .object([
                                ("url", .url($0.url)), ("type", .string($0.type)),
                                ("length", $0.length.map { .int(Int($0)) } ?? .null),
                                ("bitrate", .number($0.bitrate)), ("title", .string($0.title)),
                                ("default", .bool($0.isDefault)),
                            ])
                        })
                ),
                ("first_seen", .date(stored.firstSeenAt)),
                ("last_seen", .date(stored.lastSeenAt)),
                ("first_seen_run", .int(stored.firstSeenRunID.map { Int($0) })),
                ("file", .string(download.flatMap { $0.isOnDisk ? $0.filePath : nil })),
                ("downloaded_at", .date(download.flatMap { $0.state == .complete ? $0.downloadedAt : nil })),
                ("download_failures", .int(download?.permanentFailures ?? 0)),
                ("download_retry_after", .date(download.flatMap { $0.state == .inProgress ? $0.retryAfter : nil })),
                (
                    "download_error",
                    .string(
                        DownloadFailureText.stored(download.flatMap { $0.state == .inProgress ? $0.lastError : nil }))
                ),
            ])
    }
}
