public import FeedModels
public import Foundation

/// What a sync with the gPodder-API server did, as events (``EngineEvent/sync(_:)``): typed values, worded by
/// ConsoleOutput. Counts, URLs and the server's address; never a credential.
public enum SyncEvent: Sendable, Hashable {
    /// A sync began; `first` when it is the first since set-up (the union of both lists, nothing removed).
    case started(server: String, first: Bool)
    /// The server's changes were applied here.
    case pulled(SyncPulled)
    /// Changes made here were pushed to the server.
    case pushed(SyncPushed)
    /// The server's episode actions were applied here (played, positions; counts).
    case actionsPulled(PulledActionsSummary)
    /// Episode actions made here (downloads completed) were pushed to the server.
    case actionsPushed(SyncActionsPushed)
    /// The sync stopped at a step; nothing after it was done, and nothing done is undone or lost.
    case failed(SyncFailure)
    /// The store failed while syncing in `watch`; the next interval tries again.
    case storeFailed(StoreError)
    /// Another worker of the fleet syncs (on a shared store); this one refreshes what it subscribes.
    case leaseHeldElsewhere(worker: String, until: Date)
}

/// A pull applied here.
public struct SyncPulled: Sendable, Hashable {
    /// Feeds subscribed here because the server named them.
    public var added: [URL]
    /// Feeds unsubscribed here because they were removed on the server (their downloaded files stay).
    public var removed: [URL]
    /// The server's new cursor.
    public var cursor: Int64

    public init(added: [URL], removed: [URL], cursor: Int64) {
        self.added = added
        self.removed = removed
        self.cursor = cursor
    }
}

/// A push the server took.
public struct SyncPushed: Sendable, Hashable {
    public var added: Int
    public var removed: Int
    /// Addresses the server rewrote (`update_urls`) that podfresh adopted.
    public var rewritten: Int

    public init(added: Int, removed: Int, rewritten: Int) {
        self.added = added
        self.removed = removed
        self.rewritten = rewritten
    }
}

/// Episode actions pushed to the server.
public struct SyncActionsPushed: Sendable, Hashable {
    /// Actions the server took.
    public var pushed: Int
    /// Downloads not sent because the server keeps one action per episode (Nextcloud) and already holds another
    /// device's play, delete or new for it, which a download would overwrite.
    public var withheld: Int

    public init(pushed: Int, withheld: Int = 0) {
        self.pushed = pushed
        self.withheld = withheld
    }
}
