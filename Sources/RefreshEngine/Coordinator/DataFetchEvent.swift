import Foundation

/// What fetching feeds did: published by the ``DataFetchCoordinator`` (and the refresh that runs it) to the command's
/// ``EventHub`` as ``EngineEvent/fetch(_:)``, in order.
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
}
