public import Foundation

/// A typed update that ``UIUpdateService`` delivers to handlers registered for its type and posts as a
/// `NotificationCenter` notification.
public protocol UIUpdate: Sendable {
    /// The notification name this update is posted under.
    static var notificationName: Notification.Name { get }
}

extension Notification.Name {
    /// A feed's fetch began. `userInfo["update"]` is a ``FeedRefreshStarted``.
    public static let feedRefreshStarted = Notification.Name("podfresh.feedRefreshStarted")
    /// A feed was refreshed (updated, unchanged or gone). `userInfo["update"]` is a ``PodcastRefreshed``.
    public static let podcastRefreshed = Notification.Name("podfresh.podcastRefreshed")
    /// A new episode was stored. `userInfo["update"]` is a ``NewEpisodeFound``.
    public static let newEpisodeFound = Notification.Name("podfresh.newEpisodeFound")
    /// A feed's refresh failed. `userInfo["update"]` is a ``RefreshFailed``.
    public static let refreshFailed = Notification.Name("podfresh.refreshFailed")
    /// A feed's refresh was cancelled. `userInfo["update"]` is a ``RefreshCancelled``.
    public static let refreshCancelled = Notification.Name("podfresh.refreshCancelled")
    /// A batch began. `userInfo["update"]` is a ``BatchStarted``.
    public static let batchStarted = Notification.Name("podfresh.batchStarted")
    /// A batch advanced. `userInfo["update"]` is a ``BatchProgressed``.
    public static let batchProgressed = Notification.Name("podfresh.batchProgressed")
    /// The network is down. `userInfo["update"]` is a ``NetworkWentOffline``.
    public static let networkWentOffline = Notification.Name("podfresh.networkWentOffline")
    /// Failures that awaited the network verdict stand. `userInfo["update"]` is a ``FailuresConfirmed``.
    public static let failuresConfirmed = Notification.Name("podfresh.failuresConfirmed")
    /// A batch ended. `userInfo["update"]` is a ``BatchFinished``.
    public static let batchFinished = Notification.Name("podfresh.batchFinished")
    /// The `--exec` hook failed. `userInfo["update"]` is a ``HookFailed``.
    public static let hookFailed = Notification.Name("podfresh.hookFailed")
    /// Watch mode is waiting for the next check. `userInfo["update"]` is a ``WatchIdle``.
    public static let watchIdle = Notification.Name("podfresh.watchIdle")
    /// Episodes wait to be downloaded. `userInfo["update"]` is an ``EpisodeDownloadsQueued``.
    public static let episodeDownloadsQueued = Notification.Name("podfresh.episodeDownloadsQueued")
    /// A download began. `userInfo["update"]` is an ``EpisodeDownloadStarted``.
    public static let episodeDownloadStarted = Notification.Name("podfresh.episodeDownloadStarted")
    /// A download advanced. `userInfo["update"]` is an ``EpisodeDownloadProgressed``.
    public static let episodeDownloadProgressed = Notification.Name("podfresh.episodeDownloadProgressed")
    /// A file is complete. `userInfo["update"]` is an ``EpisodeDownloaded``.
    public static let episodeDownloaded = Notification.Name("podfresh.episodeDownloaded")
    /// A download failed. `userInfo["update"]` is an ``EpisodeDownloadFailed``.
    public static let episodeDownloadFailed = Notification.Name("podfresh.episodeDownloadFailed")
    /// Retention deleted a file. `userInfo["update"]` is an ``EpisodeFileRemoved``.
    public static let episodeFileRemoved = Notification.Name("podfresh.episodeFileRemoved")
    /// An episode is not downloaded. `userInfo["update"]` is an ``EpisodeDownloadSkipped``.
    public static let episodeDownloadSkipped = Notification.Name("podfresh.episodeDownloadSkipped")
    /// A feed's downloads met a problem. `userInfo["update"]` is a ``DownloadProblem``.
    public static let downloadProblem = Notification.Name("podfresh.downloadProblem")
    /// Every download finished. `userInfo["update"]` is a ``DownloadsFinished``.
    public static let downloadsFinished = Notification.Name("podfresh.downloadsFinished")
}

/// A batch of feeds is about to be fetched.
public struct BatchStarted: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.batchStarted
    public var total: Int
}

/// A feed's fetch began.
public struct FeedRefreshStarted: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.feedRefreshStarted
    public var feed: FeedTarget
}

/// A feed was refreshed: updated, unchanged, gone, or answered from the store offline.
public struct PodcastRefreshed: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.podcastRefreshed
    public var outcome: RefreshOutcome
}

/// One episode stored for the first time (delivered after its feed's ``PodcastRefreshed``).
public struct NewEpisodeFound: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.newEpisodeFound
    public var feed: FeedTarget
    public var episode: EpisodeAnnouncement
}

/// A feed's refresh failed; nothing of it was lost.
public struct RefreshFailed: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.refreshFailed
    public var outcome: RefreshOutcome
    public var failure: RefreshFailure
}

/// A feed's refresh was cancelled or refused (already running elsewhere).
public struct RefreshCancelled: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.refreshCancelled
    public var feed: FeedTarget
}

/// The batch advanced.
public struct BatchProgressed: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.batchProgressed
    public var progress: BatchProgress
}

/// The network itself is down; no feed was counted as failing.
public struct NetworkWentOffline: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.networkWentOffline
    public var message: String
}

/// The network was up after all: these failures, held while the batch decided whether the network was down, stand.
/// (Each was already delivered as a ``RefreshFailed`` whose failure ``RefreshFailure/awaitsNetworkVerdict``.)
public struct FailuresConfirmed: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.failuresConfirmed
    public var failed: [RefreshFailed]
}

/// The batch ended.
public struct BatchFinished: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.batchFinished
    public var summary: RefreshSummary
}

/// The `--exec` hook failed for one new episode; the feed itself was stored.
public struct HookFailed: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.hookFailed
    public var feed: FeedTarget
    public var message: String
}

/// Watch mode finished a cycle and waits until `nextCheck` (nil: no feed will ever be due).
public struct WatchIdle: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.watchIdle
    public var nextCheck: Date?
}

/// More episodes wait to be downloaded.
public struct EpisodeDownloadsQueued: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.episodeDownloadsQueued
    public var count: Int
}

/// A download began (or resumes).
public struct EpisodeDownloadStarted: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.episodeDownloadStarted
    public var target: DownloadTarget
}

/// A download advanced.
public struct EpisodeDownloadProgressed: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.episodeDownloadProgressed
    public var report: DownloadProgressReport
}

/// A file is complete under its final name, and recorded.
public struct EpisodeDownloaded: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.episodeDownloaded
    public var outcome: DownloadOutcome
}

/// A download failed; nothing was marked downloaded.
public struct EpisodeDownloadFailed: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.episodeDownloadFailed
    public var outcome: DownloadOutcome
    public var failure: DownloadFailure
}

/// Retention deleted a file podfresh had downloaded.
public struct EpisodeFileRemoved: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.episodeFileRemoved
    public var removal: DownloadRemoval
}

/// An episode is not downloaded, and why.
public struct EpisodeDownloadSkipped: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.episodeDownloadSkipped
    public var target: DownloadTarget
    public var reason: String
}

/// A feed's downloads met a problem outside any one download.
public struct DownloadProblem: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.downloadProblem
    public var feed: FeedTarget
    public var message: String
}

/// Every queued download finished.
public struct DownloadsFinished: UIUpdate, Hashable {
    public static let notificationName = Notification.Name.downloadsFinished
    public var summary: DownloadSummary
}
