/// One `subscription` row exactly as the SQLite file holds it, every column, for copying the store elsewhere
/// (`podfresh migrate`).
///
/// Values are kept as stored, not as ``Subscription`` reads them: URLs stay text (a row whose URL would not parse is
/// still copied), and times stay Unix seconds (no round trip through `Date`).
public struct ExportedSubscription: Sendable, Hashable {
    /// The row's id.
    public var id: Int64
    /// The feed URL, as stored (normalised when it was written).
    public var url: String
    /// The feed's title.
    public var title: String?
    /// The show's website.
    public var link: String?
    /// The show's image.
    public var image: String?
    /// The feed's description.
    public var description: String?
    /// The feed's author.
    public var author: String?
    /// The feed's language.
    public var language: String?
    /// When it was subscribed, in Unix seconds.
    public var addedAt: Double
    /// `ETag` of the last 200 response.
    public var etag: String?
    /// `Last-Modified` of the last 200 response.
    public var lastModified: String?
    /// The last check, in Unix seconds.
    public var lastCheckedAt: Double?
    /// The last check that returned 200 or 304, in Unix seconds.
    public var lastSuccessAt: Double?
    /// The last check without validators, in Unix seconds.
    public var lastUnconditionalAt: Double?
    /// The last HTTP status.
    public var lastStatus: Int64?
    /// Consecutive failed checks.
    public var failureCount: Int64
    /// The stable kind of the last failure.
    public var lastErrorKind: String?
    /// The last failure, as shown to the user.
    public var lastError: String?
    /// The server answered 410 Gone.
    public var isGone: Bool
    /// The feed said `itunes:complete`.
    public var isComplete: Bool
    /// When the feed is next due, in Unix seconds.
    public var nextCheckAt: Double?
    /// Why it is due then.
    public var nextCheckReason: String?
    /// The URL before the last permanent move.
    public var movedFrom: String?
    /// Size of the last 200 body, in bytes.
    public var lastBodyBytes: Int64?
    /// `<ttl>`, in minutes.
    public var ttlMinutes: Int64?
    /// `sy:updatePeriod`.
    public var syndicationUpdatePeriod: String?
    /// `sy:updateFrequency`.
    public var syndicationUpdateFrequency: Int64?
    /// `podcast:updateFrequency`.
    public var podcastUpdateFrequency: String?
    /// How many episodes the first successful fetch announces (`add --backlog`).
    public var backlog: Int64?
    /// A move target the user undid.
    public var refusedMoveTarget: String?
    /// Downloads on for this feed.
    public var downloadsEnabled: Bool
    /// Keep the newest N downloaded files; nil keeps all.
    public var keepNewest: Int64?
    /// This feed's download directory; nil for the default.
    public var downloadDirectory: String?
    /// This feed's file-name template; nil for the default.
    public var fileNameTemplate: String?

    /// A row with every column given; the optional ones default to nil (for tests and other sources).
    public init(
        id: Int64, url: String, title: String? = nil, link: String? = nil, image: String? = nil,
        description: String? = nil, author: String? = nil, language: String? = nil, addedAt: Double,
        etag: String? = nil, lastModified: String? = nil, lastCheckedAt: Double? = nil, lastSuccessAt: Double? = nil,
        lastUnconditionalAt: Double? = nil, lastStatus: Int64? = nil, failureCount: Int64 = 0,
        lastErrorKind: String? = nil, lastError: String? = nil, isGone: Bool = false, isComplete: Bool = false,
        nextCheckAt: Double? = nil, nextCheckReason: String? = nil, movedFrom: String? = nil,
        lastBodyBytes: Int64? = nil, ttlMinutes: Int64? = nil, syndicationUpdatePeriod: String? = nil,
        syndicationUpdateFrequency: Int64? = nil, podcastUpdateFrequency: String? = nil, backlog: Int64? = nil,
        refusedMoveTarget: String? = nil, downloadsEnabled: Bool = false, keepNewest: Int64? = nil,
        downloadDirectory: String? = nil, fileNameTemplate: String? = nil
    ) {
        self.downloadsEnabled = downloadsEnabled
        self.keepNewest = keepNewest
        self.downloadDirectory = downloadDirectory
        self.fileNameTemplate = fileNameTemplate
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
        self.lastBodyBytes = lastBodyBytes
        self.ttlMinutes = ttlMinutes
        self.syndicationUpdatePeriod = syndicationUpdatePeriod
        self.syndicationUpdateFrequency = syndicationUpdateFrequency
        self.podcastUpdateFrequency = podcastUpdateFrequency
        self.backlog = backlog
        self.refusedMoveTarget = refusedMoveTarget
    }
}

/// One `episode` row exactly as the SQLite file holds it, every column, for copying the store elsewhere.
public struct ExportedEpisode: Sendable, Hashable {
    /// The row's id.
    public var id: Int64
    /// The subscription it belongs to (an ``ExportedSubscription/id``).
    public var subscriptionID: Int64
    /// The feed-scoped identity key.
    public var key: String
    /// The stored fingerprint of its fields, copied as it is.
    public var fingerprint: String
    /// The stored fields: text, JSON lists, Unix seconds.
    public var fields: EpisodeFields
    /// When podfresh first stored it, in Unix seconds.
    public var firstSeenAt: Double
    /// When podfresh last saw it in the feed, in Unix seconds.
    public var lastSeenAt: Double
    /// The run that first stored it (an ``ExportedRun/id``), nil when none.
    public var firstSeenRunID: Int64?

    /// A row with every column given.
    public init(
        id: Int64, subscriptionID: Int64, key: String, fingerprint: String, fields: EpisodeFields,
        firstSeenAt: Double, lastSeenAt: Double, firstSeenRunID: Int64?
    ) {
        self.id = id
        self.subscriptionID = subscriptionID
        self.key = key
        self.fingerprint = fingerprint
        self.fields = fields
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.firstSeenRunID = firstSeenRunID
    }
}

/// One `refreshRun` row exactly as the SQLite file holds it, for copying the store elsewhere.
public struct ExportedRun: Sendable, Hashable {
    /// The row's id.
    public var id: Int64
    /// When the run started, in Unix seconds.
    public var startedAt: Double
    /// When it ended, in Unix seconds; nil for a run that never finished.
    public var endedAt: Double?
    /// Feeds checked.
    public var feedsChecked: Int64
    /// Feeds that failed.
    public var feedsFailed: Int64
    /// Feeds answered 304 Not Modified.
    public var feedsNotModified: Int64
    /// Episodes announced as new.
    public var newEpisodes: Int64
    /// Body bytes downloaded.
    public var bytesDownloaded: Int64
    /// Bytes conditional GET saved.
    public var bytesSaved: Int64

    /// A row with every column given.
    public init(
        id: Int64, startedAt: Double, endedAt: Double?, feedsChecked: Int64, feedsFailed: Int64,
        feedsNotModified: Int64, newEpisodes: Int64, bytesDownloaded: Int64, bytesSaved: Int64
    ) {
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.feedsChecked = feedsChecked
        self.feedsFailed = feedsFailed
        self.feedsNotModified = feedsNotModified
        self.newEpisodes = newEpisodes
        self.bytesDownloaded = bytesDownloaded
        self.bytesSaved = bytesSaved
    }
}

/// One `download` row exactly as the SQLite file holds it, every column, for copying the store elsewhere.
///
/// Values are kept as stored, not as ``DownloadRecord`` reads them: the state and URL stay text (a state this
/// podfresh does not know, or a URL that would not parse, is still copied as it is), and times stay Unix seconds.
public struct ExportedDownload: Sendable, Hashable {
    /// Where a page of downloads ends: the row's primary key (feed and episode key), to read the next page after.
    public struct Position: Sendable, Hashable {
        /// The subscription (an ``ExportedSubscription/id``).
        public var subscriptionID: Int64
        /// The episode's key within it.
        public var episodeKey: String

        /// The position of the row with this primary key.
        public init(subscriptionID: Int64, episodeKey: String) {
            self.subscriptionID = subscriptionID
            self.episodeKey = episodeKey
        }
    }

    /// The subscription it belongs to (an ``ExportedSubscription/id``).
    public var subscriptionID: Int64
    /// The episode's identity key within its feed (an ``ExportedEpisode/key``).
    public var episodeKey: String
    /// `in-progress` or `complete`, as stored.
    public var state: String
    /// The partial file being written.
    public var partPath: String?
    /// The final file.
    public var filePath: String?
    /// The file's size, or the bytes so far.
    public var bytes: Int64?
    /// The media's `ETag`.
    public var etag: String?
    /// The media's `Last-Modified`.
    public var lastModified: String?
    /// The URL actually downloaded, as stored.
    public var url: String?
    /// When the download started, in Unix seconds.
    public var startedAt: Double?
    /// When the file was complete, in Unix seconds.
    public var downloadedAt: Double?
    /// Why the last attempt failed.
    public var lastError: String?
    /// The user deleted the file.
    public var deletedByUser: Bool
    /// Retention deleted the file.
    public var removedByRetention: Bool

    /// A row with every column given; the optional ones default to nil (for tests and other sources).
    public init(
        subscriptionID: Int64, episodeKey: String, state: String, partPath: String? = nil, filePath: String? = nil,
        bytes: Int64? = nil, etag: String? = nil, lastModified: String? = nil, url: String? = nil,
        startedAt: Double? = nil, downloadedAt: Double? = nil, lastError: String? = nil, deletedByUser: Bool = false,
        removedByRetention: Bool = false
    ) {
        self.subscriptionID = subscriptionID
        self.episodeKey = episodeKey
        self.state = state
        self.partPath = partPath
        self.filePath = filePath
        self.bytes = bytes
        self.etag = etag
        self.lastModified = lastModified
        self.url = url
        self.startedAt = startedAt
        self.downloadedAt = downloadedAt
        self.lastError = lastError
        self.deletedByUser = deletedByUser
        self.removedByRetention = removedByRetention
    }

    /// This row's place in the export order, to read the page after it.
    public var position: Position { Position(subscriptionID: subscriptionID, episodeKey: episodeKey) }
}

/// How much a store held when an export began, and the last id of each table then: paging up to these ids copies
/// the rows that existed at that moment and no row added after it.
public struct ExportBounds: Sendable, Hashable {
    /// Subscriptions in the store.
    public var subscriptions: Int
    /// Episodes in the store.
    public var episodes: Int
    /// Refresh runs in the store.
    public var runs: Int
    /// The highest subscription id (0 when none).
    public var lastSubscriptionID: Int64
    /// The highest episode id (0 when none).
    public var lastEpisodeID: Int64
    /// The highest run id (0 when none).
    public var lastRunID: Int64
    /// Download records in the store.
    public var downloads: Int
    /// The highest `rowid` of the `download` table (0 when none): the table has no id column, and a record added
    /// later gets a higher rowid.
    public var lastDownloadRowID: Int64

    /// Bounds with these counts and last ids.
    public init(
        subscriptions: Int, episodes: Int, runs: Int, lastSubscriptionID: Int64, lastEpisodeID: Int64,
        lastRunID: Int64, downloads: Int = 0, lastDownloadRowID: Int64 = 0
    ) {
        self.subscriptions = subscriptions
        self.episodes = episodes
        self.runs = runs
        self.lastSubscriptionID = lastSubscriptionID
        self.lastEpisodeID = lastEpisodeID
        self.lastRunID = lastRunID
        self.downloads = downloads
        self.lastDownloadRowID = lastDownloadRowID
    }
}
