public import Foundation

/// An event published by the ``DataFetchCoordinator`` to every subscriber, in order.
public enum DataFetchEvent: Sendable, Hashable {
    /// A batch of `total` feeds is about to be fetched.
    case batchStarted(total: Int)
    /// A feed's fetch began.
    case fetchStarted(FeedTarget)
    /// A feed's fetch finished (updated, unchanged, gone or answered offline).
    case fetchCompleted(RefreshOutcome)
    /// A feed's fetch failed; its stored episodes are untouched.
    case fetchFailed(RefreshOutcome)
    /// A feed's fetch was cancelled, or never started because the run was stopped.
    case fetchCancelled(FeedTarget)
    /// The batch advanced.
    case batchProgress(BatchProgress)
    /// The network itself is down: every one of the batch's `fetches` network fetches failed to resolve or connect.
    /// Said once per batch, and then no failure that awaited this verdict (``RefreshFailure/awaitsNetworkVerdict``)
    /// counts.
    case networkOffline(fetches: Int)
    /// The network was up after all: these failures, which awaited the verdict, stand. Said once per batch, just
    /// before it ends, when there are any.
    case failuresConfirmed([RefreshOutcome])
    /// The batch ended.
    case batchCompleted(RefreshSummary)
    /// The `--exec` hook failed for one new episode of `feed` (it never fails the feed).
    case hookFailed(FeedTarget, HookFailure)
    /// Watch mode, after a cycle: nothing runs until `nextCheck` (nil: no feed will ever be due).
    case idle(nextCheck: Date?)
    /// `count` more episodes wait to be downloaded (``EpisodeDownloadQueue``).
    case downloadsQueued(count: Int)
    /// A download began (or resumes): the request is about to go out.
    case downloadStarted(DownloadTarget)
    /// A download advanced (a few times a second at most).
    case downloadProgressed(DownloadProgressReport)
    /// A file is complete under its final name and recorded.
    case downloadCompleted(DownloadOutcome)
    /// A download failed; nothing was marked downloaded.
    case downloadFailed(DownloadOutcome)
    /// Retention deleted a file podfresh had downloaded.
    case downloadRemoved(DownloadRemoval)
    /// An episode is not downloaded, and why (the user deleted its file by hand).
    case downloadSkipped(DownloadTarget, DownloadSkip)
    /// Something about a feed's downloads went wrong outside any one download (retention, the store).
    case downloadProblem(FeedTarget, DownloadProblem)
    /// Every queued download finished.
    case downloadsFinished(DownloadSummary)
    /// Something the podping reader read or did (`--podping`).
    case podping(PodpingEvent)
    /// Something a sync with the gPodder-API server did (`sync`, and `refresh`/`watch` once sync is set up).
    case sync(SyncEvent)

    // MARK: - Kind

    /// Which case an event is, without its payload: what ``UIUpdateService`` handlers register for, and the `kind` a
    /// notification carries. Adding a case above means adding it here too (the compiler insists); nothing else has
    /// to restate it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case batchStarted
        case fetchStarted
        case fetchCompleted
        case fetchFailed
        case fetchCancelled
        case batchProgress
        case networkOffline
        case failuresConfirmed
        case batchCompleted
        case hookFailed
        case idle
        case downloadsQueued
        case downloadStarted
        case downloadProgressed
        case downloadCompleted
        case downloadFailed
        case downloadRemoved
        case downloadSkipped
        case downloadProblem
        case downloadsFinished
        case podping
        case sync
    }

    /// This event's case.
    public var kind: Kind {
        switch self {
        case .batchStarted: .batchStarted
        case .fetchStarted: .fetchStarted
        case .fetchCompleted: .fetchCompleted
        case .fetchFailed: .fetchFailed
        case .fetchCancelled: .fetchCancelled
        case .batchProgress: .batchProgress
        case .networkOffline: .networkOffline
        case .failuresConfirmed: .failuresConfirmed
        case .batchCompleted: .batchCompleted
        case .hookFailed: .hookFailed
        case .idle: .idle
        case .downloadsQueued: .downloadsQueued
        case .downloadStarted: .downloadStarted
        case .downloadProgressed: .downloadProgressed
        case .downloadCompleted: .downloadCompleted
        case .downloadFailed: .downloadFailed
        case .downloadRemoved: .downloadRemoved
        case .downloadSkipped: .downloadSkipped
        case .downloadProblem: .downloadProblem
        case .downloadsFinished: .downloadsFinished
        case .podping: .podping
        case .sync: .sync
        }
    }
}
