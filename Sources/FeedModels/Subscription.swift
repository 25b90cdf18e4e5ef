public import Foundation

/// A subscribed feed and everything remembered about checking it.
public struct Subscription: Sendable, Hashable, Identifiable {
    public var id: Int64
    /// Where the feed is fetched from now (updated on permanent moves).
    public var url: URL
    public var title: String?
    /// The show's website.
    public var link: URL?
    public var image: URL?
    /// The feed's description, author and language, from its last fetch.
    public var description: String?
    public var author: String?
    public var language: String?
    public var addedAt: Date
    /// `ETag` of the last 200 response.
    public var etag: String?
    /// `Last-Modified` of the last 200 response.
    public var lastModified: String?
    public var lastCheckedAt: Date?
    /// The last check that returned 200 or 304.
    public var lastSuccessAt: Date?
    /// The last check that fetched without validators (forced or revalidation).
    public var lastUnconditionalAt: Date?
    public var lastStatus: Int?
    /// Consecutive failed checks; reset by a success.
    public var failureCount: Int
    /// Stable kind of the last failure (a `FeedFetchError.Kind` or `FeedParseError.Kind` raw value).
    public var lastErrorKind: String?
    /// The last failure's cause as the engine stored it: its typed facts as JSON (a `RefreshFailure.Cause`, worded by
    /// the console when shown), or, in rows an older podfresh wrote, the sentence it showed then.
    public var lastError: String?
    /// The server answered 410 Gone: never checked again.
    public var isGone: Bool
    /// The feed said `itunes:complete`: no new episodes will come.
    public var isComplete: Bool
    /// When the feed is next due.
    public var nextCheckAt: Date?
    /// Why it is due then (worded by the console when shown); ``ScheduleReason/stored(_:)`` for the sentence an older
    /// podfresh stored.
    public var nextCheckReason: ScheduleReason?
    /// The URL before the last permanent move, if it moved.
    public var movedFrom: URL?
    /// Size of the last 200 body, in bytes.
    public var lastBodyBytes: Int?
    /// The feed's own polling hints from its last fetch: `<ttl>` (minutes), `sy:updatePeriod`/`updateFrequency`,
    /// `podcast:updateFrequency`.
    public var ttlMinutes: Int?
    public var syndicationUpdatePeriod: String?
    public var syndicationUpdateFrequency: Int?
    public var podcastUpdateFrequency: String?
    /// How many episodes the first successful fetch announces as new (`add --backlog`); nil means 1.
    public var backlog: Int?
    /// A move target the user undid (`podfresh move --undo`): redirects and `itunes:new-feed-url` to it are not
    /// followed again.
    public var refusedMoveTarget: URL?
    /// Download this feed's episodes (`podfresh set FEED --download on`); off by default.
    public var downloadsEnabled: Bool
    /// Keep only the newest N downloaded files (`--keep N`); nil keeps every file.
    public var keepNewest: Int?
    /// Where this feed's files go (`--dir`); nil means the default download directory.
    public var downloadDirectory: String?
    /// How this feed's files are named (`--name-template`); nil means the default template.
    public var fileNameTemplate: String?
    /// Delete a downloaded file once its episode was played to the end on any device (`--delete-played on`; synced
    /// episode actions); off by default.
    public var deletePlayed: Bool
    /// Which episodes are downloaded, and which files `--keep` and `--delete-played` consider (`--include`,
    /// `--exclude`, `--match`, `--min-duration`); ``DownloadFilter/none`` by default.
    public var downloadFilter: DownloadFilter
    /// Save an episode's transcripts, chapters and artwork beside its media file (`--extras on`); off by default.
    public var extras: Bool
    /// Write the episode's tags into each downloaded file (`--tags on|merge`); off by default.
    public var tagMode: TagMode = .off
    /// Downloads take the episodes first seen after this time (`set FEED --download on` sets it), and of those seen
    /// before only the newest ``downloadBacklog``; nil takes every episode (a feed whose downloads were on before
    /// podfresh downloaded from then on).
    public var downloadsSince: Date?
    /// How many of the episodes seen before ``downloadsSince`` are downloaded (`set FEED --backlog N|all`): 1 by
    /// default, the newest episode when downloads were turned on; nil takes every one.
    public var downloadBacklog: Int? = 1
    /// The digest of the last body read whole (``BodyDigest`` in the engine), to tell a body identical to it without
    /// parsing it; nil until a body was read whole.
    public var lastBodyDigest: String?
    /// When a body was last read to its end (not stopped at its known leading episodes, issue #36); nil never.
    public var lastWholeReadAt: Date?
    /// When the feed publishes, as the scheduler learned it (`PublicationModel` in FeedScheduling, as its stored
    /// JSON); nil until a check learned it.
    public var publicationModel: String?
    /// The last body read to its end broke off before its root element closed: what came before was stored, and
    /// `list` and `status` show the feed with a warning instead of `ok`.
    public var endedEarly = false

    public init(
        id: Int64,
        url: URL,
        title: String? = nil,
        link: URL? = nil,
        image: URL? = nil,
        description: String? = nil,
        author: String? = nil,
        language: String? = nil,
        addedAt: Date,
        etag: String? = nil,
        lastModified: String? = nil,
        lastCheckedAt: Date? = nil,
        lastSuccessAt: Date? = nil,
        lastUnconditionalAt: Date? = nil,
        lastStatus: Int? = nil,
        failureCount: Int = 0,
        lastErrorKind: String? = nil,
        lastError: String? = nil,
        isGone: Bool = false,
        isComplete: Bool = false,
        nextCheckAt: Date? = nil,
        nextCheckReason: ScheduleReason? = nil,
        movedFrom: URL? = nil,
        lastBodyBytes: Int? = nil,
        ttlMinutes: Int? = nil,
        syndicationUpdatePeriod: String? = nil,
        syndicationUpdateFrequency: Int? = nil,
        podcastUpdateFrequency: String? = nil,
        backlog: Int? = nil,
        refusedMoveTarget: URL? = nil,
        downloadsEnabled: Bool = false,
        keepNewest: Int? = nil,
        downloadDirectory: String? = nil,
        fileNameTemplate: String? = nil,
        deletePlayed: Bool = false,
        downloadFilter: DownloadFilter = .none,
        extras: Bool = false
    ) {
        self.downloadFilter = downloadFilter
        self.extras = extras
        self.deletePlayed = deletePlayed
        self.downloadsEnabled = downloadsEnabled
        self.keepNewest = keepNewest
        self.downloadDirectory = downloadDirectory
        self.fileNameTemplate = fileNameTemplate
        self.backlog = backlog
        self.refusedMoveTarget = refusedMoveTarget
        self.ttlMinutes = ttlMinutes
        self.syndicationUpdatePeriod = syndicationUpdatePeriod
        self.syndicationUpdateFrequency = syndicationUpdateFrequency
        self.podcastUpdateFrequency = podcastUpdateFrequency
        self.lastBodyBytes = lastBodyBytes
        self.id = id
        self.url = url
        self.title = title
        self.link = link
        self.image = image
        self.description = description
        self.author = author
        self.language = language
        self.addedAt = addedAt
        self.etag = etag
        self.lastModified = lastModified
        self.lastCheckedAt = lastCheckedAt
        self.lastSuccessAt = lastSuccessAt
        self.lastUnconditionalAt = lastUnconditionalAt
        self.lastStatus = lastStatus
        self.failureCount = failureCount
        self.lastErrorKind = lastErrorKind
        self.lastError = lastError
        self.isGone = isGone
        self.isComplete = isComplete
        self.nextCheckAt = nextCheckAt
        self.nextCheckReason = nextCheckReason
        self.movedFrom = movedFrom
    }
}
