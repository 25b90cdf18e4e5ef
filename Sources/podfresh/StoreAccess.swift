import FeedModels
import FeedStorage
import Foundation
import PostgresStorage

/// The store a command runs on, whichever backend `--database` names.
struct OpenStore: Sendable {
    /// Subscriptions, episodes and runs.
    let repositories: any FeedRepositories
    /// On a store several workers share (PostgreSQL): claiming feeds under leases. Nil for SQLite.
    let claims: (any FeedClaiming)?
    /// The SQLite file, when the store is one (for the run lock beside it).
    let sqlitePath: String?
    /// Podping state and the chain's cursor.
    var podping: any PodpingRepository
    /// The sync set-up, its cursor and the feeds the server is known to hold.
    var sync: any SyncRepository
    /// Play states pulled from the server, and the outbox of episode actions.
    var episodeActions: any EpisodeActionRepository
}

/// How a command uses the store.
enum StoreAccess {
    /// Writes: the SQLite file is created and migrated when needed.
    case readWrite
    /// Only reads (`list`, `status`, `episodes`, `export`): on SQLite nothing is created or migrated, a read-only
    /// file or folder works, and another process's write transaction is never waited for.
    case reading
}

/// Opens the store `--database` (or `PODFRESH_DATABASE`, or the default path) names, runs `body` with it, and closes
/// it. A ``StoreError`` (unreachable server, refused login, missing database, newer schema …) exits 70 through
/// ``ExitStatus/mapping(_:)``.
func withStore<Result: Sendable>(
    _ global: GlobalOptions, access: StoreAccess = .readWrite, _ body: (OpenStore) async throws -> Result
) async throws -> Result {
    switch try global.databaseTarget {
    case .sqlite(let path):
        let store: FeedStore
        switch access {
        case .readWrite: store = try await FeedStore.open(path: path)
        case .reading:
            // The first reader after an upgrade of podfresh upgrades the file, when it may write it.
            store = try await FeedStore.open(
                forReadingAt: path, upgradingOlderSchema: true)
        }
        return try await body(
            OpenStore(
                repositories: store, claims: nil, sqlitePath: path, podping: store, sync: store, episodeActions: store))
    case .postgres(let url):
        return try await PostgresFeedStore.withStore(url: url) { store in
            try await body(
                OpenStore(
                    repositories: store, claims: store, sqlitePath: nil, podping: store, sync: store,
                    episodeActions: store))
        }
    }
}
