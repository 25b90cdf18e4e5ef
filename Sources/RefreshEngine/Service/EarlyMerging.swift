import FeedModels
import FeedParsing
import Foundation

/// Sorts a long body's episodes while it is read, every few megabytes, so a big feed (70 MB, 20,000 episodes) is
/// never held whole in memory (issue #36). Each early merge asks the store (``EpisodeRepository/mergeEarly(_:)``):
/// a known, unchanged episode is let go and only its key kept (the check's merge marks it seen); new ones are stored
/// as back catalogue only where they surely are, on a feed's first check, an episode with at least as many newer ones
/// as the check announces. Every other episode (new, or changed) is held here and handed to the check's own merge,
/// which announces it, so a check that fails halfway leaves the stored episodes as they were, but for a first check's
/// back catalogue.
final class EarlyMerging {
    /// When and where a body's episodes are merged early.
    struct Plan: Sendable {
        /// Body bytes (as parsed, after decompression) read between early merges.
        var every: Int
        var store: any EpisodeRepository
        var subscriptionID: Int64
        /// When the check started.
        var checkedAt: Date
        var lease: FeedLease?
        /// On a feed's first check, how many of its newest new episodes the check announces; nil when it announces
        /// every new one (none may then be stored early).
        var announceLimit: Int?
        /// Where the keys stored as back catalogue are kept, for the check to take them out again should its body be
        /// refused (every attempt of a check shares it).
        var stored: EarlyBacklog
    }

    private let plan: Plan
    private var bytesSinceMerge = 0
    /// Episodes taken from the parser so far: the next one's position in the feed.
    private var position = 0
    /// New episodes left for the check's own merge, with their positions, in feed order.
    private var held: [(episode: ParsedEpisode, position: Int)] = []
    /// On a first check, the newest episodes so far (at most the announce limit), newest first.
    private var newest: [(published: Date?, position: Int)] = []
    /// Keys of the known, unchanged episodes let go, for the check's merge to mark seen.
    private(set) var seenUnchanged: [String] = []
    /// New episodes the early merges stored as back catalogue.
    private(set) var backlogCount = 0
    /// True once an early merge was made.
    private(set) var didMerge = false

    init(_ plan: Plan) {
        self.plan = plan
    }

    /// Counts `bytes` more of the body parsed.
    func counted(_ bytes: Int) { bytesSinceMerge += bytes }

    /// True once enough of the body was read since the last early merge.
    var isDue: Bool { bytesSinceMerge >= plan.every }

    /// The held episodes, in feed order, to come before what the parser still holds.
    var heldEpisodes: [ParsedEpisode] { held.map(\.episode) }

    /// Merges `taken` (the parser's completed episodes, in feed order) and the held episodes that may now be stored.
    func merge(_ taken: [ParsedEpisode]) async throws {
        bytesSinceMerge = 0
        var batch: [(episode: ParsedEpisode, position: Int)] = []
        batch.reserveCapacity(taken.count)
        for episode in taken {
            batch.append((episode, position))
            if let limit = plan.announceLimit { noteNewest(episode.published, position: position, limit: limit) }
            position += 1
        }
        let candidates = Set(newest.map(\.position))
        func insertable(_ position: Int) -> Bool { plan.announceLimit != nil && !candidates.contains(position) }
        // Held episodes pushed out of the newest since: back catalogue now, stored with this batch.
        if plan.announceLimit != nil {
            var kept: [(episode: ParsedEpisode, position: Int)] = []
            var released: [(episode: ParsedEpisode, position: Int)] = []
            for entry in held {
                if insertable(entry.position) { released.append(entry) } else { kept.append(entry) }
            }
            held = kept
            batch = released + batch
        }
        guard !batch.isEmpty else { return }
        let summary = try await plan.store.mergeEarly(
            EarlyEpisodes(
                subscriptionID: plan.subscriptionID, checkedAt: plan.checkedAt, episodes: batch.map(\.episode),
                insertable: batch.map { insertable($0.position) }, lease: plan.lease))
        plan.stored.add(summary.stored(of: batch.count).map { batch[$0].episode.id })
        held += summary.held.map { batch[$0] }
        seenUnchanged += summary.unchanged.map { batch[$0].episode.id }
        backlogCount += summary.backlogCount
        didMerge = true
    }

    /// Keeps `newest` the `limit` newest episodes so far, ranked as ``ParsedFeed/newestEpisodeKeys(count:)`` ranks
    /// them: dated before undated, later before earlier, then in feed order. An episode that falls out never returns,
    /// as every one still to come only adds rivals.
    private func noteNewest(_ published: Date?, position: Int, limit: Int) {
        guard limit > 0 else { return }
        func ranksAbove(_ a: (published: Date?, position: Int), _ b: (published: Date?, position: Int)) -> Bool {
            switch (a.published, b.published) {
            case (let x?, let y?): return x != y ? x > y : a.position < b.position
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.position < b.position
            }
        }
        let entry = (published: published, position: position)
        if newest.count == limit, let last = newest.last, !ranksAbove(entry, last) { return }
        var low = 0
        var high = newest.count
        while low < high {
            let middle = (low + high) / 2
            if ranksAbove(newest[middle], entry) { low = middle + 1 } else { high = middle }
        }
        newest.insert(entry, at: low)
        if newest.count > limit { newest.removeLast() }
    }
}

/// The keys a check's early merges stored as back catalogue, across the check's attempts: what it takes out again
/// when its body is then refused by a limit (``EarlyWithdrawal``).
///
/// ## Why this class is `@unchecked Sendable`
/// Its one property is read and written only inside `lock.withLock {}`.
final class EarlyBacklog: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [String] = []

    func add(_ stored: [String]) {
        guard !stored.isEmpty else { return }
        lock.withLock { keys += stored }
    }

    /// The keys stored so far, in the order they were stored.
    var storedKeys: [String] { lock.withLock { keys } }
}
