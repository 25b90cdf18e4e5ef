public import FeedParsing
public import Foundation

/// What merging one fetched feed into a store changes, decided without a database: which episodes are new (and of
/// those, which are announced and which are back catalogue), which changed, and which are unchanged.
///
/// Both stores build the plan inside their merge transaction from what the feed's episodes were (each stored key with
/// its fingerprint) and the parsed feed, then only carry it out. Nothing is ever deleted: an episode the feed no
/// longer lists is not in the plan, and stays stored as it was.
///
/// The plan speaks of episodes by their index in ``ParsedFeed/episodes``, so each store keeps the rows it prepared
/// before the transaction (its own column values) and looks them up by index. An episode listed twice under one key
/// is merged once, as its first listing.
public struct MergePlan: Sendable, Hashable {
    /// An episode stored for the first time.
    public struct Insert: Sendable, Hashable {
        /// Its index in the feed's episodes.
        public var index: Int
        /// Announced as new (stored as first seen by the check's run); false for back catalogue.
        public var announced: Bool

        /// An insert of the episode at `index`.
        public init(index: Int, announced: Bool) {
            self.index = index
            self.announced = announced
        }
    }

    /// Episodes stored for the first time, in feed order.
    public var inserts: [Insert]
    /// Indices of known episodes whose fingerprint changed: every field is written again, in feed order.
    public var updates: [Int]
    /// Indices of known episodes with the same fingerprint: only marked as seen, in feed order.
    public var unchanged: [Int]

    /// A plan of back-catalogue inserts alone (an early merge's, ``EarlyMergePlan``).
    init(backCatalogue indices: [Int]) {
        inserts = indices.map { Insert(index: $0, announced: false) }
        updates = []
        unchanged = []
    }

    /// How many new episodes are stored as back catalogue, not announced.
    public var backlogCount: Int { inserts.count { !$0.announced } }

    /// Plans the merge of `feed` into a store that holds `stored` for its feed.
    ///
    /// - Parameters:
    ///   - feed: The parsed feed.
    ///   - fingerprints: Each episode's ``EpisodeFields/fingerprint``, in feed order (computed before the
    ///     transaction).
    ///   - stored: The feed's stored episodes: identity key → fingerprint.
    ///   - announceLimit: On a subscription's first successful fetch, how many of the new episodes (the newest, see
    ///     ``ParsedFeed/newestEpisodeKeys(count:)``) to announce; nil announces every new episode.
    public init(feed: ParsedFeed, fingerprints: [String], stored: [String: String], announceLimit: Int?) {
        precondition(fingerprints.count == feed.episodes.count, "one fingerprint per episode")
        inserts = []
        updates = []
        unchanged = []
        let announced = announceLimit.map { feed.newestEpisodeKeys(count: $0) }
        var handled = Set<String>()
        handled.reserveCapacity(feed.episodes.count)
        // By index: iterating the episodes would copy each one (every field retained and released).
        for index in feed.episodes.indices {
            let key = feed.episodes[index].id
            guard handled.insert(key).inserted else { continue }
            if let fingerprint = stored[key] {
                if fingerprint == fingerprints[index] {
                    unchanged.append(index)
                } else {
                    updates.append(index)
                }
            } else {
                inserts.append(Insert(index: index, announced: announced?.contains(key) ?? true))
            }
        }
    }

    /// The run an inserted episode is stored as first seen by: the check's run when it is announced, none for back
    /// catalogue.
    public static func firstSeenRun(of insert: Insert, runID: Int64?) -> Int64? {
        insert.announced ? runID : nil
    }

    /// Keys of the known episodes this plan updates that are live now (`podcast:liveItem status="live"`), in feed
    /// order: before carrying the plan out, a store reads which of them it already holds as live
    /// (``EpisodeFields/isLive(storedJSON:)``) and passes those to ``summary(of:subscriptionID:checkedAt:runID:alreadyLive:)``.
    public func updatedLiveKeys(of feed: ParsedFeed) -> [String] {
        updates.compactMap { feed.episodes[$0].live?.status == .live ? feed.episodes[$0].id : nil }
    }

    /// What carrying the plan out changed, for the check's caller: the announced episodes as stored (first and last
    /// seen at `checkedAt`), how many were updated, how many went to the back catalogue, and the live items that went
    /// live.
    ///
    /// - Parameter alreadyLive: Keys of updated episodes the store held as live before this merge: a stream whose
    ///   title or notes change while it stays live did not go live again, and is not said to.
    public func summary(
        of feed: ParsedFeed, subscriptionID: Int64, checkedAt: Date, runID: Int64?, alreadyLive: Set<String>
    ) -> MergeSummary {
        var summary = MergeSummary(
            newEpisodes: inserts.filter(\.announced).map { insert in
                let episode = feed.episodes[insert.index]
                return StoredEpisode(
                    subscriptionID: subscriptionID, key: episode.id, episode: episode, firstSeenAt: checkedAt,
                    lastSeenAt: checkedAt, firstSeenRunID: runID)
            },
            updatedCount: updates.count)
        summary.backlogCount = backlogCount
        // Only the move into live: a new item that is live, or a stored one that was pending, ended or ordinary.
        let touched = inserts.map(\.index) + updates
        summary.wentLive = touched.sorted().compactMap { index in
            let episode = feed.episodes[index]
            guard episode.live?.status == .live, !alreadyLive.contains(episode.id) else { return nil }
            return StoredEpisode(
                subscriptionID: subscriptionID, key: episode.id, episode: episode, firstSeenAt: checkedAt,
                lastSeenAt: checkedAt, firstSeenRunID: runID)
        }
        return summary
    }

    // MARK: - Moves

    /// The URL a check asks the subscription to move to, normalised, or nil when there is nothing to try: no move,
    /// a check that neither fetched the feed nor got a 304 (a failure or a 410 never moves it), the URL it already
    /// has, or the target of a move the user undid (never followed again).
    ///
    /// The store then looks for another subscription under that URL: if there is one, the move is refused
    /// (``refusedMove(to:otherID:otherTitle:)``); if not, the subscription takes the URL and keeps its old one as
    /// `movedFrom`.
    public static func moveTarget(of check: FeedCheck, from subscription: Subscription) -> URL? {
        switch check.result {
        case .fetched, .notModified: break
        case .failed, .gone: return nil
        }
        guard let target = check.movedTo.map(FeedURL.normalized), target != subscription.url,
            target != subscription.refusedMoveTarget
        else { return nil }
        return target
    }

    /// Why a move to `target` was not applied: another subscription already has that URL.
    public static func refusedMove(to target: URL, otherID: Int64, otherTitle: String?) -> TakenMove {
        TakenMove(target: target, otherID: otherID, otherTitle: otherTitle)
    }
}
