public import FeedParsing
public import FeedStorage
public import Foundation

/// The feed a fetch is about: enough to name it in progress lines and events.
public struct FeedTarget: Sendable, Hashable, Identifiable {
    /// The subscription id.
    public var id: Int64
    public var url: URL
    public var title: String?

    public init(id: Int64, url: URL, title: String? = nil) {
        self.id = id
        self.url = url
        self.title = title
    }

    /// The title, or the URL when the feed has none yet.
    public var displayName: String { title.flatMap { $0.isEmpty ? nil : $0 } ?? url.absoluteString }
    /// The host fetches are spread and capped by (`file` URLs share the pseudo-host "local").
    public var host: String { url.host ?? "local" }
}

/// Why one feed's refresh failed, with a stable kind for the store and JSON output.
public struct RefreshFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable kind: a `FeedFetchError.Kind`, `FeedParseError.Kind` or `StoreError.Kind` raw value.
    public var kind: String
    /// What went wrong and, where possible, what to do, on one line.
    public var message: String
    /// The HTTP status, when a server answered.
    public var status: Int?

    public init(kind: String, message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
    }

    public var description: String { message }
}

/// What one feed's refresh came to.
public enum RefreshResult: Sendable, Hashable {
    /// The feed was fetched and merged: `newEpisodes` were stored for the first time.
    case updated(newEpisodes: [StoredEpisode], updatedCount: Int)
    /// The server (or file) said nothing changed.
    case notModified
    /// The server answered 410 Gone: the feed is not checked again.
    case gone(message: String)
    /// Nothing was stored; the feed's error state records why.
    case failed(RefreshFailure)
    /// The run was stopped before this feed finished.
    case cancelled
    /// `--offline`: answered from the store without touching the network.
    case offline
    /// The subscription was removed while it was being checked: nothing was stored, and nothing failed.
    case removed
}

/// The outcome of refreshing one feed.
public struct RefreshOutcome: Sendable, Hashable {
    public var feed: FeedTarget
    public var result: RefreshResult
    /// The feed's new URL, when a permanent redirect or `itunes:new-feed-url` moved it.
    public var movedTo: URL?
    /// Why a requested move was refused (e.g. the target is already subscribed).
    public var moveRefused: String?
    /// Parser warnings (recovered XML errors, bad dates …).
    public var warnings: [ParseWarning]
    /// When the feed is next due, and why.
    public var nextCheckAt: Date?
    public var nextCheckReason: String?

    public init(
        feed: FeedTarget,
        result: RefreshResult,
        movedTo: URL? = nil,
        moveRefused: String? = nil,
        warnings: [ParseWarning] = [],
        nextCheckAt: Date? = nil,
        nextCheckReason: String? = nil
    ) {
        self.feed = feed
        self.result = result
        self.movedTo = movedTo
        self.moveRefused = moveRefused
        self.warnings = warnings
        self.nextCheckAt = nextCheckAt
        self.nextCheckReason = nextCheckReason
    }

    /// True when the feed failed.
    public var isFailure: Bool {
        if case .failed = result { return true }
        return false
    }

    /// Episodes stored for the first time as the back catalogue of a new subscription, without being announced.
    public var backlogCount = 0

    /// How many episodes were stored for the first time and announced (also after ``compacted()``).
    public var newEpisodeCount: Int {
        if case .updated(let episodes, _) = result { return max(episodes.count, compactedNewEpisodeCount) }
        return 0
    }

    /// Set by ``compacted()``: the count of the episodes it dropped.
    public var compactedNewEpisodeCount = 0

    /// The episodes stored for the first time (empty after ``compacted()``).
    public var newEpisodes: [StoredEpisode] {
        if case .updated(let episodes, _) = result { return episodes }
        return []
    }

    /// The same outcome without its new episodes, only their count: for summaries of runs over many feeds, whose
    /// episodes were already announced through events.
    public func compacted() -> RefreshOutcome {
        guard case .updated(let episodes, let updated) = result, !episodes.isEmpty else { return self }
        var copy = self
        copy.result = .updated(newEpisodes: [], updatedCount: updated)
        copy.compactedNewEpisodeCount = episodes.count
        return copy
    }
}

/// Where a batch stands.
public struct BatchProgress: Sendable, Hashable {
    public var total: Int
    public var finished: Int
    /// Feeds being fetched right now.
    public var running: [FeedTarget]
    public var newEpisodes: Int
    public var failures: Int

    public init(total: Int, finished: Int = 0, running: [FeedTarget] = [], newEpisodes: Int = 0, failures: Int = 0) {
        self.total = total
        self.finished = finished
        self.running = running
        self.newEpisodes = newEpisodes
        self.failures = failures
    }
}

/// The totals of one refresh run, and the exit status they call for.
public struct RefreshSummary: Sendable, Hashable {
    public var outcomes: [RefreshOutcome]
    public var startedAt: Date
    public var endedAt: Date
    /// True when every network fetch failed to resolve or connect: the network is down, and no feed was blamed.
    public var networkOffline: Bool
    /// True when the run was stopped (SIGINT/SIGTERM) before every feed finished.
    public var wasCancelled: Bool

    public init(outcomes: [RefreshOutcome], startedAt: Date, endedAt: Date, networkOffline: Bool = false, wasCancelled: Bool = false) {
        self.outcomes = outcomes
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.networkOffline = networkOffline
        self.wasCancelled = wasCancelled
    }

    public var newEpisodeCount: Int { outcomes.reduce(0) { $0 + $1.newEpisodeCount } }
    public var failedCount: Int { outcomes.filter(\.isFailure).count }
    public var notModifiedCount: Int { outcomes.filter { $0.result == .notModified }.count }
    public var updatedCount: Int {
        outcomes.filter { if case .updated = $0.result { return true } else { return false } }.count
    }
}

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
    /// The network itself is down: every fetch failed to resolve or connect. Said once per batch.
    case networkOffline(message: String)
    /// The batch ended.
    case batchCompleted(RefreshSummary)
    /// The `--exec` hook failed for one new episode of `feed` (it never fails the feed).
    case hookFailed(FeedTarget, message: String)
    /// Watch mode, after a cycle: nothing runs until `nextCheck` (nil: no feed will ever be due).
    case idle(nextCheck: Date?)
}
