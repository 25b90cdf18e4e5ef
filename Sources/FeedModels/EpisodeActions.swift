import FeedParsing
public import Foundation

// Episode actions synced with a gPodder-API server (issue #35, part 3): what the server says happened to an episode
// on another device (played to a position, deleted, marked new), kept per episode as its play state; and the actions
// podfresh has to tell the server (a download completed here), kept in an outbox until the server took them.

/// What an episode action says (the gPodder API's `action`).
public enum EpisodeActionKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The episode was downloaded on that device.
    case download
    /// The episode was played (to `position` of `total` seconds).
    case play
    /// That device deleted its copy of the episode.
    case delete
    /// The episode was marked new (unplayed) again.
    case new

    /// The kind an API name stands for, compared case-insensitively (Nextcloud answers `PLAY`); nil for a kind
    /// podfresh does not use (`flattr`).
    public init?(apiName: String) {
        self.init(rawValue: apiName.lowercased())
    }
}

/// One episode action, as a server gives it or as podfresh sends it.
public struct EpisodeAction: Sendable, Hashable {
    /// The feed's URL.
    public var podcast: String
    /// The episode's media (enclosure) URL.
    public var episode: String
    /// The episode's guid, where the action gives one.
    public var guid: String?
    public var kind: EpisodeActionKind
    /// When it happened on the device (UTC); nil when the server gave none.
    public var timestamp: Date?
    /// For `play`: where playing started, where it stopped, and the episode's length, in seconds.
    public var started: Int?
    public var position: Int?
    public var total: Int?
    /// The device that made it, where the server says.
    public var device: String?

    public init(
        podcast: String, episode: String, guid: String? = nil, kind: EpisodeActionKind, timestamp: Date? = nil,
        started: Int? = nil, position: Int? = nil, total: Int? = nil, device: String? = nil
    ) {
        self.podcast = podcast
        self.episode = episode
        self.guid = guid
        self.kind = kind
        self.timestamp = timestamp
        self.started = started
        self.position = position
        self.total = total
        self.device = device
    }
}

/// One stored episode, by its identity in the store.
public struct EpisodeRef: Sendable, Hashable {
    public var subscriptionID: Int64
    public var episodeKey: String

    public init(subscriptionID: Int64, episodeKey: String) {
        self.subscriptionID = subscriptionID
        self.episodeKey = episodeKey
    }
}

/// Where an episode stands on the user's other devices, from the latest episode action the server gave for it.
public struct EpisodePlayState: Sendable, Hashable {
    /// Seconds into the episode where playing stopped; nil when no position is known (never played, or marked new).
    public var position: Int?
    /// The episode's length in seconds, as the device knew it.
    public var total: Int?
    /// Played to the end (within ``EpisodePlayState/endSlack`` seconds) on some device.
    public var played: Bool
    /// When it was played to the end.
    public var playedAt: Date?
    /// The latest action applied, and when it happened.
    public var lastAction: EpisodeActionKind
    public var actionAt: Date
    /// The device that made the latest action, where the server said.
    public var device: String?

    /// How close to the end a position counts as played to the end: 30 seconds.
    public static let endSlack = 30

    public init(
        position: Int? = nil, total: Int? = nil, played: Bool = false, playedAt: Date? = nil,
        lastAction: EpisodeActionKind, actionAt: Date, device: String? = nil
    ) {
        self.position = position
        self.total = total
        self.played = played
        self.playedAt = playedAt
        self.lastAction = lastAction
        self.actionAt = actionAt
        self.device = device
    }

    /// Whether `position` of `total` seconds is the end: `total` known and positive, `position` within 30 s of it.
    public static func isEnd(position: Int?, total: Int?) -> Bool {
        guard let position, let total, total > 0 else { return false }
        return position >= total - endSlack
    }

    /// The state after `action` (which happened at `at`), from `current`; nil when the action does not change what
    /// podfresh keeps (a `download` elsewhere).
    ///
    /// - `play` sets the position and length; played when the position is the end (a later play that stops earlier,
    ///   listening again, is not played any more: the latest action wins).
    /// - `new` clears the position and the played mark.
    /// - `delete` (that device deleted its copy) is recorded as the latest action; position and played stay.
    public static func after(
        _ action: EpisodeAction, at: Date, current: EpisodePlayState?
    ) -> EpisodePlayState? {
        switch action.kind {
        case .download:
            return nil
        case .play:
            let played = isEnd(position: action.position, total: action.total)
            return EpisodePlayState(
                position: action.position.map { max(0, $0) }, total: action.total, played: played,
                playedAt: played ? (current?.played == true ? current?.playedAt ?? at : at) : nil, lastAction: .play,
                actionAt: at, device: action.device)
        case .new:
            return EpisodePlayState(lastAction: .new, actionAt: at, device: action.device)
        case .delete:
            var state = current ?? EpisodePlayState(lastAction: .delete, actionAt: at)
            state.lastAction = .delete
            state.actionAt = at
            state.device = action.device
            return state
        }
    }
}

/// A stored episode as matching sees it: its feed and key, its guid, and its media URLs (normalised).
public struct ActionMatchCandidate: Sendable, Hashable {
    public var ref: EpisodeRef
    public var guid: String?
    /// The episode's enclosure URLs, in ``FeedURL/normalizedString(_:)``'s spelling.
    public var mediaURLs: [String]

    public init(ref: EpisodeRef, guid: String?, mediaURLs: [String]) {
        self.ref = ref
        self.guid = guid
        self.mediaURLs = mediaURLs
    }
}

/// What applying a pull of episode actions did, in counts.
public struct PulledActionsSummary: Sendable, Hashable, Codable {
    /// Actions the server gave.
    public var received: Int
    /// Episodes whose state changed here.
    public var applied: Int
    /// Of those, episodes that became played to the end.
    public var played: Int
    /// Actions for a feed podfresh does not have, or without anything podfresh uses (ignored).
    public var unmatched: Int
    /// Actions for a feed podfresh has but an episode it has not stored yet: kept, and applied once the episode is
    /// stored (a feed the same sync subscribed is fetched after it).
    public var waiting: Int
    /// Actions that changed nothing: older than what is known, the same again, downloads elsewhere, this device's own.
    public var unchanged: Int

    public init(
        received: Int = 0, applied: Int = 0, played: Int = 0, unmatched: Int = 0, waiting: Int = 0, unchanged: Int = 0
    ) {
        self.received = received
        self.applied = applied
        self.played = played
        self.unmatched = unmatched
        self.waiting = waiting
        self.unchanged = unchanged
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        received = try c.decodeIfPresent(Int.self, forKey: .received) ?? 0
        applied = try c.decodeIfPresent(Int.self, forKey: .applied) ?? 0
        played = try c.decodeIfPresent(Int.self, forKey: .played) ?? 0
        unmatched = try c.decodeIfPresent(Int.self, forKey: .unmatched) ?? 0
        waiting = try c.decodeIfPresent(Int.self, forKey: .waiting) ?? 0
        unchanged = try c.decodeIfPresent(Int.self, forKey: .unchanged) ?? 0
    }
}

/// An action kept until its episode is stored: the feed it names is subscribed here, the episode not yet.
public struct WaitingEpisodeAction: Sendable, Hashable {
    /// Its id in the store.
    public var id: Int64
    public var subscriptionID: Int64
    public var action: EpisodeAction

    public init(id: Int64, subscriptionID: Int64, action: EpisodeAction) {
        self.id = id
        self.subscriptionID = subscriptionID
        self.action = action
    }
}

/// Which play states a pull of episode actions writes, decided without a database: both stores read the feeds and
/// episodes the actions name and the current states, build this plan, and write ``changes`` (with the new cursor)
/// in one transaction.
///
/// Matching: the action's feed (`podcast`) is looked up as the store compares feed URLs (``FeedURL``); within that
/// feed, the episode by guid where the action gives one, else by media URL (normalised the same way). An action for a
/// feed podfresh does not have is counted and ignored; one for a feed it has but an episode not stored yet waits
/// (``waitingIndices``) and is matched again later. The latest action per episode (by timestamp; among equal ones,
/// the later in the list) wins, and it replaces the stored state only when it is not older. Actions this device made
/// (its own downloads, echoed back) and downloads on other devices change nothing.
public struct PulledActionsPlan: Sendable {
    /// The states to store.
    public var changes: [EpisodeRef: EpisodePlayState] = [:]
    /// The counts.
    public var summary = PulledActionsSummary()
    /// The indices of the actions that found their episode (whether or not they changed it).
    public var matchedIndices: Set<Int> = []
    /// The indices of the actions that wait for their episode, with the feed each names.
    public var waitingIndices: [(index: Int, subscriptionID: Int64)] = []

    /// - Parameters:
    ///   - actions: The actions, in order (those waiting from earlier pulls first, then the server's).
    ///   - feeds: Subscription ids by normalised feed URL.
    ///   - candidates: The stored episodes of the feeds the actions name.
    ///   - current: The stored states of those episodes.
    ///   - ownDevice: This device's id: its own actions are echoes.
    ///   - fallbackDate: The date of an action without a timestamp (the pull's).
    public init(
        actions: [EpisodeAction], feeds: [String: Int64], candidates: [ActionMatchCandidate],
        current: [EpisodeRef: EpisodePlayState], ownDevice: String?, fallbackDate: Date
    ) {
        summary.received = actions.count
        var byGuid: [Int64: [String: EpisodeRef]] = [:]
        var byMedia: [Int64: [String: EpisodeRef]] = [:]
        for candidate in candidates {
            let feed = candidate.ref.subscriptionID
            if let guid = candidate.guid, !guid.isEmpty { byGuid[feed, default: [:]][guid] = candidate.ref }
            for url in candidate.mediaURLs { byMedia[feed, default: [:]][url] = candidate.ref }
        }
        var latest: [EpisodeRef: (action: EpisodeAction, at: Date)] = [:]
        // Many actions name one feed: each spelling is normalised and looked up once.
        var feedOf: [String: Int64?] = [:]
        for (index, action) in actions.enumerated() {
            if (ownDevice != nil && action.device == ownDevice) || action.kind == .download {
                summary.unchanged += 1
                continue
            }
            let known: Int64?
            if let cached = feedOf[action.podcast] {
                known = cached
            } else {
                known = feeds[FeedURL.normalizedString(action.podcast)]
                feedOf[action.podcast] = known
            }
            guard let feed = known else {
                summary.unmatched += 1
                continue
            }
            var ref: EpisodeRef?
            if let guid = action.guid, !guid.isEmpty { ref = byGuid[feed]?[guid] }
            if ref == nil { ref = byMedia[feed]?[FeedURL.normalizedString(action.episode)] }
            guard let ref else {
                summary.waiting += 1
                waitingIndices.append((index, feed))
                continue
            }
            matchedIndices.insert(index)
            let at = action.timestamp ?? fallbackDate
            if let earlier = latest[ref], earlier.at > at {
                summary.unchanged += 1
                continue
            }
            if latest[ref] != nil { summary.unchanged += 1 }
            latest[ref] = (action, at)
        }
        for (ref, pick) in latest {
            let now = current[ref]
            if let now, now.actionAt > pick.at {
                summary.unchanged += 1
                continue
            }
            guard let next = EpisodePlayState.after(pick.action, at: pick.at, current: now), next != now else {
                summary.unchanged += 1
                continue
            }
            changes[ref] = next
            summary.applied += 1
            if next.played && now?.played != true { summary.played += 1 }
        }
    }

    /// The feed URLs the actions name, normalised, each once.
    public static func feedURLs(of actions: [EpisodeAction]) -> Set<String> {
        Set(Set(actions.map(\.podcast)).map(FeedURL.normalizedString))
    }
}

/// An action waiting in the outbox to be pushed, with its place in the outbox.
public struct PendingEpisodeAction: Sendable, Hashable {
    /// Its id in the outbox (pushed in id order).
    public var id: Int64
    public var action: EpisodeAction
    /// The stored episode it is about, when it is one.
    public var ref: EpisodeRef?

    public init(id: Int64, action: EpisodeAction, ref: EpisodeRef? = nil) {
        self.id = id
        self.action = action
        self.ref = ref
    }
}

/// Episode actions in both stores: the play states pulled from the server, the outbox of actions to push, and the
/// cursor of the server's episode actions (in ``SyncState/actionsCursor``).
///
/// A download recorded complete (``DownloadRepository/recordDownloadCompleted(_:)``) while sync is set up puts a
/// `download` action in the outbox in the same transaction, so a download completed while the server is down is
/// pushed by the next sync; an action leaves the outbox in the transaction that records the server took it.
public protocol EpisodeActionRepository: Sendable {
    /// Applies a pull in one transaction: matches the actions, with those still waiting for their episode, to stored
    /// episodes (``PulledActionsPlan``), stores the states that change, keeps the actions whose episode is not stored
    /// yet (and lets go of those now matched), and moves the episode-actions cursor to `cursor`.
    /// - Parameters:
    ///   - ownDevice: This device's id: its own actions change nothing.
    ///   - at: The pull's date, for actions without a timestamp.
    func applyPulledEpisodeActions(
        _ actions: [EpisodeAction], cursor: Int64, ownDevice: String?, at: Date
    ) async throws -> PulledActionsSummary
    /// Matches the actions waiting for their episode (of one feed, or of all when nil) again, now that more episodes
    /// may be stored, as ``applyPulledEpisodeActions(_:cursor:ownDevice:at:)`` does without a pull.
    func applyWaitingEpisodeActions(subscriptionID: Int64?, at: Date) async throws -> PulledActionsSummary
    /// The actions waiting for their episode.
    func waitingEpisodeActions() async throws -> [WaitingEpisodeAction]
    /// The oldest `limit` actions waiting to be pushed, in the order they were made.
    func pendingEpisodeActions(limit: Int) async throws -> [PendingEpisodeAction]
    /// How many actions wait to be pushed.
    func pendingEpisodeActionCount() async throws -> Int
    /// The server took these actions: they leave the outbox, in one transaction.
    func recordEpisodeActionsPushed(ids: [Int64]) async throws
    /// Puts an action in the outbox, dated by its timestamp (sync must be set up; otherwise nothing is kept).
    func queueEpisodeAction(_ action: EpisodeAction, for ref: EpisodeRef?) async throws
    /// The play states of one feed's episodes (every feed's when nil).
    func playStates(subscriptionID: Int64?) async throws -> [EpisodeRef: EpisodePlayState]
}

/// An episode marked played to the end, or new (unplayed), here (`podfresh mark`): its play state changes as the
/// action says, and with sync set up the action goes to the server as a `play` to the end or a `new`.
public struct LocalEpisodeMark: Sendable, Hashable {
    public var ref: EpisodeRef
    /// The action as the server is told it (its `device` is ``LocalEpisodeMark/device``, which the state keeps).
    public var action: EpisodeAction

    /// The device a state marked here names: `download` says "marked played here" rather than another device.
    public static let device = "podfresh mark"

    public init(ref: EpisodeRef, action: EpisodeAction) {
        self.ref = ref
        self.action = action
    }

    /// The mark of `episode` of the feed at `feedURL` at `at`: `play` to its end, or `new`.
    ///
    /// A `play` to the end gives position and length as the episode's duration in whole seconds; an episode whose
    /// feed gives no duration is said as 1 of 1 second, which every app reads as played to the end. The episode is
    /// named by its first enclosure's URL, as a `download` action names it (else its link).
    public static func mark(
        _ episode: StoredEpisode, feedURL: URL, played: Bool, at: Date
    ) -> LocalEpisodeMark {
        let length = max(1, Int((episode.episode.duration ?? 0).rounded()))
        let media = episode.episode.enclosures.first?.urlString ?? episode.episode.linkString ?? ""
        return LocalEpisodeMark(
            ref: EpisodeRef(subscriptionID: episode.subscriptionID, episodeKey: episode.key),
            action: EpisodeAction(
                podcast: feedURL.absoluteString, episode: media, guid: episode.episode.guid,
                kind: played ? .play : .new, timestamp: at, started: played ? 0 : nil,
                position: played ? length : nil, total: played ? length : nil, device: device))
    }
}

/// Marking episodes here (`podfresh mark`), on a store that keeps play states.
public protocol EpisodeMarkRepository: Sendable {
    /// Applies `marks` in one transaction: each episode's play state becomes what its action says
    /// (``EpisodePlayState/after(_:at:current:)``), and, when sync is set up, each action whose episode has a URL goes
    /// to the outbox for the next sync to send. - Returns: how many episodes changed (played ones marked played again
    /// do not; their action is not sent again).
    func markEpisodes(_ marks: [LocalEpisodeMark], at: Date) async throws -> Int
}

extension LocalEpisodeMark {
    /// Whether the mark changes `current`: played to the end when it is not yet, or new when it is played or has a
    /// position.
    public func changes(_ current: EpisodePlayState?) -> Bool {
        switch action.kind {
        case .play: return current?.played != true
        case .new: return current != nil && (current?.played == true || current?.position != nil)
        case .download, .delete: return false
        }
    }
}
