public import Foundation

/// Subscriptions: the feeds a user follows and their check state.
public protocol SubscriptionRepository: Sendable {
    /// Adds a feed; its first successful fetch announces only its `backlog` newest episodes (nil: 1).
    /// - Throws: ``StoreError`` `.duplicate` when the URL is already subscribed.
    func addSubscription(url: URL, title: String?, at date: Date, backlog: Int?) throws -> Subscription
    /// Points a subscription at another URL by hand; the old one is kept as `movedFrom` so the move can be undone.
    /// Validators are dropped and the feed is due at once.
    /// - Throws: ``StoreError`` `.notFound`, or `.duplicate` when another subscription has that URL.
    func moveSubscription(id: Int64, to url: URL) throws -> Subscription
    /// Moves a subscription back to the URL it had before its last move, and stops that move from being followed
    /// again. - Throws: ``StoreError`` `.notFound` when it never moved, `.duplicate` when the old URL is taken.
    func undoMove(id: Int64) throws -> Subscription
    /// Removes a feed and its episodes. - Returns: false when no such id.
    @discardableResult func removeSubscription(id: Int64) throws -> Bool
    /// Every subscription, by id.
    func subscriptions() throws -> [Subscription]
    func subscription(id: Int64) throws -> Subscription?
    func subscription(url: URL) throws -> Subscription?
    /// Subscriptions that are not gone and whose next check is nil or at/before `date`.
    func dueSubscriptions(at date: Date) throws -> [Subscription]
    /// Sets the title (and link/image when given) of a subscription, e.g. after `add` fetched it once.
    func updateMetadata(id: Int64, title: String?, link: URL?, image: URL?) throws
}

extension SubscriptionRepository {
    /// Adds a feed whose first fetch announces only its newest episode.
    public func addSubscription(url: URL, title: String?, at date: Date) throws -> Subscription {
        try addSubscription(url: url, title: title, at: date, backlog: nil)
    }
}

/// Episodes and the merge of one feed check.
public protocol EpisodeRepository: Sendable {
    /// Applies one feed check in a single transaction: merges episodes (new ones inserted, changed ones
    /// updated, missing ones kept), the feed's metadata, validators, schedule, error state and move.
    /// A `.failed` result changes only the feed's error state and schedule.
    func apply(_ check: FeedCheck) throws -> MergeSummary
    /// ``apply(_:)`` from async code, without blocking a thread of the cooperative pool while the database is busy.
    /// (A separate name: an async overload of `apply` would make every existing async caller need `await`.)
    func applyAsync(_ check: FeedCheck) async throws -> MergeSummary
    /// Stored episodes, newest first (by published date, then first-seen).
    func episodes(_ query: EpisodeQuery) throws -> [StoredEpisode]
    /// Number of stored episodes per subscription id.
    func episodeCounts() throws -> [Int64: Int]
    /// The published dates of a feed's newest stored episodes, newest first (for cadence learning).
    func recentPublishedDates(subscriptionID: Int64, limit: Int) throws -> [Date]
}

extension EpisodeRepository {
    /// A repository without its own async path applies the check synchronously.
    public func applyAsync(_ check: FeedCheck) async throws -> MergeSummary {
        try apply(check)
    }
}

/// Refresh runs: when they ran and what they found.
public protocol RefreshRunRepository: Sendable {
    func beginRun(at date: Date) throws -> RefreshRun
    func finishRun(_ run: RefreshRun) throws
    /// The newest finished run.
    func lastRun() throws -> RefreshRun?
}

/// A storage failure a user can act on.
public struct StoreError: Error, Hashable, CustomStringConvertible, LocalizedError {
    public enum Kind: String, Sendable, Hashable {
        /// The URL is already subscribed.
        case duplicate
        /// No subscription with that id.
        case notFound = "not-found"
        /// The database file could not be opened, migrated or written.
        case database
        /// A worker's lease on the feed ran out and another worker may have checked it: the check was not stored.
        case leaseLost = "lease-lost"
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
    public var errorDescription: String? { message }
}
