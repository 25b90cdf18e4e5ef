public import Foundation

/// A change asked of one episode's download record (``DownloadRepository``).
public enum DownloadChange: Sendable, Hashable {
    /// A download starts or restarts (``DownloadRepository/recordDownloadStarted(_:)``).
    case started(DownloadStart)
    /// The whole file is on disk (``DownloadRepository/recordDownloadCompleted(_:)``).
    case completed(DownloadCompletion)
    /// An attempt failed with `error`, `partialBytes` in the partial file when known
    /// (``DownloadRepository/recordDownloadFailed(subscriptionID:episodeKey:error:partialBytes:)``).
    case failed(error: String, partialBytes: Int64?)
    /// Retention deleted the file (``DownloadRepository/markRemovedByRetention(subscriptionID:episodeKey:)``).
    case removedByRetention
    /// The user deleted the file (``DownloadRepository/markDeletedByUser(subscriptionID:episodeKey:)``).
    case deletedByUser
    /// The episode may be downloaded again (``DownloadRepository/allowDownloadAgain(subscriptionID:episodeKey:)``).
    case allowedAgain
    /// An attempt failed permanently at `at`, a broken link
    /// (``DownloadRepository/recordPermanentFailure(subscriptionID:episodeKey:error:partialBytes:at:)``).
    case failedPermanently(error: String, partialBytes: Int64?, at: Date)
    /// An attempt failed at `at` in a way that may pass by itself (a host that does not resolve or answer, a cut
    /// connection, a 5xx): it waits like a feed that fails
    /// (``DownloadRecordStore/recordTransientFailure(subscriptionID:episodeKey:error:partialBytes:at:)``).
    case failedTransiently(error: String, partialBytes: Int64?, at: Date)
    /// A download waiting after a permanent failure may be tried now
    /// (``DownloadRepository/allowRetryNow(subscriptionID:episodeKey:)``).
    case retryNow

    /// True when the change may create a record, which needs the episode to be stored: a start or a completion.
    public var mayCreateRecord: Bool {
        switch self {
        case .started, .completed: return true
        case .failed, .removedByRetention, .deletedByUser, .allowedAgain, .failedPermanently, .failedTransiently,
            .retryNow:
            return false
        }
    }
}

/// What one change to an episode's download record writes, decided without a database; and which records the
/// download queries select.
///
/// Both stores read the episode's current record (and, for a change that may create one, whether the episode is
/// stored) in one transaction, build the plan, and carry it out in their own SQL: insert or replace ``record`` with
/// every column, or write nothing. They then read the record back as stored.
public struct DownloadPlan: Sendable, Hashable {
    /// The record to store in place of the current one (insert or replace, every column); nil writes nothing.
    public var record: DownloadRecord?
    /// For a failure that waits: the same message as the last failure of this download that waited.
    public var isRepeatedFailure = false

    /// Plans `change` to the download record of episode `episodeKey` of feed `subscriptionID`.
    ///
    /// - A start makes the record in progress with the new `.part` path, file path, URL and validators, its size
    ///   unknown, its earlier error and marks cleared.
    /// - A completion makes it complete with its file, size, URL and validators; the `.part` path and error are
    ///   cleared, so are the marks, and the start time is kept (the completion's time when there was no record).
    /// - A failure keeps the error and the bytes so far (the bytes known before when none are given), only on a
    ///   record in progress: a complete record is left as it is.
    /// - The retention and user marks set their flag on any record.
    /// - Allowing again clears both marks; a record that had one is no longer complete on disk, so it becomes in
    ///   progress without a download time (downloading it again resumes).
    /// - A permanent failure (a broken link) does what a failure does, and counts: the download waits
    ///   ``DownloadBackoff/wait(afterFailures:)`` from the failure before it is tried again, and its message is kept
    ///   (a start keeps the count, the wait and that message; a completion or any other failure clears them).
    /// - A transient failure (a host that does not resolve or answer, a cut connection, a 5xx) counts the same way
    ///   and waits ``DownloadBackoff/transientWait(afterFailures:)``: 15 minutes, doubling, at most 4 hours, as a
    ///   feed that fails does. The count and the message are those of the failures in a row, of either kind.
    /// - Retrying now clears the wait and keeps the count, so a failure after it waits longer still.
    ///
    /// - Parameters:
    ///   - change: What is asked.
    ///   - subscriptionID: The feed.
    ///   - episodeKey: The episode's identity key within its feed.
    ///   - current: The episode's record as stored, if it has one.
    ///   - episodeStored: Whether the store holds the episode (asked only for ``DownloadChange/mayCreateRecord``).
    /// - Throws: ``StoreError`` `.notFound` when a start or a completion names an episode that is not stored.
    public init(
        _ change: DownloadChange, subscriptionID: Int64, episodeKey: String, current: DownloadRecord?,
        episodeStored: Bool
    ) throws(StoreError) {
        if change.mayCreateRecord, !episodeStored {
            throw StoreError(.noEpisode(key: episodeKey, subscriptionID: subscriptionID))
        }
        switch change {
        case .started(let start):
            record = DownloadRecord(
                subscriptionID: subscriptionID, episodeKey: episodeKey, state: .inProgress, partPath: start.partPath,
                filePath: start.filePath, bytes: nil, etag: start.etag, lastModified: start.lastModified,
                url: start.url, startedAt: start.startedAt, downloadedAt: nil, lastError: nil, deletedByUser: false,
                removedByRetention: false, permanentFailures: current?.permanentFailures ?? 0,
                retryAfter: current?.retryAfter, permanentError: current?.permanentError)
        case .completed(let completion):
            record = DownloadRecord(
                subscriptionID: subscriptionID, episodeKey: episodeKey, state: .complete, partPath: nil,
                filePath: completion.filePath, bytes: completion.bytes, etag: completion.etag,
                lastModified: completion.lastModified, url: completion.url,
                startedAt: current?.startedAt ?? completion.downloadedAt, downloadedAt: completion.downloadedAt,
                lastError: nil, deletedByUser: false, removedByRetention: false)
        case .failed(let error, let partialBytes):
            guard var record = current, record.state == .inProgress else {
                self.record = nil
                return
            }
            record.lastError = error
            record.bytes = partialBytes ?? record.bytes
            record.permanentFailures = 0
            record.retryAfter = nil
            record.permanentError = nil
            self.record = record
        case .failedPermanently(let error, let partialBytes, let at),
            .failedTransiently(let error, let partialBytes, let at):
            guard var record = current, record.state == .inProgress else {
                self.record = nil
                return
            }
            isRepeatedFailure = record.permanentFailures > 0 && record.permanentError == error
            record.lastError = error
            record.bytes = partialBytes ?? record.bytes
            record.permanentFailures += 1
            let wait =
                if case .failedPermanently = change {
                    DownloadBackoff.wait(afterFailures: record.permanentFailures)
                } else {
                    DownloadBackoff.transientWait(afterFailures: record.permanentFailures)
                }
            record.retryAfter = at.addingTimeInterval(wait)
            record.permanentError = error
            self.record = record
        case .retryNow:
            record = Self.changing(current) { $0.retryAfter = nil }
        case .removedByRetention:
            record = Self.changing(current) { $0.removedByRetention = true }
        case .deletedByUser:
            record = Self.changing(current) { $0.deletedByUser = true }
        case .allowedAgain:
            record = Self.changing(current) { record in
                if record.deletedByUser || record.removedByRetention {
                    record.state = .inProgress
                    record.downloadedAt = nil
                }
                record.deletedByUser = false
                record.removedByRetention = false
            }
        }
    }

    /// The current record with `change` made to it; nil (nothing written) when there is none.
    private static func changing(
        _ current: DownloadRecord?, _ change: (inout DownloadRecord) -> Void
    ) -> DownloadRecord? {
        guard var record = current else { return nil }
        change(&record)
        return record
    }

    // MARK: - Selections

    /// Whether an episode with this record (or none) is to be downloaded at `now`: no record, or one in progress (or
    /// failed part-way, to be resumed) that neither the user nor retention deleted and that is not waiting after a
    /// permanent failure (``DownloadRecord/isWaiting(at:)``).
    public static func wantsDownload(_ record: DownloadRecord?, now: Date = Date()) -> Bool {
        guard let record else { return true }
        return record.state == .inProgress && !record.deletedByUser && !record.removedByRetention
            && !record.isWaiting(at: now)
    }

    /// Of a feed's newest episodes (newest first), those to download at `now` (``wantsDownload(_:now:)``), in the
    /// same order.
    ///
    /// - Parameters:
    ///   - episodes: The feed's newest episodes, newest first.
    ///   - records: The feed's download records by episode key.
    public static func episodesToDownload(
        _ episodes: [StoredEpisode], records: [String: DownloadRecord], now: Date = Date()
    )
        -> [StoredEpisode]
    {
        episodes.filter { wantsDownload(records[$0.key], now: now) }
    }

    /// How many of a feed's newest episodes with media `download` takes: `latest` (`--latest`) when given; else the
    /// feed's "keep newest N"; else, when its downloads are on and it keeps every file (`--keep all`, the default),
    /// every one (nil); else (a feed named whose downloads are off) its newest.
    public static func downloadWindow(latest: Int?, subscription: Subscription) -> Int? {
        if let latest { return latest }
        if let keep = subscription.keepNewest { return keep }
        return subscription.downloadsEnabled ? nil : 1
    }

    /// Where a feed's downloads begin: the episodes first seen after `since`, and the newest `backlog` of those
    /// before; nil when they take every episode (downloads off, `--backlog all`, or on since before podfresh
    /// downloaded from then on).
    public static func downloadsFrom(_ subscription: Subscription) -> (since: Date, backlog: Int)? {
        guard subscription.downloadsEnabled, let since = subscription.downloadsSince,
            let backlog = subscription.downloadBacklog
        else { return nil }
        return (since, max(backlog, 0))
    }

    /// Of a feed's episodes (all of them, newest first), the keys its downloads may take when they begin at `since`:
    /// every episode that arrived after it, and the newest `backlog` of those already there for which `isCandidate`
    /// holds (an episode with media that the filters let through).
    ///
    /// An episode arrived when it was first seen after `since` and after the feed's first check: a feed turned on
    /// before it was ever checked (just imported) gets its back catalogue at that first check, and that is not new.
    public static func fromNowOn(
        _ episodesNewestFirst: [StoredEpisode], since: Date, backlog: Int, isCandidate: (StoredEpisode) -> Bool
    ) -> (keys: Set<String>, olderLeftOut: Int) {
        let firstCheck = episodesNewestFirst.lazy.map(\.firstSeenAt).min() ?? since
        let cutoff = max(since, firstCheck)
        var keys: Set<String> = []
        var older = 0
        var leftOut = 0
        for episode in episodesNewestFirst {
            if episode.firstSeenAt > cutoff {
                keys.insert(episode.key)
            } else if isCandidate(episode) {
                if older < backlog {
                    older += 1
                    keys.insert(episode.key)
                } else {
                    leftOut += 1
                }
            }
        }
        return (keys, leftOut)
    }

    /// The files retention may delete: of a feed's records ordered by their episodes, newest first, the files on
    /// disk (``DownloadRecord/isOnDisk``) past the newest `keepNewest`.
    public static func pastRetention(_ recordsNewestFirst: [DownloadRecord], keepNewest: Int) -> [DownloadRecord] {
        Array(recordsNewestFirst.filter(\.isOnDisk).dropFirst(max(keepNewest, 0)))
    }

    /// Files on disk per subscription id (``DownloadRecord/isOnDisk``), feeds without any left out.
    public static func usage(of records: some Sequence<DownloadRecord>) -> [Int64: DownloadUsage] {
        var usage: [Int64: DownloadUsage] = [:]
        for record in records where record.isOnDisk {
            usage[record.subscriptionID, default: DownloadUsage()].files += 1
            usage[record.subscriptionID, default: DownloadUsage()].bytes += record.bytes ?? 0
        }
        return usage
    }
}
