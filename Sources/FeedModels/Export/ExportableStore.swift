/// A store whose every row can be read out as stored, page by page, for copying it into another store
/// (`podfresh migrate`): the SQLite store is one, and the PostgreSQL store copies from it.
///
/// Pages follow each table's id (or, for download records, their primary key) and stop at the bounds read first, so
/// no row is read twice and rows added during the copy are left out.
public protocol ExportableStore: Sendable {
    /// How many rows each table holds and the highest id of each, read in one snapshot.
    func exportBounds() async throws -> ExportBounds
    /// Up to `limit` subscriptions with an id after `after` and at most `last`, by id.
    func exportSubscriptions(after: Int64, through last: Int64, limit: Int) async throws -> [Subscription]
    /// Up to `limit` episodes with an id after `after` and at most `last`, by id.
    func exportEpisodes(after: Int64, through last: Int64, limit: Int) async throws -> [ExportedEpisode]
    /// Up to `limit` refresh runs with an id after `after` and at most `last`, by id.
    func exportRuns(after: Int64, through last: Int64, limit: Int) async throws -> [RefreshRun]
    /// Up to `limit` download records after `position` (from the first when nil) within the bounds, by feed and
    /// episode key.
    func exportDownloads(
        after position: DownloadRecord.Position?, through lastRowID: Int64, limit: Int
    ) async throws -> [DownloadRecord]
    /// The sync set-up with everything synced (cursors, the known list, play states, the outbox, actions waiting for
    /// their episode); nil when sync is not set up.
    func exportSync() async throws -> SyncExport?
}

/// Everything about syncing that `migrate` carries to another store (the password comes apart: on SQLite it is a
/// file of its own).
public struct SyncExport: Sendable {
    /// The set-up, its cursors and its last outcome.
    public var state: SyncState
    /// The feeds the server is known to hold for this device.
    public var knownFeeds: [String]
    /// Play states, by the source's episode identities.
    public var playStates: [EpisodeRef: EpisodePlayState]
    /// Actions waiting to be pushed, in order.
    public var outbox: [PendingEpisodeAction]
    /// Actions waiting for their episode to be stored.
    public var waiting: [WaitingEpisodeAction]

    public init(
        state: SyncState, knownFeeds: [String], playStates: [EpisodeRef: EpisodePlayState],
        outbox: [PendingEpisodeAction], waiting: [WaitingEpisodeAction]
    ) {
        self.state = state
        self.knownFeeds = knownFeeds
        self.playStates = playStates
        self.outbox = outbox
        self.waiting = waiting
    }
}
