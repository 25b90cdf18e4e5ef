public import FeedParsing
public import Foundation

/// Episodes of a body still being read, merged before its end so a big feed is never held whole in memory (issue
/// #36): what a refresh hands its store every few megabytes of a long body.
///
/// Nothing is written that a failed check would not have written: stored episodes are neither updated nor marked seen
/// (a known, unchanged episode is only named back, and its key is marked seen by the check's own merge,
/// ``FeedCheck/seenEarly``), and a new one is inserted only where ``insertable`` says so: on a feed's first check, as
/// back catalogue that is surely not among the newest the check announces. Every other episode (new, or changed) is
/// handed back (``EarlyMergeSummary/held``) for the check's own merge. So a failed check leaves the stored episodes as
/// they were, except that a first one may leave back catalogue, which is true of the feed and never announced.
public struct EarlyEpisodes: Sendable {
    /// The feed the episodes belong to.
    public var subscriptionID: Int64
    /// When the check started: what new episodes are stored as first seen at.
    public var checkedAt: Date
    /// The episodes, in feed order, each key once.
    public var episodes: [ParsedEpisode]
    /// For each episode, whether it may be stored now as back catalogue when it is new.
    public var insertable: [Bool]
    /// On a shared store, the claim the check runs under: nothing is written once it is no longer current.
    public var lease: FeedLease?

    public init(
        subscriptionID: Int64, checkedAt: Date, episodes: [ParsedEpisode], insertable: [Bool], lease: FeedLease? = nil
    ) {
        precondition(insertable.count == episodes.count, "one flag per episode")
        self.subscriptionID = subscriptionID
        self.checkedAt = checkedAt
        self.episodes = episodes
        self.insertable = insertable
        self.lease = lease
    }
}

/// The back catalogue a check's early merges stored, taken out again because the check's body was then refused by a
/// limit (larger than the size limit, a decompression bomb, not a feed): a refused body leaves no episode behind, on
/// a feed's first check as on any other. A body cut short by the network (a reset, a timeout) keeps it instead.
public struct EarlyWithdrawal: Sendable, Hashable {
    /// The feed the episodes belong to.
    public var subscriptionID: Int64
    /// When the check started: the first-seen time its early merges stored the episodes under.
    public var checkedAt: Date
    /// The keys the early merges stored.
    public var keys: [String]
    /// On a shared store, the claim the check runs under: nothing is removed once it is no longer current.
    public var lease: FeedLease?

    public init(subscriptionID: Int64, checkedAt: Date, keys: [String], lease: FeedLease? = nil) {
        self.subscriptionID = subscriptionID
        self.checkedAt = checkedAt
        self.keys = keys
        self.lease = lease
    }
}

/// What an early merge wrote, and what it left for the check's own merge.
public struct EarlyMergeSummary: Sendable, Hashable {
    /// Indices (in ``EarlyEpisodes/episodes``) of the episodes left for the check's merge: new ones not stored, and
    /// known ones that changed.
    public var held: [Int]
    /// Indices of known episodes with the same fingerprint: the check's merge marks them seen (by key).
    public var unchanged: [Int]
    /// New episodes stored as back catalogue.
    public var backlogCount: Int

    public init(held: [Int] = [], unchanged: [Int] = [], backlogCount: Int = 0) {
        self.held = held
        self.unchanged = unchanged
        self.backlogCount = backlogCount
    }

    /// Indices of the episodes stored as back catalogue: those of `count` neither held nor unchanged.
    public func stored(of count: Int) -> [Int] {
        let other = Set(held).union(unchanged)
        return (0..<count).filter { !other.contains($0) }
    }
}

/// How an early merge (``EarlyEpisodes``) sorts its episodes, decided without a database.
public struct EarlyMergePlan: Sendable, Hashable {
    /// New episodes stored now, as back catalogue.
    public var inserts: [Int]
    /// New episodes not insertable, and known ones that changed: left for the check's merge.
    public var held: [Int]
    /// Known episodes with the same fingerprint.
    public var unchanged: [Int]

    /// Plans an early merge.
    ///
    /// - Parameters:
    ///   - keys: The episodes' identity keys, in feed order, each once.
    ///   - fingerprints: Each episode's ``EpisodeFields/fingerprint``.
    ///   - stored: The stored fingerprints of those keys that are stored.
    ///   - insertable: Whether each new episode may be stored now.
    public init(keys: [String], fingerprints: [String], stored: [String: String], insertable: [Bool]) {
        precondition(fingerprints.count == keys.count && insertable.count == keys.count, "one of each per episode")
        inserts = []
        held = []
        unchanged = []
        for index in keys.indices {
            if let fingerprint = stored[keys[index]] {
                if fingerprint == fingerprints[index] {
                    unchanged.append(index)
                } else {
                    held.append(index)
                }
            } else if insertable[index] {
                inserts.append(index)
            } else {
                held.append(index)
            }
        }
    }

    /// The writes: the inserts alone, as a ``MergePlan`` a store carries out.
    public var writes: MergePlan { MergePlan(backCatalogue: inserts) }

    /// What carrying the plan out wrote and left.
    public var summary: EarlyMergeSummary {
        EarlyMergeSummary(held: held, unchanged: unchanged, backlogCount: inserts.count)
    }
}
