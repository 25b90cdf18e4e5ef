public import FeedParsing
public import FeedStorage
public import Foundation

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
