public import FeedFetching
public import FeedModels
public import FeedParsing
public import Foundation

/// What one feed's refresh came to.
public enum RefreshResult: Sendable, Hashable {
    /// The feed was fetched and merged: `newEpisodes` were stored for the first time and are announced.
    case updated(newEpisodes: [EpisodeAnnouncement], updatedCount: Int)
    /// The server (or file) said nothing changed.
    case notModified
    /// The server answered 410 Gone: the feed is not checked again.
    case gone(FeedFetchError)
    /// Nothing was stored; the feed's error state records why.
    case failed(RefreshFailure)
    /// The run was stopped before this feed finished.
    case cancelled
    /// `--offline`: answered from the store without touching the network.
    case offline
    /// The subscription was removed while it was being checked: nothing was stored, and nothing failed.
    case removed
    /// A worker of a fleet checked the feed but did not store the check: its lease ran out (see `--lease`) and another
    /// worker may have taken the feed over. Nothing failed; the feed stays with whoever holds it now.
    case dropped(StoreError)
}

/// The outcome of refreshing one feed.
public struct RefreshOutcome: Sendable, Hashable {
    public var feed: FeedTarget
    public var result: RefreshResult
    /// The feed's new URL, when a permanent redirect or `itunes:new-feed-url` moved it.
    public var movedTo: URL?
    /// Why a requested move was refused (e.g. the target is already subscribed).
    public var moveRefused: MoveRefusal?
    /// Parser warnings (recovered XML errors, bad dates …).
    public var warnings: [ParseWarning]
    /// When the feed is next due, and why.
    public var nextCheckAt: Date?
    public var nextCheckReason: ScheduleReason?
    /// The bytes of the feed's body this check received (after decompression), when it fetched one.
    public var bytesFetched: Int?
    /// Live items of the feed that went live in this check (`podcast:liveItem status="live"`, new or changed to it).
    public var wentLive: [EpisodeAnnouncement] = []
    /// The bytes a 304 Not Modified saved: the size of the body last fetched, when the server answered 304.
    public var bytesSaved: Int?

    public init(
        feed: FeedTarget,
        result: RefreshResult,
        movedTo: URL? = nil,
        moveRefused: MoveRefusal? = nil,
        warnings: [ParseWarning] = [],
        nextCheckAt: Date? = nil,
        nextCheckReason: ScheduleReason? = nil,
        bytesFetched: Int? = nil,
        bytesSaved: Int? = nil
    ) {
        self.feed = feed
        self.result = result
        self.movedTo = movedTo
        self.moveRefused = moveRefused
        self.warnings = warnings
        self.nextCheckAt = nextCheckAt
        self.nextCheckReason = nextCheckReason
        self.bytesFetched = bytesFetched
        self.bytesSaved = bytesSaved
    }

    /// True when the feed failed.
    public var isFailure: Bool { failure != nil }

    /// The feed answered again after failing: how often, and its last failure as stored. Nil when its last check
    /// did not fail (or the feed failed now).
    public var recovered: Recovery?

    /// A feed that answers again after failed checks.
    public struct Recovery: Sendable, Hashable {
        /// Its failed checks in a row before this one.
        public var failures: Int
        /// Its last failure's stable kind (``RefreshFailure/Kind/rawValue``), as stored with the subscription.
        public var lastErrorKind: String?
        /// Its last failure's cause, as stored with the subscription (``RefreshFailure/storedCause``).
        public var lastError: String?

        /// A recovery after `failures` failed checks, the last of which stored `lastErrorKind` and `lastError`.
        public init(failures: Int, lastErrorKind: String?, lastError: String?) {
            self.failures = failures
            self.lastErrorKind = lastErrorKind
            self.lastError = lastError
        }
    }

    /// Episodes stored for the first time as the back catalogue of a new subscription, without being announced.
    public var backlogCount = 0

    /// The body was read only up to its known leading episodes; the rest was not read (issue #36).
    public var readShort = false
    /// The body was identical to the one last read whole, so it was neither parsed nor merged (``result`` is
    /// ``RefreshResult/notModified``, with ``bytesFetched``).
    public var bodyIdentical = false

    /// The body read broke off before its root element closed (``FeedParsing/ParsedFeed/endedEarly``): what came
    /// before was merged, and the feed is reported.
    public var endedEarly: Bool {
        warnings.contains { if case .documentEndedEarly = $0.reason { true } else { false } }
    }

    /// How many episodes were stored for the first time and announced.
    public var newEpisodeCount: Int { newEpisodes.count }

    /// Whether the check stored something the feed's episodes did not have: a new episode, a changed one, a new
    /// subscription's back catalogue, or a move. A body read short or merged without a change stored nothing, and
    /// reads as unchanged, however it was fetched.
    public var storedChanges: Bool {
        guard case .updated(let new, let changed) = result else { return false }
        return !new.isEmpty || changed > 0 || backlogCount > 0 || movedTo != nil
    }

    /// The episodes stored for the first time and announced.
    public var newEpisodes: [EpisodeAnnouncement] {
        if case .updated(let episodes, _) = result { return episodes }
        return []
    }

    /// The failure, when the feed failed.
    public var failure: RefreshFailure? {
        if case .failed(let failure) = result { return failure }
        return nil
    }
}

/// Why a feed that names a new address (a permanent redirect, `itunes:new-feed-url`) stays where it is.
public enum MoveRefusal: Sendable, Hashable {
    /// Another subscription already has the new address.
    case taken(TakenMove)
    /// The new address is not a readable feed, for this cause.
    case unreadable(target: URL, staying: URL, cause: RefreshFailure.Cause)
    /// The new address answered 304 to a request without validators.
    case unaskedNotModified(target: URL, staying: URL)
    /// The feed at the new address names this one as its new address.
    case pointsBack(target: URL, staying: URL)
}
