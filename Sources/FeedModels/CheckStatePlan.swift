public import FeedParsing
public import Foundation

/// What a feed check writes to its subscription's state (when it was checked, how it went, when it is next due),
/// decided without a database; the episodes are the ``MergePlan``'s.
///
/// Both stores build it from the check and write it in their own SQL, in the check's transaction: a value is written
/// as it is (nil writes NULL) unless its doc says nil keeps the stored one.
public struct CheckStatePlan: Sendable, Hashable {
    /// How the count of consecutive failures changes.
    public enum FailureCount: String, Sendable, Hashable {
        /// Back to 0: the feed answered.
        case reset
        /// One more failure.
        case increment
        /// As it was (a 410 is not counted as a failure).
        case keep
    }

    /// When the feed was checked.
    public var lastCheckedAt: Date
    /// The last check that returned 200 or 304; nil keeps the stored one.
    public var lastSuccessAt: Date?
    /// The last check sent without validators; nil keeps the stored one.
    public var lastUnconditionalAt: Date?
    /// The HTTP status (200, 304 or 410 when the check did not say; none for a failure without one).
    public var lastStatus: Int?
    /// How the failure count changes.
    public var failureCount: FailureCount
    /// The stable kind of the failure; nil when the check succeeded.
    public var lastErrorKind: String?
    /// The failure as shown to the user; nil when the check succeeded.
    public var lastError: String?
    /// Whether the server said 410 Gone; nil keeps the stored flag (a failure does not change it).
    public var isGone: Bool?
    /// When the feed is next due; nil when it never is (gone) or at once.
    public var nextCheckAt: Date?
    /// Why it is due then.
    public var nextCheckReason: ScheduleReason?
    /// What a fetched body says of the feed, written only when the check fetched one.
    public var fetched: Fetched?
    /// When the body was last read to its end (``BodyRead/whole(digest:)`` or ``BodyRead/identical``); nil keeps
    /// the stored one.
    public var lastWholeReadAt: Date?
    /// The digest of a body read whole; nil keeps the stored one (a short read, a 304, a failure).
    public var lastBodyDigest: String?
    /// The feed's publication model (stored JSON); nil keeps the stored one.
    public var publicationModel: String?
    /// Whether the body read to its end broke off before its root element closed; nil keeps the stored flag (a
    /// short read, a 304, an identical body, a failure).
    public var endedEarly: Bool?

    /// The feed's own fields from a fetched body.
    public struct Fetched: Sendable, Hashable {
        /// The feed's title, link, image, description, author and language: nil keeps the stored one.
        public var title: String?
        public var link: URL?
        public var image: URL?
        public var description: String?
        public var author: String?
        public var language: String?
        /// The response's validators, for the next conditional GET.
        public var etag: String?
        public var lastModified: String?
        /// `itunes:complete`.
        public var isComplete: Bool
        /// The body's size; nil keeps the stored one.
        public var bodyBytes: Int?
        /// `<ttl>` in minutes, `sy:updatePeriod`, `sy:updateFrequency`, `podcast:updateFrequency`: the feed's own
        /// schedule hints.
        public var ttlMinutes: Int?
        public var syndicationUpdatePeriod: String?
        public var syndicationUpdateFrequency: Int?
        public var podcastUpdateFrequency: String?
        /// What the feed says of podping (`podcast:podping`): written as it is, and nil forgets what an earlier body
        /// said (the feed dropped the element), so trust and `list` never go by a declaration the feed withdrew.
        public var podping: PodpingDeclaration?
        /// False after a short read: the podping declaration may come after the items, unread, so the stored one
        /// is kept.
        public var podpingWasRead = true
    }

    /// The state `check` writes.
    public init(_ check: FeedCheck) {
        lastCheckedAt = check.checkedAt
        nextCheckAt = check.nextCheckAt
        nextCheckReason = check.nextCheckReason
        publicationModel = check.publicationModel
        switch check.result {
        case .fetched(let feed, let etag, let lastModified, let unconditional):
            lastSuccessAt = check.checkedAt
            lastUnconditionalAt = unconditional ? check.checkedAt : nil
            lastStatus = check.status ?? 200
            failureCount = .reset
            isGone = false
            fetched = Fetched(
                title: feed.title, link: feed.link, image: feed.image, description: feed.description,
                author: feed.author, language: feed.language, etag: etag, lastModified: lastModified,
                isComplete: feed.complete ?? false, bodyBytes: check.bodyBytes, ttlMinutes: feed.ttl,
                syndicationUpdatePeriod: feed.syndicationUpdatePeriod,
                syndicationUpdateFrequency: feed.syndicationUpdateFrequency,
                podcastUpdateFrequency: feed.updateFrequency, podping: feed.podping)
            if check.bodyRead == .short { fetched?.podpingWasRead = false }
        case .notModified:
            lastSuccessAt = check.checkedAt
            lastStatus = check.status ?? 304
            failureCount = .reset
            isGone = false
        case .failed(let kind, let message):
            lastStatus = check.status
            failureCount = .increment
            lastErrorKind = kind
            lastError = message
        case .gone(let message):
            lastStatus = check.status ?? 410
            failureCount = .keep
            lastErrorKind = "gone"
            lastError = message
            isGone = true
            nextCheckAt = nil
            nextCheckReason = .gone
        }
        if case .fetched(let feed, _, _, _) = check.result, check.bodyRead != .short {
            endedEarly = feed.endedEarly
        }
        switch check.bodyRead {
        case .whole(let digest):
            lastWholeReadAt = check.checkedAt
            lastBodyDigest = digest
        case .identical:
            lastWholeReadAt = check.checkedAt
        case .short, nil:
            break
        }
    }
}
