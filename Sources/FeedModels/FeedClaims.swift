public import Foundation

/// Every repository a command needs, as one store: SQLite's `FeedStore` or a store on a database server.
public typealias FeedRepositories = SubscriptionRepository & EpisodeRepository & RefreshRunRepository
    & DownloadRepository & NewFeedSettingsRepository

/// A worker's hold on one feed: given by ``FeedClaiming/claimFeeds(_:)``, carried by the ``FeedCheck`` of that feed,
/// and checked by the merge (a merge whose lease is no longer current is refused with ``StoreError/Kind/leaseLost``).
public struct FeedLease: Sendable, Hashable {
    /// The subscription claimed.
    public var subscriptionID: Int64
    /// A number the store gave this claim alone; a later claim of the same feed gets another.
    public var token: Int64

    public init(subscriptionID: Int64, token: Int64) {
        self.subscriptionID = subscriptionID
        self.token = token
    }
}

/// Which feeds a worker asks to claim.
public enum ClaimSelection: Sendable, Hashable {
    /// Feeds that are not gone and due by the database's clock.
    case due
    /// Every feed whatever its schedule (gone ones too when `includeGone`), except those checked at or after
    /// `notCheckedSince`, so that several workers running `--all` check each feed once.
    case all(includeGone: Bool, notCheckedSince: Date)
    /// These feeds, gone or not, whatever their schedule, except those checked at or after `notCheckedSince`.
    case among(ids: [Int64], notCheckedSince: Date)
}

/// What a worker asks for in one claim.
public struct ClaimRequest: Sendable, Hashable {
    /// Which feeds.
    public var selection: ClaimSelection
    /// The most feeds to claim now (the worker's free fetch slots).
    public var limit: Int
    /// The most feeds of one host leased at once across every worker (`--per-host`).
    public var perHost: Int
    /// Who claims, for `status` and for the lease's fence (a host name and process id, say).
    public var worker: String
    /// How long the lease lasts from the database's clock before others may take the feed (`--lease`).
    public var lease: Duration

    public init(selection: ClaimSelection, limit: Int, perHost: Int, worker: String, lease: Duration) {
        self.selection = selection
        self.limit = limit
        self.perHost = perHost
        self.worker = worker
        self.lease = lease
    }
}

/// What one claim got.
public struct ClaimResult: Sendable {
    /// The feeds now leased to the worker, each with its lease.
    public var claimed: [(subscription: Subscription, lease: FeedLease)]
    /// Feeds the selection matches that nobody holds and that this claim left (their hosts are at the fleet's
    /// `perHost` limit, or another transaction held their rows): worth claiming again soon.
    public var waitingForHost: Int

    public init(
        claimed: [(subscription: Subscription, lease: FeedLease)], waitingForHost: Int = 0
    ) {
        self.claimed = claimed
        self.waitingForHost = waitingForHost
    }
}

/// A store several workers share: a feed is claimed under a lease before it is fetched, so each due feed is fetched
/// by one worker, and at most `perHost` feeds of a host are leased at once across all of them.
///
/// Leases are timed by the store's clock alone, never a worker's. A claim is its own short transaction: no row lock is
/// held while a feed is fetched.
public protocol FeedClaiming: Sendable {
    /// Claims up to `request.limit` feeds for `request.worker`.
    func claimFeeds(_ request: ClaimRequest) async throws -> ClaimResult
    /// Gives back leases the worker holds but will not use (a stopped run), so others may take the feeds at once.
    func releaseLeases(_ leases: [FeedLease]) async throws
    /// Leases of every worker that have not expired, by the store's clock.
    func activeLeaseCount() async throws -> Int
    /// The store's clock minus this machine's, in seconds: a worker dates its schedule decisions by the store's clock.
    func clockOffset() async throws -> TimeInterval
    /// Joins the fleet's run over `selection` (``CheckPass``) and returns when it started, by the store's clock: the
    /// run in progress when one is (another worker joined or claimed for it within `lease`), else a new one starting
    /// now. Every worker of one run checks only the feeds not checked since that start, so each feed once.
    func joinCheckPass(_ selection: CheckPass, lease: Duration) async throws -> Date
    /// Says the run that started at `startedAt` is still going (its workers claim for it): it stays joinable.
    func touchCheckPass(_ selection: CheckPass, startedAt: Date) async throws
    /// Ends the run that started at `startedAt`, when this worker found nothing left to claim: a worker that starts
    /// after it begins a new run, which checks every feed again.
    func endCheckPass(_ selection: CheckPass, startedAt: Date) async throws
}

/// A run of the fleet over every feed (`refresh --all`, `--force`) or over named feeds, which several workers share:
/// the key the workers of one run meet under.
public struct CheckPass: Sendable, Hashable {
    /// Stable text naming the selection (`all`, `force`, or `feeds:` and the sorted ids).
    public var key: String

    /// The pass of a selection that checks feeds whatever their schedule; nil for ``ClaimSelection/due``, whose
    /// schedule already keeps a feed from being checked twice.
    public init?(_ selection: ClaimSelection) {
        switch selection {
        case .due: return nil
        case .all(let includeGone, _): key = includeGone ? "force" : "all"
        case .among(let ids, _): key = "feeds:" + ids.sorted().map(String.init).joined(separator: ",")
        }
    }

    /// The same selection, for feeds not checked since `start` (the run's start).
    public static func selection(_ selection: ClaimSelection, since start: Date) -> ClaimSelection {
        switch selection {
        case .due: return .due
        case .all(let includeGone, _): return .all(includeGone: includeGone, notCheckedSince: start)
        case .among(let ids, _): return .among(ids: ids, notCheckedSince: start)
        }
    }
}
