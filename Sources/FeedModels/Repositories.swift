public import Foundation

// The repositories every store offers, and the only way the engine reaches storage: every call may wait (for a
// server, or for SQLite's writer). The SQLite store (`FeedStorage`) and the PostgreSQL store (`PostgresStorage`) both
// conform, so one specification suite and one engine use either.

/// Subscriptions.
public protocol SubscriptionRepository: Sendable {
    /// Adds a feed under its normalised URL (``FeedURL``); its first successful fetch announces only its `backlog`
    /// newest episodes (nil: 1).
    /// - Throws: ``StoreError`` `.duplicate` when the URL is already subscribed.
    func addSubscription(url: URL, title: String?, at date: Date, backlog: Int?) async throws -> Subscription
    /// Points a subscription at another URL by hand; the old one is kept as `movedFrom` so the move can be undone.
    /// Validators are dropped and the feed is due at once.
    /// - Throws: ``StoreError`` `.notFound`, or `.duplicate` when another subscription has that URL.
    func moveSubscription(id: Int64, to url: URL) async throws -> Subscription
    /// Moves a subscription back to the URL it had before its last move, and stops that move from being followed
    /// again. - Throws: ``StoreError`` `.notFound` when it never moved, `.duplicate` when the old URL is taken.
    func undoMove(id: Int64) async throws -> Subscription
    /// Removes a feed and its episodes. - Returns: false when no such id.
    @discardableResult func removeSubscription(id: Int64) async throws -> Bool
    /// Every subscription, by id.
    func subscriptions() async throws -> [Subscription]
    /// The subscription with this id, if any.
    func subscription(id: Int64) async throws -> Subscription?
    /// The subscription with this URL (compared normalised), if any.
    func subscription(url: URL) async throws -> Subscription?
    /// Subscriptions that are not gone and whose next check is nil or at/before `date`, by id.
    func dueSubscriptions(at date: Date) async throws -> [Subscription]
}

/// Episodes and the merge of one feed check, for stores whose calls wait on a server.
public protocol EpisodeRepository: Sendable {
    /// Applies one feed check in a single transaction: merges episodes (new ones inserted, changed ones updated,
    /// missing ones kept), the feed's metadata, validators, schedule, error state and move. A `.failed` result changes
    /// only the feed's error state and schedule. Nothing is ever deleted, and applying the same check twice announces
    /// no episode twice.
    func apply(_ check: FeedCheck) async throws -> MergeSummary
    /// Merges episodes of a body still being read (a big feed's, issue #36) in one transaction of its own, as
    /// ``EarlyEpisodes`` says: known ones updated or marked seen, new ones stored as back catalogue where allowed,
    /// the other new ones handed back. Writes nothing of the feed's own state; ``apply(_:)`` ends the check.
    func mergeEarly(_ part: EarlyEpisodes) async throws -> EarlyMergeSummary
    /// Removes the back catalogue a check's early merges stored, when the check's body was then refused
    /// (``EarlyWithdrawal``): only episodes of those keys still as an early merge stored them (first seen at the
    /// check's time, by no run). - Returns: how many were removed.
    func withdrawEarly(_ withdrawal: EarlyWithdrawal) async throws -> Int
    /// Stored episodes, newest first: dated ones by published date, then undated ones by first-seen (those first seen
    /// together in feed order).
    func episodes(_ query: EpisodeQuery) async throws -> [StoredEpisode]
    /// How many stored episodes match `query`, ignoring its limit.
    func countEpisodes(_ query: EpisodeQuery) async throws -> Int
    /// Number of stored episodes per subscription id.
    func episodeCounts() async throws -> [Int64: Int]
    /// The published dates of a feed's newest stored episodes, newest first.
    func recentPublishedDates(subscriptionID: Int64, limit: Int) async throws -> [Date]
    /// A feed's `limit` newest stored episodes by published date (newest first; undated ones are left out), with
    /// their fingerprints: what a body is compared with to stop reading it once it holds nothing new
    /// (``LeadingEpisode``).
    func leadingEpisodes(subscriptionID: Int64, limit: Int) async throws -> [LeadingEpisode]
}

/// A stored episode as a body's leading items are compared with it: its identity key, the fingerprint of its stored
/// fields (``EpisodeFields/fingerprint``) and its published date.
public struct LeadingEpisode: Sendable, Hashable {
    public var key: String
    public var fingerprint: String
    public var published: Date

    public init(key: String, fingerprint: String, published: Date) {
        self.key = key
        self.fingerprint = fingerprint
        self.published = published
    }
}

/// Refresh runs, for stores whose calls wait on a server.
public protocol RefreshRunRepository: Sendable {
    /// Records the start of a run.
    func beginRun(at date: Date) async throws -> RefreshRun
    /// Records what a run found and when it ended.
    func finishRun(_ run: RefreshRun) async throws
    /// The newest finished run; with `checkedFeeds`, the newest that checked at least one feed.
    func lastRun(checkedFeeds: Bool) async throws -> RefreshRun?
}
