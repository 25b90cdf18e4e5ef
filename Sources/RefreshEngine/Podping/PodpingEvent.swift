public import FeedModels
public import Foundation
public import Podping

/// What the podping reader read and did, as events (``EngineEvent/podping(_:)``): typed values, worded by
/// ConsoleOutput.
public enum PodpingEvent: Sendable, Hashable {
    /// There was no cursor: reading starts at the chain's head, `block`.
    case startedAtHead(block: Int64)
    /// The cursor was more than the catch-up limit behind the head: `blocks` blocks were passed over unread.
    case skippedAhead(from: Int64, to: Int64, blocks: Int64)
    /// A batch of blocks was read.
    case blocksRead(PodpingBlocksRead)
    /// One podping notice was read (believed or not).
    case received(PodpingReceipt)
    /// A believed notice named a subscribed feed.
    case matched(PodpingMatch)
    /// A node failed a request; the reader tried the next.
    case nodeFailed(HiveNodeError)
    /// Every node failed; the reader waits and tries again.
    case unavailable(PodpingUnavailable)
    /// The store failed (reading or advancing the cursor, or making feeds due); the reader waits and tries again.
    case storeFailed(StoreError)
    /// Another worker holds the lease on reading the chain (on a shared store); this one only refreshes.
    case leaseHeldElsewhere(worker: String, until: Date)
    /// This worker took the lease and reads the chain.
    case leaseTaken(block: Int64?)
}

/// One batch of blocks read.
public struct PodpingBlocksRead: Sendable, Hashable {
    /// How many blocks.
    public var count: Int
    /// The last block read (the new cursor).
    public var through: Int64
    /// The chain's head when they were read.
    public var head: Int64
    /// The last block's time.
    public var lastBlockTime: Date?
    /// Notices in them, and operations skipped (live tests, malformed, too large, too many feeds).
    public var notices: Int
    public var tests: Int
    public var refused: Int

    public init(
        count: Int, through: Int64, head: Int64, lastBlockTime: Date?, notices: Int, tests: Int, refused: Int
    ) {
        self.count = count
        self.through = through
        self.head = head
        self.lastBlockTime = lastBlockTime
        self.notices = notices
        self.tests = tests
        self.refused = refused
    }
}

/// One notice as read.
public struct PodpingReceipt: Sendable, Hashable {
    public var block: Int64
    public var blockTime: Date
    public var senders: [String]
    public var operationID: String
    public var reason: String
    public var medium: String
    /// How many feed addresses it names.
    public var iris: Int
    /// How many of them name a subscription.
    public var matched: Int
    /// How many of those were not believed (sender not trusted, or the feed opted out).
    public var untrusted: Int

    public init(
        block: Int64, blockTime: Date, senders: [String], operationID: String, reason: String, medium: String,
        iris: Int, matched: Int, untrusted: Int
    ) {
        self.block = block
        self.blockTime = blockTime
        self.senders = senders
        self.operationID = operationID
        self.reason = reason
        self.medium = medium
        self.iris = iris
        self.matched = matched
        self.untrusted = untrusted
    }
}

/// A believed notice naming a subscribed feed.
public struct PodpingMatch: Sendable, Hashable {
    public var feed: FeedTarget
    public var block: Int64
    public var blockTime: Date
    public var reason: String
    /// The address as the notice wrote it.
    public var iri: String
    /// When the feed is now due; nil when the ping needed no fetch (checked since, or already due sooner).
    public var dueAt: Date?

    public init(feed: FeedTarget, block: Int64, blockTime: Date, reason: String, iri: String, dueAt: Date?) {
        self.feed = feed
        self.block = block
        self.blockTime = blockTime
        self.reason = reason
        self.iri = iri
        self.dueAt = dueAt
    }
}
