public import FeedModels
public import Foundation
import GRDB

// Sync state in SQLite: the `syncAccount` row and the `syncKnownFeed` list (migration "sync"). The password is never
// stored here: the database file is usually readable by others (mode 0644 under the user's umask) and travels with
// backups and `migrate`; the executable keeps it in a file of its own, mode 0600. On SQLite one process writes at a
// time (the run lock), so the lease is kept for the same shape as PostgreSQL's, not for safety.

extension FeedStore: SyncRepository {
    public func syncState() async throws -> SyncState? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM syncAccount WHERE singleton = 1"),
                let server = URL(string: row["server"] as String? ?? "")
            else { return nil }
            let api = SyncAPI(rawValue: row["api"] as String? ?? "") ?? .gpodder
            return SyncState(
                setup: SyncSetup(server: server, user: row["user"], device: row["device"], api: api),
                subscriptionsCursor: row["subscriptionsCursor"], actionsCursor: row["actionsCursor"],
                lastSyncAt: (row["lastSyncAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
                lastOutcome: SyncOutcome.fromStored(row["lastOutcome"]), holder: row["holder"],
                leaseExpiresAt: (row["leaseExpiresAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
        }
    }

    public func setUpSync(_ setup: SyncSetup, password: String?) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM syncKnownFeed")
            try db.execute(sql: "DELETE FROM syncActionOutbox")
            try db.execute(sql: "DELETE FROM syncAccount")
            try db.execute(
                sql: "INSERT INTO syncAccount (singleton, server, user, device, api) VALUES (1, ?, ?, ?, ?)",
                arguments: [setup.server.absoluteString, setup.user, setup.device, setup.api.rawValue])
        }
    }

    public func syncPassword() async throws -> String? { nil }

    public func removeSync() async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM syncKnownFeed")
            try db.execute(sql: "DELETE FROM syncActionOutbox")
            try db.execute(sql: "DELETE FROM syncAccount")
        }
    }

    public func knownSyncedFeeds() async throws -> Set<String> {
        try await read { db in Set(try String.fetchAll(db, sql: "SELECT url FROM syncKnownFeed")) }
    }

    public func recordSyncPush(added: [String], removed: [String]) async throws {
        try await write { db in try Self.changeKnown(added: added, removed: removed, db: db) }
    }

    public func recordSyncPull(added: [String], removed: [String], cursor: Int64) async throws {
        try await write { db in
            try Self.changeKnown(added: added, removed: removed, db: db)
            try db.execute(
                sql: "UPDATE syncAccount SET subscriptionsCursor = ? WHERE singleton = 1", arguments: [cursor])
        }
    }

    public func recordSyncOutcome(_ outcome: SyncOutcome, at date: Date) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE syncAccount SET lastSyncAt = ?, lastOutcome = ? WHERE singleton = 1",
                arguments: [date.timeIntervalSince1970, outcome.storedText])
        }
    }

    public func claimSync(worker: String, lease: TimeInterval, at now: Date) async throws -> SyncClaim {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT holder, leaseExpiresAt FROM syncAccount") else {
                return .granted
            }
            if let holder = row["holder"] as String?, holder != worker,
                let until = (row["leaseExpiresAt"] as Double?).map(Date.init(timeIntervalSince1970:)), until > now
            {
                return .heldBy(worker: holder, until: until)
            }
            try db.execute(
                sql: "UPDATE syncAccount SET holder = ?, leaseExpiresAt = ?",
                arguments: [worker, now.addingTimeInterval(lease).timeIntervalSince1970])
            return .granted
        }
    }

    public func releaseSync(worker: String) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE syncAccount SET holder = NULL, leaseExpiresAt = NULL WHERE holder = ?", arguments: [worker]
            )
        }
    }

    private static func changeKnown(added: [String], removed: [String], db: Database) throws {
        for url in removed { try db.execute(sql: "DELETE FROM syncKnownFeed WHERE url = ?", arguments: [url]) }
        for url in added {
            try db.execute(sql: "INSERT INTO syncKnownFeed (url) VALUES (?) ON CONFLICT DO NOTHING", arguments: [url])
        }
    }
}
