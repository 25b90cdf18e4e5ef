/// One `episode` row exactly as the SQLite file holds it, every column, for copying the store elsewhere.
public struct ExportedEpisode: Sendable, Hashable {
    /// The row's id.
    public var id: Int64
    /// The subscription it belongs to (a ``Subscription/id``).
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
    /// The run that first stored it (a ``RefreshRun/id``), nil when none.
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

extension DownloadRecord {
    /// Where a page of exported download records ends: the record's primary key (feed and episode key), to read the
    /// next page after (``ExportableStore/exportDownloads(after:through:limit:)``).
    public struct Position: Sendable, Hashable {
        /// The subscription.
        public var subscriptionID: Int64
        /// The episode's key within it.
        public var episodeKey: String

        /// The position of the record with this primary key.
        public init(subscriptionID: Int64, episodeKey: String) {
            self.subscriptionID = subscriptionID
            self.episodeKey = episodeKey
        }
    }

    /// This record's place in the export order, to read the page after it.
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
