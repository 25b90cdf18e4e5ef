public import Foundation

// The storage side of episode downloads: per-feed settings on ``Subscription`` and one record per episode identity.
// Nothing here touches the file system: the stores keep what the downloader reports, and the caller checks files.

/// A change to one setting: set it to a value, or back to its default.
public enum SettingChange<Value: Sendable & Hashable>: Sendable, Hashable {
    /// Set the value.
    case set(Value)
    /// Back to the default (nil in the store).
    case reset
}

/// A change to a feed's download settings (``DownloadRepository/updateDownloadSettings(id:_:)``): a field left
/// nil is not changed.
public struct DownloadSettings: Sendable, Hashable {
    /// Download this feed's episodes (`download` without FEED, `refresh --download`); nil: unchanged.
    public var enabled: Bool?
    /// Keep only the newest N downloaded files; `.reset` keeps every file; nil: unchanged.
    public var keepNewest: SettingChange<Int>?
    /// Where this feed's files go; `.reset` means the default download directory; nil: unchanged.
    public var directory: SettingChange<String>?
    /// How this feed's files are named; `.reset` means the default template; nil: unchanged.
    public var fileNameTemplate: SettingChange<String>?
    /// Delete a file once its episode was played to the end on any device; nil: unchanged.
    public var deletePlayed: Bool?
    /// The include patterns, in place of the feed's (empty: none); nil: unchanged.
    public var include: [String]?
    /// The exclude patterns, in place of the feed's (empty: none); nil: unchanged.
    public var exclude: [String]?
    /// What the patterns are matched against; nil: unchanged.
    public var match: DownloadFilter.Field?
    /// The shortest episode downloaded, in seconds, or `.reset` for any length; nil: unchanged.
    public var minimumDuration: SettingChange<Int>?
    /// Clear every filter first (the fields above then apply over none).
    public var clearFilters = false
    /// Save transcripts, chapters and artwork beside the media; nil: unchanged.
    public var extras: Bool?
    /// How many of the episodes from before downloads were turned on are downloaded; nil: unchanged.
    public var backlog: DownloadBacklog?
    /// Whether downloaded files are tagged, and how; nil: unchanged.
    public var tags: TagMode?
    /// When the change is made: turning downloads on takes the episodes first seen after it.
    public var changedAt = Date()

    /// - Parameters:
    ///   - enabled: Downloads on or off; nil leaves it.
    ///   - keepNewest: How many files to keep, or `.reset` for all; nil leaves it.
    ///   - directory: A directory, or `.reset` for the default; nil leaves it.
    ///   - fileNameTemplate: A file-name template, or `.reset` for the default; nil leaves it.
    ///   - deletePlayed: Delete played episodes' files, on or off; nil leaves it.
    public init(
        enabled: Bool? = nil, keepNewest: SettingChange<Int>? = nil, directory: SettingChange<String>? = nil,
        fileNameTemplate: SettingChange<String>? = nil, deletePlayed: Bool? = nil
    ) {
        self.deletePlayed = deletePlayed
        self.enabled = enabled
        self.keepNewest = keepNewest
        self.directory = directory
        self.fileNameTemplate = fileNameTemplate
    }

    /// True when no field is given: applying it changes nothing.
    public var isEmpty: Bool {
        enabled == nil && keepNewest == nil && directory == nil && fileNameTemplate == nil && deletePlayed == nil
            && include == nil && exclude == nil && match == nil && minimumDuration == nil && !clearFilters
            && extras == nil && backlog == nil && tags == nil
    }

    /// The feed's ``Subscription/downloadsSince`` and ``Subscription/downloadBacklog`` after this change to
    /// `subscription`.
    ///
    /// Turning downloads on (from off) starts them at ``changedAt``: the episodes that arrive from then on, and the
    /// newest of those before as the backlog says. `--backlog all` takes every episode; `--backlog N` on a feed
    /// whose downloads took every episode (on before podfresh downloaded from then on) starts them at
    /// ``changedAt`` too.
    public func downloadsFrom(after subscription: Subscription) -> (since: Date?, backlog: Int?) {
        var since = subscription.downloadsSince
        var backlog = subscription.downloadBacklog
        let enabledAfter = enabled ?? subscription.downloadsEnabled
        if enabled == true, !subscription.downloadsEnabled { since = changedAt }
        switch self.backlog {
        case nil: break
        case .all?: backlog = nil
        case .newest(let count)?:
            backlog = count
            if since == nil, enabledAfter { since = changedAt }
        }
        return (since, backlog)
    }

    /// The feed's download filter after this change to `subscription`.
    public func filter(after subscription: Subscription) -> DownloadFilter {
        var filter = clearFilters ? DownloadFilter.none : subscription.downloadFilter
        if let include { filter.include = include }
        if let exclude { filter.exclude = exclude }
        if let match { filter.match = match }
        switch minimumDuration {
        case nil: break
        case .set(let seconds)?: filter.minimumDuration = seconds
        case .reset?: filter.minimumDuration = nil
        }
        return filter
    }

    /// Whether extras are saved, after this change to `subscription`.
    public func savesExtras(_ subscription: Subscription) -> Bool { extras ?? subscription.extras }

    /// How downloaded files are tagged, after this change to `subscription`.
    public func tagMode(_ subscription: Subscription) -> TagMode { tags ?? subscription.tagMode }

    /// Whether a played episode's file is deleted, after this change to `subscription`.
    public func deletesPlayed(_ subscription: Subscription) -> Bool { deletePlayed ?? subscription.deletePlayed }

    /// The values to store for each column, from the current ones: (enabled, keep newest, directory, template).
    public func applied(to subscription: Subscription) -> (Bool, Int?, String?, String?) {
        func resolve<T: Sendable & Hashable>(_ change: SettingChange<T>?, _ current: T?) -> T? {
            switch change {
            case nil: return current
            case .set(let value)?: return value
            case .reset?: return nil
            }
        }
        return (
            enabled ?? subscription.downloadsEnabled, resolve(keepNewest, subscription.keepNewest),
            resolve(directory, subscription.downloadDirectory),
            resolve(fileNameTemplate, subscription.fileNameTemplate)
        )
    }
}

/// How many of a feed's episodes from before its downloads were turned on are downloaded (`set FEED --backlog`).
public enum DownloadBacklog: Sendable, Hashable {
    /// The newest N.
    case newest(Int)
    /// Every one.
    case all
}

/// What the store remembers about downloading one episode, by its identity (feed and episode key): a changed
/// enclosure URL is the same episode, and is not downloaded again.
public struct DownloadRecord: Sendable, Hashable {
    /// Where a download stands.
    public enum State: String, Sendable, Hashable {
        /// Started (or failed part-way): the bytes so far are in ``DownloadRecord/partPath``.
        case inProgress = "in-progress"
        /// The whole file is at ``DownloadRecord/filePath``.
        case complete
    }

    /// The feed.
    public var subscriptionID: Int64
    /// The episode's identity key within its feed (``StoredEpisode/key``).
    public var episodeKey: String
    public var state: State
    /// The partial file being written (in progress); nil once complete.
    public var partPath: String?
    /// The final file: where it will be (in progress) or is (complete).
    public var filePath: String?
    /// The file's size when complete; the bytes in the partial file so far when in progress (if known).
    public var bytes: Int64?
    /// The media's `ETag`, for resuming with `If-Range`.
    public var etag: String?
    /// The media's `Last-Modified`, for resuming with `If-Range` when there is no ETag.
    public var lastModified: String?
    /// The URL actually downloaded (after the enclosure's redirects).
    public var url: URL?
    public var startedAt: Date?
    /// When the file was complete; nil while in progress.
    public var downloadedAt: Date?
    /// Why the last attempt failed, if it did (the partial file is kept for a resume).
    public var lastError: String?
    /// The user deleted the file by hand: it is not downloaded again unless asked
    /// (``DownloadRepository/allowDownloadAgain(subscriptionID:episodeKey:)``).
    public var deletedByUser: Bool
    /// Retention deleted the file (it was past the feed's newest N).
    public var removedByRetention: Bool
    /// Permanent failures in a row (a broken link: 404, 410, a document instead of media); 0 after a success or a
    /// failure that may pass by itself.
    public var permanentFailures: Int
    /// Not tried again before this time, after a permanent failure (``DownloadBackoff``); nil: no wait.
    public var retryAfter: Date?
    /// The last permanent failure's message, kept across attempts so that the same failure again is told apart
    /// from a new one (cron mode says it once).
    public var permanentError: String?

    public init(
        subscriptionID: Int64, episodeKey: String, state: State, partPath: String? = nil, filePath: String? = nil,
        bytes: Int64? = nil, etag: String? = nil, lastModified: String? = nil, url: URL? = nil,
        startedAt: Date? = nil, downloadedAt: Date? = nil, lastError: String? = nil, deletedByUser: Bool = false,
        removedByRetention: Bool = false, permanentFailures: Int = 0, retryAfter: Date? = nil,
        permanentError: String? = nil
    ) {
        self.permanentFailures = permanentFailures
        self.retryAfter = retryAfter
        self.permanentError = permanentError
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

    /// True when the record says the whole file is on disk: complete, and neither removed by retention nor deleted
    /// by the user.
    public var isOnDisk: Bool { state == .complete && !removedByRetention && !deletedByUser }

    /// True when a permanent failure makes the download wait at `now` (``retryAfter`` is later).
    public func isWaiting(at now: Date) -> Bool {
        guard state == .inProgress, let retryAfter else { return false }
        return retryAfter > now
    }
}

/// A download that starts (or restarts): what ``DownloadRepository/recordDownloadStarted(_:)`` stores.
public struct DownloadStart: Sendable, Hashable {
    public var subscriptionID: Int64
    public var episodeKey: String
    /// The URL requested (the enclosure's, or where its redirects led).
    public var url: URL
    /// The partial file written while downloading (`NAME.part` beside the final file).
    public var partPath: String
    /// The final file's path.
    public var filePath: String
    /// The media's validators, for a later `If-Range`.
    public var etag: String?
    public var lastModified: String?
    public var startedAt: Date

    public init(
        subscriptionID: Int64, episodeKey: String, url: URL, partPath: String, filePath: String,
        etag: String? = nil, lastModified: String? = nil, startedAt: Date
    ) {
        self.subscriptionID = subscriptionID
        self.episodeKey = episodeKey
        self.url = url
        self.partPath = partPath
        self.filePath = filePath
        self.etag = etag
        self.lastModified = lastModified
        self.startedAt = startedAt
    }
}

/// A finished download: the whole file is at `filePath` (fsynced and renamed by the caller).
public struct DownloadCompletion: Sendable, Hashable {
    public var subscriptionID: Int64
    public var episodeKey: String
    public var filePath: String
    /// The file's size, as the server announced it and as it is on disk.
    public var bytes: Int64
    /// The URL actually downloaded.
    public var url: URL
    public var etag: String?
    public var lastModified: String?
    public var downloadedAt: Date
    /// The enclosure URL as the feed gives it (before redirects): the episode URL a synced `download` action names.
    public var episodeURL: URL?

    public init(
        subscriptionID: Int64, episodeKey: String, filePath: String, bytes: Int64, url: URL, etag: String? = nil,
        lastModified: String? = nil, downloadedAt: Date, episodeURL: URL? = nil
    ) {
        self.episodeURL = episodeURL
        self.subscriptionID = subscriptionID
        self.episodeKey = episodeKey
        self.filePath = filePath
        self.bytes = bytes
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.downloadedAt = downloadedAt
    }
}

/// Downloaded files on disk as the records count them (never by looking at the disk).
public struct DownloadUsage: Sendable, Hashable {
    /// Complete files not removed or deleted.
    public var files: Int
    /// Their bytes.
    public var bytes: Int64

    public init(files: Int = 0, bytes: Int64 = 0) {
        self.files = files
        self.bytes = bytes
    }
}

/// Download settings and records, for either store. An episode is identified by its feed and key; nothing here
/// reads or writes files.
public protocol DownloadRepository: Sendable {
    /// Changes a feed's download settings (fields left nil are kept) and returns the subscription as stored.
    /// - Throws: ``StoreError`` `.notFound` when there is no such subscription.
    func updateDownloadSettings(id: Int64, _ settings: DownloadSettings) async throws -> Subscription
    /// Of a feed's `newest` newest episodes (newest first, as ``EpisodeRepository/episodes(_:)`` orders them),
    /// those to download: no complete download, not deleted by the user, not removed by retention. A download in
    /// progress (or failed part-way) is included, to be resumed.
    func episodesToDownload(subscriptionID: Int64, newest: Int) async throws -> [StoredEpisode]
    /// Records that a download started: the episode's record becomes in progress with this `.part` path and these
    /// validators (its earlier error and marks cleared). - Throws: ``StoreError`` `.notFound` when the episode is
    /// not stored.
    @discardableResult func recordDownloadStarted(_ start: DownloadStart) async throws -> DownloadRecord
    /// Records a complete file, in one transaction: the record becomes complete with its path, size, URL and
    /// validators, and its `.part` path is cleared. Call it only after the whole file is on disk under its final
    /// name. - Throws: ``StoreError`` `.notFound` when the episode is not stored.
    @discardableResult func recordDownloadCompleted(_ completion: DownloadCompletion) async throws -> DownloadRecord
    /// Records a failed attempt on a download in progress: the error and the bytes so far are kept with the `.part`
    /// path and validators, for a resume. A complete record is left as it is. - Returns: false when there is no
    /// record in progress.
    @discardableResult func recordDownloadFailed(
        subscriptionID: Int64, episodeKey: String, error: String, partialBytes: Int64?
    ) async throws -> Bool
    /// Records a permanent failure (a broken link) on a download in progress, as ``recordDownloadFailed`` does, and
    /// counts it: the download waits ``DownloadBackoff/wait(afterFailures:)`` from `at` before it is tried again.
    /// - Returns: the record as stored and whether the failure is the same as the last one; nil when there is no
    ///   record in progress.
    func recordPermanentFailure(
        subscriptionID: Int64, episodeKey: String, error: String, partialBytes: Int64?, at: Date
    ) async throws -> RecordedFailure?
    /// Records a failure that may pass by itself (a host that does not resolve or answer, a cut connection, a 5xx)
    /// as ``recordPermanentFailure`` does, counted with it: the download waits
    /// ``DownloadBackoff/transientWait(afterFailures:)`` from `at` before it is tried again.
    /// - Returns: the record as stored and whether the failure is the same as the last one; nil when there is no
    ///   record in progress.
    func recordTransientFailure(
        subscriptionID: Int64, episodeKey: String, error: String, partialBytes: Int64?, at: Date
    ) async throws -> RecordedFailure?
    /// Ends the wait of a download after a permanent failure, so the next run tries it (the count is kept).
    /// - Returns: false when there is no such record.
    @discardableResult func allowRetryNow(subscriptionID: Int64, episodeKey: String) async throws -> Bool
    /// A feed's complete files beyond its newest `keepNewest` (by episode, newest first), oldest last: the files
    /// retention may delete. Only files podfresh recorded; removed and deleted ones are not counted.
    func filesPastRetention(subscriptionID: Int64, keepNewest: Int) async throws -> [DownloadRecord]
    /// Marks a complete file as deleted by retention. - Returns: false when there is no such record.
    @discardableResult func markRemovedByRetention(subscriptionID: Int64, episodeKey: String) async throws -> Bool
    /// Marks a file as deleted by the user: it is not downloaded again until
    /// ``allowDownloadAgain(subscriptionID:episodeKey:)``. - Returns: false when there is no such record.
    @discardableResult func markDeletedByUser(subscriptionID: Int64, episodeKey: String) async throws -> Bool
    /// Clears the deleted-by-user and removed-by-retention marks, so the episode may be downloaded again.
    /// - Returns: false when there is no such record.
    @discardableResult func allowDownloadAgain(subscriptionID: Int64, episodeKey: String) async throws -> Bool
    /// Files on disk per subscription id, from the records (feeds without any are left out).
    func downloadUsage() async throws -> [Int64: DownloadUsage]
    /// The record for one episode, if it has one.
    func download(subscriptionID: Int64, episodeKey: String) async throws -> DownloadRecord?
    /// Every record, or one feed's, ordered by feed and key.
    func downloads(subscriptionID: Int64?) async throws -> [DownloadRecord]
    /// A feed's extra files (transcripts, chapters, artwork) by episode key; episodes without any are left out.
    func extraFiles(subscriptionID: Int64) async throws -> [String: [ExtraFile]]
    /// Stores one episode's extra files in place of its earlier list (an empty list: none).
    /// - Returns: false when the episode has no download record.
    @discardableResult func recordExtraFiles(
        subscriptionID: Int64, episodeKey: String, _ files: [ExtraFile]
    ) async throws -> Bool
}

extension DownloadRepository {
    /// Files on disk over every feed, from the records.
    public func totalDownloadUsage() async throws -> DownloadUsage {
        try await downloadUsage().values.reduce(into: DownloadUsage()) { total, usage in
            total.files += usage.files
            total.bytes += usage.bytes
        }
    }
}

/// A permanent failure as stored (``DownloadRepository/recordPermanentFailure(subscriptionID:episodeKey:error:partialBytes:at:)``).
public struct RecordedFailure: Sendable, Hashable {
    /// The record after the failure: its count and when it is tried again.
    public var record: DownloadRecord
    /// The same failure (message) as the last permanent one: cron mode does not say it again.
    public var isRepeat: Bool

    public init(record: DownloadRecord, isRepeat: Bool) {
        self.record = record
        self.isRepeat = isRepeat
    }
}
