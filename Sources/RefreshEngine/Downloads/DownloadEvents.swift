public import EpisodeDownloads
public import FeedModels
public import Foundation

/// One episode's media file being downloaded: enough to name it in progress lines and events.
public struct DownloadTarget: Sendable, Hashable {
    /// The episode's feed.
    public var feed: FeedTarget
    /// The episode's identity key within its feed.
    public var episodeKey: String
    /// The episode's title, if it has one.
    public var title: String?
    /// The enclosure URL asked for.
    public var url: URL
    /// The final file's path (the bytes go to `path.part` until the file is complete).
    public var file: String

    public init(feed: FeedTarget, episodeKey: String, title: String?, url: URL, file: String) {
        self.feed = feed
        self.episodeKey = episodeKey
        self.title = title
        self.url = url
        self.file = file
    }

    /// The title, or the identity key when the episode has none.
    public var displayTitle: String { title.flatMap { $0.isEmpty ? nil : $0 } ?? episodeKey }
}

/// How far one download has got (published a few times a second at most, not per chunk).
public struct DownloadProgressReport: Sendable, Hashable {
    public var target: DownloadTarget
    /// Bytes on disk so far, the resumed ones included.
    public var receivedBytes: Int64
    /// The whole file's length as the server announced it, when it did.
    public var expectedBytes: Int64?
    /// Where this transfer started (0 unless it resumed a `.part`).
    public var resumedFrom: Int64
    /// Bytes per second over this transfer so far.
    public var bytesPerSecond: Double

    public init(
        target: DownloadTarget, receivedBytes: Int64, expectedBytes: Int64?, resumedFrom: Int64,
        bytesPerSecond: Double
    ) {
        self.target = target
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.resumedFrom = resumedFrom
        self.bytesPerSecond = bytesPerSecond
    }

    /// Seconds left at the rate so far, when the length is known and bytes are arriving.
    public var secondsLeft: Double? {
        guard let expectedBytes, bytesPerSecond > 0, expectedBytes >= receivedBytes else { return nil }
        return Double(expectedBytes - receivedBytes) / bytesPerSecond
    }
}

/// Why an episode is not downloaded (the console words it).
public enum DownloadSkip: Sendable, Hashable {
    /// The user deleted the file by hand: it is not downloaded again unless asked. `againDownloads`: whether
    /// `download --again` would bring it back (it is among the episodes the feed downloads and keeps; one its
    /// filters leave out, or its `--keep` would remove at once, is not offered).
    case deletedByHand(againDownloads: Bool)
    /// A broken link: the download failed permanently `failures` times in a row (last with `error`) and is not tried
    /// again before `retryAfter` unless asked.
    case waiting(retryAfter: Date, failures: Int, error: String?)
    /// Another worker of the fleet holds the episode's lease: it is downloading it.
    case claimedByAnotherWorker
    /// Another worker of the fleet downloaded it while this run waited for a slot.
    case completedByAnotherWorker
    /// It was played to the end on another device (synced episode actions), at `at` when known.
    case playedElsewhere(at: Date?, device: String?)
}

/// Something about a feed's downloads that went wrong outside any one download (the console words it).
public enum DownloadProblem: Sendable, Hashable {
    /// The feed's downloads were not started: the store could not list them.
    case notStarted(StoreError)
    /// A file past the feed's newest `keepNewest` could not be deleted (the OS's reason text).
    case cannotDelete(path: String, keepNewest: Int, reason: String)
    /// Retention could not be applied: the store failed.
    case retentionNotApplied(keepNewest: Int, StoreError)
    /// A played episode's file could not be deleted (`--delete-played`; the OS's reason text).
    case cannotDeletePlayed(path: String, reason: String)
    /// Played episodes' files could not be deleted: the store failed.
    case playedNotDeleted(StoreError)
    /// The feed's stored filter holds a pattern that is not a regular expression: nothing of the feed is downloaded
    /// (rather than everything).
    case badFilter(pattern: String, reason: String)
}

/// Why a download failed: the typed cause (ConsoleOutput words it) and what the queue made of it.
public struct DownloadFailure: Sendable, Hashable {
    /// What happened.
    public enum Cause: Sendable, Hashable, Codable {
        /// The download itself failed.
        case download(DownloadError)
        /// The store could not record the download.
        case notRecorded(StoreError)
        /// The run was stopped before the end (`partKept`: a `.part` is kept to resume).
        case stopped(url: URL, partKept: Bool)
        /// An error of a type podfresh did not expect, with its reason text.
        case unexpected(url: URL, reason: String)
    }

    /// What happened.
    public var cause: Cause
    /// True when a `.part` file is kept for the next run to resume.
    public var partKept: Bool
    /// A broken link (404, 410, a document instead of media): the download waits before it is tried again.
    public var permanent = false
    /// Failures in a row that make the download wait, this one included (0 for one that does not: stopped, not
    /// recorded).
    public var failures = 0
    /// When the download is tried again: after a broken link, or a failure that may pass by itself (a host that
    /// does not resolve, a cut connection), as a failing feed waits.
    public var retryAfter: Date?
    /// The same failure as the last attempt's: cron mode has said it already.
    public var isRepeat = false
    /// The database failed (not the download): the run stops, and the command exits 70.
    public var databaseFailed = false

    public init(_ cause: Cause, partKept: Bool = false) {
        self.cause = cause
        self.partKept = partKept
    }

    /// The cause's stable name: `DownloadError.Kind` in snake case (`http_status`, `not_media`, `short_body`, …), or
    /// `store`, `stopped`, `internal`.
    public var kind: String {
        switch cause {
        case .download(let error): Self.kindName(error.kind)
        case .notRecorded: "store"
        case .stopped: "stopped"
        case .unexpected: "internal"
        }
    }

    /// The HTTP status, when the server's answer was the cause.
    public var status: Int? {
        if case .download(let error) = cause { return error.status }
        return nil
    }

    /// The cause as the download record keeps it (its last failure): the typed facts as JSON, worded when shown.
    public var storedCause: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(cause) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether a failure stored as `text` (``storedCause``) is a broken link (``DownloadError/isPermanent``); text
    /// stored by a podfresh from before causes were typed, kept only for broken links, is one too.
    public static func isBrokenLink(stored text: String?) -> Bool {
        guard let text else { return true }
        guard text.hasPrefix("{") else { return true }
        guard case .download(let error)? = cause(stored: text) else { return false }
        return error.isPermanent
    }

    /// The cause stored by ``storedCause``; nil for text stored by a podfresh from before causes were typed.
    public static func cause(stored text: String) -> Cause? {
        guard text.hasPrefix("{") else { return nil }
        return try? JSONDecoder().decode(Cause.self, from: Data(text.utf8))
    }

    /// A `DownloadError.Kind` in snake case, as JSON output names it.
    public static func kindName(_ kind: DownloadError.Kind) -> String {
        switch kind {
        case .unsupportedScheme: "unsupported_scheme"
        case .httpStatus: "http_status"
        case .notMedia: "not_media"
        case .emptyBody: "empty_body"
        case .unsupportedEncoding: "unsupported_encoding"
        case .noResponse: "no_response"
        case .tooSlow: "too_slow"
        case .diskFull: "disk_full"
        case .shortBody: "short_body"
        case .tooManyRedirects: "too_many_redirects"
        case .stalled: "stalled"
        case .timeout: "timeout"
        case .notEnoughSpace: "not_enough_space"
        case .io: "io"
        case .transport: "transport"
        case .tooLarge: "too_large"
        case .wrongContent: "wrong_content"
        case .hls: "hls"
        }
    }
}

/// How one download ended.
public struct DownloadOutcome: Sendable, Hashable {
    public enum Result: Sendable, Hashable {
        /// The whole file is on disk under its final name.
        case completed(bytes: Int64, resumedFrom: Int64)
        /// Nothing was marked downloaded.
        case failed(DownloadFailure)
    }

    public var target: DownloadTarget
    public var result: Result
    /// How long the transfer took.
    public var seconds: Double
    /// The audio or video container a complete file's first bytes showed; nil when none was recognised.
    public var container: MediaContainer?

    public init(target: DownloadTarget, result: Result, seconds: Double, container: MediaContainer? = nil) {
        self.target = target
        self.result = result
        self.seconds = seconds
        self.container = container
    }

    /// The failure, if the download failed.
    public var failure: DownloadFailure? {
        if case .failed(let failure) = result { return failure }
        return nil
    }
}

/// A file podfresh downloaded and then deleted: the feed keeps only its newest N (`podfresh set --keep`), or deletes
/// what was played (`podfresh set --delete-played on`).
public struct DownloadRemoval: Sendable, Hashable {
    /// Why a file was deleted.
    public enum Reason: String, Sendable, Hashable {
        /// Past the feed's newest N.
        case retention
        /// Its episode was played to the end on some device.
        case played
    }

    public var feed: FeedTarget
    public var episodeKey: String
    /// The file deleted.
    public var file: String
    /// The feed's setting: how many files it keeps (retention only).
    public var keepNewest: Int?
    public var reason: Reason

    public init(feed: FeedTarget, episodeKey: String, file: String, keepNewest: Int?, reason: Reason = .retention) {
        self.feed = feed
        self.episodeKey = episodeKey
        self.file = file
        self.keepNewest = keepNewest
        self.reason = reason
    }
}

/// The totals of the downloads of one run.
public struct DownloadSummary: Sendable, Hashable {
    /// Every finished download, in the order they finished.
    public var outcomes: [DownloadOutcome]
    /// Files deleted by retention.
    public var removed: Int
    /// Files found deleted by hand (not downloaded again unless asked).
    public var deletedByUser: Int
    /// Episodes selected that have no media file to download.
    public var withoutMedia: Int
    public var startedAt: Date
    public var endedAt: Date
    /// True when the run was stopped before every download finished.
    public var wasCancelled: Bool
    /// Episodes waiting after a permanent failure (broken links), not tried in this run.
    public var waiting: Int
    /// Episodes another worker of the fleet was downloading, or downloaded meanwhile.
    public var elsewhere: Int
    /// Files beside episodes saved (transcripts, chapters, artwork).
    public var extrasSaved = 0
    /// Files beside episodes that could not be saved (tried again later).
    public var extrasFailed = 0
    /// Downloaded files whose tags were written (`podfresh set FEED --tags on|merge`).
    public var tagsWritten = 0
    /// Downloaded files whose tags could not be written (the files kept as downloaded).
    public var tagsFailed = 0
    /// Downloaded files in a container podfresh writes no tags into, left untouched.
    public var tagsNotTaggable = 0
    /// Episodes the feeds' download filters left out (`podfresh set FEED --include/--exclude/--min-duration`).
    public var filteredOut = 0

    public init(
        outcomes: [DownloadOutcome] = [], removed: Int = 0, deletedByUser: Int = 0, withoutMedia: Int = 0,
        startedAt: Date, endedAt: Date, wasCancelled: Bool = false, waiting: Int = 0, elsewhere: Int = 0
    ) {
        self.waiting = waiting
        self.elsewhere = elsewhere
        self.outcomes = outcomes
        self.removed = removed
        self.deletedByUser = deletedByUser
        self.withoutMedia = withoutMedia
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.wasCancelled = wasCancelled
    }

    public var completedCount: Int { outcomes.filter { $0.failure == nil }.count }
    public var failedCount: Int { outcomes.filter { $0.failure != nil }.count }
    /// True when a download failed because the database did: the command exits 70.
    public var databaseFailed: Bool { outcomes.contains { $0.failure?.databaseFailed == true } }
    /// Bytes written by this run (resumed bytes not counted again).
    public var bytesDownloaded: Int64 {
        outcomes.reduce(0) { total, outcome in
            if case .completed(let bytes, let resumedFrom) = outcome.result { return total + bytes - resumedFrom }
            return total
        }
    }
}

/// What became of one file beside an episode (`podfresh set FEED --extras on`).
public struct ExtraOutcome: Sendable, Hashable {
    /// The episode, with its media file.
    public var target: DownloadTarget
    public var kind: ExtraFile.Kind
    /// Where it was fetched from.
    public var url: URL
    /// The file saved; nil when it failed.
    public var file: String?
    /// Its size, when saved.
    public var bytes: Int64?
    /// Why it failed, when it did.
    public var failure: DownloadFailure?

    public init(
        target: DownloadTarget, kind: ExtraFile.Kind, url: URL, file: String? = nil, bytes: Int64? = nil,
        failure: DownloadFailure? = nil
    ) {
        self.target = target
        self.kind = kind
        self.url = url
        self.file = file
        self.bytes = bytes
        self.failure = failure
    }
}
