public import Foundation

// What the store keeps about syncing with a gPodder-API server (issue #35): one set-up (server, user, device, which
// API), the subscriptions cursor the server returned, the list of feeds the server is known to hold for this device
// (what a sync compares the local list with), the last sync's outcome, and the lease of the one worker of a fleet
// that syncs. The password is not here on SQLite: the executable keeps it in a file readable by the user alone.

/// Which flavour of the gPodder API a server speaks.
public enum SyncAPI: String, Sendable, Hashable, CaseIterable, Codable {
    /// The gpodder.net API v2 (mygpo, oPodSync, micro-gpodder-server, gpodder-fastapi-router …).
    case gpodder
    /// Nextcloud's gPodder Sync app (`/index.php/apps/gpoddersync/…`): one list per user, app passwords.
    case nextcloud
}

/// Where and as whom podfresh syncs.
public struct SyncSetup: Sendable, Hashable {
    /// The server's base URL (`https://gpodder.example.org`, `https://cloud.example.org`).
    public var server: URL
    /// The account's user name.
    public var user: String
    /// This device's id on the server (`podfresh-<hostname>` unless given).
    public var device: String
    public var api: SyncAPI

    public init(server: URL, user: String, device: String, api: SyncAPI) {
        self.server = server
        self.user = user
        self.device = device
        self.api = api
    }
}

/// What went wrong in a sync, as facts (worded by ConsoleOutput's `SyncText`); stored as JSON with the outcome.
public struct SyncFailure: Sendable, Hashable, Codable, Error {
    /// The step that failed.
    public enum Step: String, Sendable, Hashable, Codable {
        case register, pull, push, store
        /// Reading the episode actions from the server, and sending them.
        case pullActions = "pull_actions"
        case pushActions = "push_actions"
    }

    /// What kind of failure.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// No connection (refused, no route, name not found); `detail` is the system's reason.
        case unreachable
        /// The server did not answer within the time allowed.
        case timedOut
        /// 401: the user name or password was refused.
        case unauthorized
        /// 403: the account may not do this (another user's list, a disabled account).
        case forbidden
        /// 404: no gPodder API at this address (or, for Nextcloud, the app is not installed).
        case notFound
        /// Another HTTP status; `status` says which.
        case httpStatus
        /// The server redirected elsewhere; `detail` is the target (credentials are never sent on).
        case redirected
        /// The answer was not the JSON the API defines; `detail` is the decoder's account.
        case malformed
        /// The store failed; `detail` is its account.
        case store
        /// The password kept at set-up is gone; `detail` is where it was kept.
        case noPassword
    }

    public var step: Step
    public var kind: Kind
    /// The server's address.
    public var server: String
    /// The HTTP status, where one came.
    public var status: Int?
    /// More facts: the system's or the decoder's reason, a redirect's target.
    public var detail: String?

    public init(step: Step, kind: Kind, server: String, status: Int? = nil, detail: String? = nil) {
        self.step = step
        self.kind = kind
        self.server = server
        self.status = status
        self.detail = detail
    }
}

/// What one sync did, or how it failed; the last one is stored and shown by `status`.
public struct SyncOutcome: Sendable, Hashable, Codable {
    /// Subscriptions the server added here, and removed here.
    public var pulledAdded: Int
    public var pulledRemoved: Int
    /// Subscriptions pushed to the server: added there, removed there.
    public var pushedAdded: Int
    public var pushedRemoved: Int
    /// URLs the server rewrote (`update_urls`) and podfresh adopted.
    public var rewritten: Int
    /// What the pull of episode actions did (zeros when none was pulled).
    public var actions: PulledActionsSummary
    /// Episode actions pushed to the server (downloads completed here).
    public var actionsPushed: Int
    /// Nil when the sync succeeded.
    public var failure: SyncFailure?

    public init(
        pulledAdded: Int = 0, pulledRemoved: Int = 0, pushedAdded: Int = 0, pushedRemoved: Int = 0,
        rewritten: Int = 0, actions: PulledActionsSummary = PulledActionsSummary(), actionsPushed: Int = 0,
        failure: SyncFailure? = nil
    ) {
        self.pulledAdded = pulledAdded
        self.pulledRemoved = pulledRemoved
        self.pushedAdded = pushedAdded
        self.pushedRemoved = pushedRemoved
        self.rewritten = rewritten
        self.actions = actions
        self.actionsPushed = actionsPushed
        self.failure = failure
    }

    /// Reads an outcome stored by any version: the episode-action counts default to zero (an outcome stored before
    /// they existed has none).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pulledAdded = try c.decodeIfPresent(Int.self, forKey: .pulledAdded) ?? 0
        pulledRemoved = try c.decodeIfPresent(Int.self, forKey: .pulledRemoved) ?? 0
        pushedAdded = try c.decodeIfPresent(Int.self, forKey: .pushedAdded) ?? 0
        pushedRemoved = try c.decodeIfPresent(Int.self, forKey: .pushedRemoved) ?? 0
        rewritten = try c.decodeIfPresent(Int.self, forKey: .rewritten) ?? 0
        actions = try c.decodeIfPresent(PulledActionsSummary.self, forKey: .actions) ?? PulledActionsSummary()
        actionsPushed = try c.decodeIfPresent(Int.self, forKey: .actionsPushed) ?? 0
        failure = try c.decodeIfPresent(SyncFailure.self, forKey: .failure)
    }

    /// The outcome as both stores write it (JSON).
    public var storedText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// An outcome read back from ``storedText``; nil for text that is not one.
    public static func fromStored(_ text: String?) -> SyncOutcome? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(SyncOutcome.self, from: Data(text.utf8))
    }
}

/// The set-up and where syncing stands.
public struct SyncState: Sendable, Hashable {
    public var setup: SyncSetup
    /// The `timestamp` the server returned with the last pull applied here; nil before the first sync, which takes
    /// the union of both lists.
    public var subscriptionsCursor: Int64?
    /// The `timestamp` the server returned with the last pull of episode actions applied here; nil before the first,
    /// which reads every action the server holds.
    public var actionsCursor: Int64?
    /// When the last sync ended, and how.
    public var lastSyncAt: Date?
    public var lastOutcome: SyncOutcome?
    /// The worker holding the lease to sync (on a shared store), and until when.
    public var holder: String?
    public var leaseExpiresAt: Date?

    public init(
        setup: SyncSetup, subscriptionsCursor: Int64? = nil, actionsCursor: Int64? = nil, lastSyncAt: Date? = nil,
        lastOutcome: SyncOutcome? = nil, holder: String? = nil, leaseExpiresAt: Date? = nil
    ) {
        self.setup = setup
        self.subscriptionsCursor = subscriptionsCursor
        self.actionsCursor = actionsCursor
        self.lastSyncAt = lastSyncAt
        self.lastOutcome = lastOutcome
        self.holder = holder
        self.leaseExpiresAt = leaseExpiresAt
    }
}

/// The answer to a worker asking to sync.
public enum SyncClaim: Sendable, Hashable {
    /// This worker syncs until the lease expires.
    case granted
    /// Another worker syncs.
    case heldBy(worker: String, until: Date)
}

/// Syncing state, in both stores. Feed URLs here are always ``FeedURL/normalizedString(_:)``'s spelling.
///
/// The "known" list is what the server holds for this device as far as podfresh knows: a sync pushes the local list's
/// difference from it (additions and removals made here, moves as remove + add), so a change made offline is pushed
/// by the next sync and a change pushed is recorded in the same step as the server's answer, never pushed again.
public protocol SyncRepository: Sendable {
    /// The set-up and its state; nil when sync is not set up.
    func syncState() async throws -> SyncState?
    /// Sets sync up, or anew: the cursors, the known list, the outbox of episode actions and the last outcome are
    /// forgotten (play states pulled earlier stay), so the next sync is a first one (the union of both lists); `password` is kept in the store when given (PostgreSQL, whose workers
    /// share it), never on SQLite, whose caller keeps it in a file of its own.
    func setUpSync(_ setup: SyncSetup, password: String?) async throws
    /// The password kept with the set-up, if the store keeps it.
    func syncPassword() async throws -> String?
    /// Forgets the set-up, the cursors, the known list and the outbox; subscriptions and play states stay.
    func removeSync() async throws
    /// The feeds the server is known to hold for this device.
    func knownSyncedFeeds() async throws -> Set<String>
    /// The server took a push: `added` join the known list, `removed` leave it; in one transaction.
    func recordSyncPush(added: [String], removed: [String]) async throws
    /// A pull was applied to the subscriptions: `added` join the known list, `removed` leave it, and the cursor
    /// moves to `cursor`; in one transaction.
    func recordSyncPull(added: [String], removed: [String], cursor: Int64) async throws
    /// Records how the last sync ended.
    func recordSyncOutcome(_ outcome: SyncOutcome, at date: Date) async throws
    /// Asks to sync for the fleet: granted when nobody holds the lease, it ran out, or this worker holds it.
    func claimSync(worker: String, lease: TimeInterval, at now: Date) async throws -> SyncClaim
    /// Gives the lease back.
    func releaseSync(worker: String) async throws
}
