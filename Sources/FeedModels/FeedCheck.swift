public import FeedParsing
public import Foundation

/// The result of one feed's check, applied to the store in one transaction by ``EpisodeRepository/apply(_:)``.
public struct FeedCheck: Sendable {
    /// What the check found.
    public enum Result: Sendable {
        /// 200 with a parsed feed. `etag`/`lastModified` are the new validators (nil clears them);
        /// `unconditional` is true when no validators were sent.
        case fetched(ParsedFeed, etag: String?, lastModified: String?, unconditional: Bool)
        /// 304: nothing changed.
        case notModified
        /// The check failed; stored episodes are untouched.
        case failed(kind: String, message: String)
        /// 410: mark the feed gone; it is never checked again.
        case gone(message: String)
    }

    public var subscriptionID: Int64
    public var checkedAt: Date
    public var status: Int?
    public var result: Result
    /// A permanent move to apply (301/308 or `itunes:new-feed-url`), if any.
    public var movedTo: URL?
    public var nextCheckAt: Date?
    /// Why the feed is due then (stored as facts, ``ScheduleReason/storedText``).
    public var nextCheckReason: ScheduleReason?
    /// The refresh run this check belongs to.
    public var runID: Int64?
    /// Body bytes received (200), for the conditional-GET savings figure.
    public var bodyBytes: Int?
    /// On a subscription's first successful fetch: how many of its new episodes (the newest) to announce. The others
    /// are stored as its back catalogue, not as found by this run. Nil announces every new episode.
    public var announceLimit: Int?
    /// The worker's lease on the feed, on a store shared by several workers (``FeedClaiming``): the check is stored
    /// only while this lease is still current. Nil on a store of one.
    public var lease: FeedLease?
    /// How much of a fetched body was read (``BodyRead``); nil for a check that read no body.
    public var bodyRead: BodyRead?
    /// Keys of episodes an early merge found stored and unchanged (``EarlyEpisodes``): not in the parsed feed any
    /// more, marked seen by this check's merge as if they were.
    public var seenEarly: [String] = []
    /// The feed's publication model as the scheduler learned it at this check (its stored JSON); nil keeps the
    /// stored one.
    public var publicationModel: String?

    public init(
        subscriptionID: Int64,
        checkedAt: Date,
        status: Int? = nil,
        result: Result,
        movedTo: URL? = nil,
        nextCheckAt: Date? = nil,
        nextCheckReason: ScheduleReason? = nil,
        runID: Int64? = nil,
        bodyBytes: Int? = nil,
        announceLimit: Int? = nil,
        lease: FeedLease? = nil
    ) {
        self.lease = lease
        self.announceLimit = announceLimit
        self.bodyBytes = bodyBytes
        self.subscriptionID = subscriptionID
        self.checkedAt = checkedAt
        self.status = status
        self.result = result
        self.movedTo = movedTo
        self.nextCheckAt = nextCheckAt
        self.nextCheckReason = nextCheckReason
        self.runID = runID
    }
}

/// How much of a fetched body a check read, which decides what it may say of the episodes it did not read.
public enum BodyRead: Sendable, Hashable {
    /// To its end; `digest` is the body's ``FeedCheck`` digest, stored to tell an identical body next time.
    case whole(digest: String?)
    /// Only up to its known leading episodes: nothing after them was read, so nothing is said of it (the feed's own
    /// fields that come after the items keep their stored values, and the stored digest stays).
    case short
    /// To its end, and identical to the body read whole last time (same digest and length): it was not parsed.
    case identical
}

/// What ``EpisodeRepository/apply(_:)`` changed.
public struct MergeSummary: Sendable, Hashable {
    /// Episodes stored for the first time and announced as new, in feed order.
    public var newEpisodes: [StoredEpisode]
    /// Episodes stored for the first time as the feed's back catalogue, not announced (see
    /// ``FeedCheck/announceLimit``).
    public var backlogCount = 0
    /// Known episodes whose fields changed.
    public var updatedCount: Int
    /// Live items (`podcast:liveItem`) stored for the first time with status live, or stored as pending, ended or
    /// ordinary and now live: the show went live. A stream that stays live is not in it again, whatever else changed.
    public var wentLive: [StoredEpisode] = []
    /// The URL the subscription now has, when a move was applied.
    public var movedTo: URL?
    /// Why a requested move was not applied: the target is already subscribed.
    public var moveRefused: TakenMove?

    public init(
        newEpisodes: [StoredEpisode] = [], updatedCount: Int = 0, movedTo: URL? = nil, moveRefused: TakenMove? = nil
    ) {
        self.newEpisodes = newEpisodes
        self.updatedCount = updatedCount
        self.movedTo = movedTo
        self.moveRefused = moveRefused
    }
}

/// A move a store did not apply because another subscription already has the target URL.
public struct TakenMove: Sendable, Hashable {
    /// The URL the feed moved to.
    public var target: URL
    /// The subscription that already has it.
    public var otherID: Int64
    /// That subscription's title, when it has one.
    public var otherTitle: String?

    public init(target: URL, otherID: Int64, otherTitle: String?) {
        self.target = target
        self.otherID = otherID
        self.otherTitle = otherTitle
    }
}
