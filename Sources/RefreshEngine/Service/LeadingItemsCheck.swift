import FeedModels
import FeedParsing
import Foundation

/// Decides, episode by episode as a body is parsed, whether the rest of the body can hold anything new (issue #36).
///
/// Almost every feed lists its items newest first. Once a few items in a row are stored with the same fingerprint,
/// and every item so far came in newest-first order starting no older than the newest stored episode, what follows is
/// older than what the store already holds from this feed, and reading it would find nothing new. Anything that
/// breaks that reasoning makes the body be read whole:
/// - an item without a date, or not dated strictly before the item before it (the order is not shown newest-first);
/// - a first item older than the newest stored episode (the feed is not in the order the store knows);
/// - a known item whose fingerprint changed (an edit: more may have changed further down);
/// - no run of known items within the first ``maxExamined`` items.
///
/// What it cannot see, by design: a new item listed after the known run (a back-dated episode inserted deep in the
/// list) or an edit past the run. The whole read a day later (``FeedRefresh``) finds both.
struct LeadingItemsCheck: Sendable {
    /// Known, unchanged items in a row after which the rest is not read.
    static let knownRunToStop = 3
    /// Items looked at before giving up and reading the body whole.
    static let maxExamined = 200
    /// How many of the newest stored episodes are compared (more than a run can need, for feeds that add several
    /// episodes between checks).
    static let storedToCompare = 50

    enum Verdict: Equatable {
        /// Nothing decided yet: read on.
        case readOn
        /// The rest of the body holds nothing new.
        case stop
        /// The body must be read whole.
        case readWhole
    }

    private let stored: [String: LeadingEpisode]
    private let newestStored: Date
    private var examined = 0
    private var previous: Date?
    private var knownRun = 0

    /// A check against a feed's newest stored episodes (``EpisodeRepository/leadingEpisodes(subscriptionID:limit:)``);
    /// nil when there are too few to make a run.
    init?(stored leading: [LeadingEpisode]) {
        guard leading.count >= Self.knownRunToStop, let newest = leading.map(\.published).max() else { return nil }
        newestStored = newest
        stored = Dictionary(leading.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Takes the next item of the body, in document order.
    mutating func next(_ episode: ParsedEpisode) -> Verdict {
        examined += 1
        guard examined <= Self.maxExamined, let published = episode.published else { return .readWhole }
        if let previous {
            // Equal dates prove no order: a new item dated like the known ones may come after them.
            if published >= previous { return .readWhole }
        } else if published < newestStored {
            return .readWhole
        }
        previous = published
        guard let known = stored[episode.id] else {
            knownRun = 0
            return .readOn
        }
        guard EpisodeFields(episode).fingerprint == known.fingerprint else { return .readWhole }
        knownRun += 1
        return knownRun >= Self.knownRunToStop ? .stop : .readOn
    }
}
