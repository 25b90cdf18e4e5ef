public import Foundation

// What the store keeps about podping (issue #23): per feed, whether its host pings and its last ping; once, the
// cursor into the chain and which worker reads it. Kept in tables of their own, beside the subscriptions.

/// A feed's podping state.
public struct PodpingFeedState: Sendable, Hashable {
    public var subscriptionID: Int64
    /// The feed's `<podcast:podping usesPodping="…">`: true or false as it says, nil when it says nothing.
    public var usesPodping: Bool?
    /// Hive accounts the feed names as its own senders (`<podcast:hiveAccount>` inside `<podcast:podping>`).
    public var hiveAccounts: [String]
    /// The block time of the last notice that named this feed and was believed.
    public var lastPingAt: Date?
    /// That notice's reason (`update`, `live`, `liveEnd`).
    public var lastPingReason: String?
    /// That notice's block.
    public var lastPingBlock: Int64?
    /// Believed notices received for this feed.
    public var pingCount: Int

    public init(
        subscriptionID: Int64, usesPodping: Bool? = nil, hiveAccounts: [String] = [], lastPingAt: Date? = nil,
        lastPingReason: String? = nil, lastPingBlock: Int64? = nil, pingCount: Int = 0
    ) {
        self.subscriptionID = subscriptionID
        self.usesPodping = usesPodping
        self.hiveAccounts = hiveAccounts
        self.lastPingAt = lastPingAt
        self.lastPingReason = lastPingReason
        self.lastPingBlock = lastPingBlock
        self.pingCount = pingCount
    }

    /// Whether the feed's host pings: it was pinged, or the feed says it uses podping.
    public var hostPings: Bool { usesPodping != false && (lastPingAt != nil || usesPodping == true) }

    /// How recent a ping must be for the feed's pings to count as seen.
    public static let pingsSeenWithin: TimeInterval = 30 * 86_400

    /// Whether the feed's pings are seen at `now`: one was believed within ``pingsSeenWithin``. While podping is
    /// followed, such a feed is polled only as a safety net.
    public func pingsSeen(at now: Date) -> Bool {
        guard usesPodping != false, let lastPingAt else { return false }
        return now.timeIntervalSince(lastPingAt) < Self.pingsSeenWithin
    }
}

/// A believed notice naming one subscribed feed.
public struct FeedPing: Sendable, Hashable {
    public var subscriptionID: Int64
    public var blockNumber: Int64
    public var blockTime: Date
    public var reason: String

    public init(subscriptionID: Int64, blockNumber: Int64, blockTime: Date, reason: String) {
        self.subscriptionID = subscriptionID
        self.blockNumber = blockNumber
        self.blockTime = blockTime
        self.reason = reason
    }
}

/// Where reading the chain stands.
public struct PodpingCursor: Sendable, Hashable {
    /// The last block read.
    public var block: Int64?
    /// When it was last moved.
    public var updatedAt: Date?
    /// The worker holding the lease to read the chain, and until when.
    public var holder: String?
    public var leaseExpiresAt: Date?

    public init(block: Int64?, updatedAt: Date?, holder: String? = nil, leaseExpiresAt: Date? = nil) {
        self.block = block
        self.updatedAt = updatedAt
        self.holder = holder
        self.leaseExpiresAt = leaseExpiresAt
    }
}

/// The answer to a worker asking to read the chain.
public enum PodpingCursorClaim: Sendable, Hashable {
    /// This worker reads the chain until the lease expires (renew it by advancing); `block` is the cursor.
    case granted(block: Int64?)
    /// Another worker reads it.
    case heldBy(worker: String, until: Date)
}

/// The rule that turns a believed ping into "due now", the same in every store.
public enum PodpingDuePlan {
    /// When a feed pinged at `ping` is due, or nil when the ping needs no fetch.
    ///
    /// - A feed checked well after the ping's block time (``checkedAfterMargin``) already has what it announced.
    /// - Otherwise it is due now, but not sooner than `cooldown` after its last check, so that a burst of pings
    ///   (a host pinging each of several edits, several writers naming one feed) is one fetch.
    /// - A feed already due sooner (or due already: no next check) keeps its time.
    /// - Gone feeds stay gone.
    public static func dueAt(
        ping: Date, now: Date, lastCheckedAt: Date?, nextCheckAt: Date?, isGone: Bool, cooldown: TimeInterval
    ) -> Date? {
        if isGone { return nil }
        if let lastCheckedAt, lastCheckedAt >= ping.addingTimeInterval(checkedAfterMargin) { return nil }
        // No next check: due already.
        guard let nextCheckAt else { return nil }
        let due = max(now, lastCheckedAt.map { $0.addingTimeInterval(cooldown) } ?? now)
        return nextCheckAt <= due ? nil : due
    }

    /// How long after a ping's block a check must have started to be sure it saw the change: block times are whole
    /// seconds of the chain's clock, and a host may write its ping a little before its feed is served everywhere.
    public static let checkedAfterMargin: TimeInterval = 15

    // MARK: - A ping during a check

    /// Until when a check that starts may have missed a believed ping recorded at `recordedAt` for a change
    /// announced in the block of `ping`: a check that started before the ping was recorded was not made for it, and
    /// one that started before ``checkedAfterMargin`` past its block may predate the change. Stores keep the latest
    /// such time per feed (with the cooldown) for ``dueAfterCheck(startedAt:planned:recheckBefore:cooldown:)``.
    public static func recheckBefore(ping: Date, recordedAt: Date) -> Date {
        min(recordedAt, ping.addingTimeInterval(checkedAfterMargin))
    }

    /// When a check that started at `startedAt` leaves its feed due, given what pings say: a ping recorded while it
    /// was in flight (the check started before `recheckBefore`) may announce a change the check did not get, so the
    /// feed is due again `cooldown` after the check started, unless `planned` (the schedule's next check) is sooner.
    /// A burst of pings during one fetch is thus one more fetch, and no ping is lost.
    ///
    /// - Returns: The due time to store instead of `planned` (with ``reason``), or nil to keep the plan (no ping
    ///   came during the check, or the plan is sooner; `planned` nil is due at once already).
    public static func dueAfterCheck(
        startedAt: Date, planned: Date?, recheckBefore: Date?, cooldown: TimeInterval?
    ) -> Date? {
        guard let recheckBefore, startedAt < recheckBefore, let planned else { return nil }
        let due = startedAt.addingTimeInterval(max(0, cooldown ?? 0))
        return planned <= due ? nil : due
    }
}

/// A summary of the subscriptions, cheap to read, that changes when one is added, removed, moved or gone: the
/// podping reader keeps its index of subscription addresses until it changes (or grows old).
public struct SubscriptionsMark: Sendable, Hashable {
    /// Subscriptions, and the highest id among them.
    public var count: Int64
    public var maxID: Int64
    /// Gone subscriptions (not matched).
    public var gone: Int64
    /// Subscriptions with a recorded move, and the length of every current and former URL together.
    public var moved: Int64
    public var urlLength: Int64

    public init(count: Int64, maxID: Int64, gone: Int64, moved: Int64, urlLength: Int64) {
        self.count = count
        self.maxID = maxID
        self.gone = gone
        self.moved = moved
        self.urlLength = urlLength
    }
}

/// Podping state, for stores whose calls wait on a server.
public protocol PodpingRepository: Sendable {
    /// Every feed's podping state that has any, by subscription id.
    func podpingStates() async throws -> [Int64: PodpingFeedState]
    /// The podping state of these feeds (those that have any), by subscription id.
    func podpingStates(subscriptionIDs: [Int64]) async throws -> [Int64: PodpingFeedState]
    /// The subscriptions' ``SubscriptionsMark``, in one cheap query.
    func subscriptionsMark() async throws -> SubscriptionsMark
    /// Records believed pings and makes their feeds due by ``PodpingDuePlan``, in one transaction.
    /// - Returns: The feeds made due, with when.
    func recordPings(_ pings: [FeedPing], at now: Date, cooldown: TimeInterval) async throws -> [Int64: Date]
    /// The cursor, if the chain was ever read.
    func podpingCursor() async throws -> PodpingCursor?
    /// Asks to be the one worker that reads the chain for `lease` seconds (granted again to its holder).
    func claimPodpingCursor(worker: String, lease: TimeInterval, at now: Date) async throws -> PodpingCursorClaim
    /// Moves the cursor to `block` and renews the lease. - Returns: false when `worker` no longer holds the lease.
    func advancePodpingCursor(to block: Int64, worker: String, lease: TimeInterval, at now: Date) async throws -> Bool
    /// Gives the lease up (a worker that stops), so another may read at once.
    func releasePodpingCursor(worker: String) async throws
}
