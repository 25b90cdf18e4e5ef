public import FeedParsing
public import Foundation

/// Episodes of a body still being read, merged before its end so a big feed is never held whole in memory (issue
/// #36): what a refresh hands its store every few megabytes of a long body.
///
/// Only what can be written before the check is known to succeed is written: known episodes are updated or marked
/// seen, and a new one is inserted only where ``insertable`` says so, always as back catalogue (never announced).
/// Every other new episode is handed back (``EarlyMergeSummary/held``) for the check's own merge, which announces it.
/// Should the check fail after all, what was written is true of the feed, and nothing that is to be announced was
/// stored: the next check still finds it new.
public struct EarlyEpisodes: Sendable {
    /// The feed the episodes belong to.
    public var subscriptionID: Int64
    /// When the check started: what the episodes are stored as seen at.
    public var checkedAt: Date
    /// The episodes, in feed order, each key once.
    public var episodes: [ParsedEpisode]
    /// For each episode, whether it may be stored now as back catalogue when it is new: true on a feed's first
    /// check for one that is surely not among the newest it announces.
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

/// What an early merge wrote, and what it left for the check's own merge.
public struct EarlyMergeSummary: Sendable, Hashable {
    /// Indices (in ``EarlyEpisodes/episodes``) of the new episodes not written.
    public var held: [Int]
    /// Known episodes whose fields changed.
    public var updatedCount: Int
    /// New episodes stored as back catalogue.
    public var backlogCount: Int

    public init(held: [Int] = [], updatedCount: Int = 0, backlogCount: Int = 0) {
        self.held = held
        self.updatedCount = updatedCount
        self.backlogCount = backlogCount
    }
}

extension MergePlan {
    /// Plans an early merge (``EarlyEpisodes``): known episodes updated or marked seen as in a check's own merge,
    /// new ones inserted as back catalogue where `insertable`, and the other new ones left out (``held``).
    ///
    /// - Parameters:
    ///   - keys: The episodes' identity keys, in feed order, each once.
    ///   - fingerprints: Each episode's ``EpisodeFields/fingerprint``.
    ///   - stored: The stored fingerprints of those keys that are stored.
    ///   - insertable: Whether each new episode may be stored now.
    public init(earlyKeys keys: [String], fingerprints: [String], stored: [String: String], insertable: [Bool]) {
        precondition(fingerprints.count == keys.count && insertable.count == keys.count, "one of each per episode")
        inserts = []
        updates = []
        unchanged = []
        held = []
        for index in keys.indices {
            if let fingerprint = stored[keys[index]] {
                if fingerprint == fingerprints[index] {
                    unchanged.append(index)
                } else {
                    updates.append(index)
                }
            } else if insertable[index] {
                inserts.append(Insert(index: index, announced: false))
            } else {
                held.append(index)
            }
        }
    }

    /// What carrying out an early plan wrote and left.
    public var earlySummary: EarlyMergeSummary {
        EarlyMergeSummary(held: held, updatedCount: updates.count, backlogCount: backlogCount)
    }
}
