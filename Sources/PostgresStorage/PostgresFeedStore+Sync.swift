public import FeedModels
public import Foundation
import PostgresNIO

// Sync state on PostgreSQL (schema version 10): one `sync_account` row and the `sync_known_feed` list. In a fleet one
// worker holds the lease and syncs; the feeds it subscribes are due at once, and every worker picks them up through
// its usual claims. The password is kept in the row: every worker needs it, and whoever can read this database can
// already change everything in it.

extension PostgresFeedStore: SyncRepository {
    public func syncState() async throws -> SyncState? {
        guard
            let row = try await rows(
                """
                SELECT server, username, device, api, subscriptions_cursor, actions_cursor, last_sync_at, last_outcome,
                  holder, lease_expires_at FROM sync_account
                """
            ).first
        else { return nil }
        let r = RowReader(row)
        guard let server = try r.url("server") else { return nil }
        return SyncState(
            setup: SyncSetup(
                server: server, user: try r.text("username") ?? "", device: try r.text("device") ?? "",
                api: SyncAPI(rawValue: try r.text("api") ?? "") ?? .gpodder),
            subscriptionsCursor: try r.int64("subscriptions_cursor"), actionsCursor: try r.int64("actions_cursor"),
            lastSyncAt: try r.date("last_sync_at"),
            lastOutcome: SyncOutcome.fromStored(try r.text("last_outcome")), holder: try r.text("holder"),
            leaseExpiresAt: try r.date("lease_expires_at"))
    }

    public func setUpSync(_ setup: SyncSetup, password: String?) async throws {
        let store = self
        try await transaction { connection in
            try await connection.query("DELETE FROM sync_known_feed", logger: store.logger)
            try await connection.query("DELETE FROM sync_action_outbox", logger: store.logger)
            try await connection.query("DELETE FROM sync_account", logger: store.logger)
            try await connection.query(
                """
                INSERT INTO sync_account (server, username, device, api, password)
                VALUES (\(setup.server.absoluteString), \(setup.user), \(setup.device), \(setup.api.rawValue), \(password))
                """, logger: store.logger)
        }
    }

    public func syncPassword() async throws -> String? {
        try await rows("SELECT password FROM sync_account").first.flatMap { try RowReader($0).text("password") }
    }

    public func removeSync() async throws {
        let store = self
        try await transaction { connection in
            try await connection.query("DELETE FROM sync_known_feed", logger: store.logger)
            try await connection.query("DELETE FROM sync_action_outbox", logger: store.logger)
            try await connection.query("DELETE FROM sync_account", logger: store.logger)
        }
    }

    public func knownSyncedFeeds() async throws -> Set<String> {
        Set(try await rows("SELECT url FROM sync_known_feed").compactMap { try RowReader($0).text("url") })
    }

    public func recordSyncPush(added: [String], removed: [String]) async throws {
        let store = self
        try await transaction { connection in
            try await Self.changeKnown(added: added, removed: removed, connection: connection, store: store)
        }
    }

    public func recordSyncPull(added: [String], removed: [String], cursor: Int64) async throws {
        let store = self
        try await transaction { connection in
            try await Self.changeKnown(added: added, removed: removed, connection: connection, store: store)
            try await connection.query(
                "UPDATE sync_account SET subscriptions_cursor = \(cursor)", logger: store.logger)
        }
    }

    public func recordSyncOutcome(_ outcome: SyncOutcome, at date: Date) async throws {
        _ = try await rows(
            """
            UPDATE sync_account SET last_sync_at = \(date.timeIntervalSince1970), last_outcome = \(outcome.storedText)
            RETURNING singleton
            """)
    }

    public func claimSync(worker: String, lease: TimeInterval, at now: Date) async throws -> SyncClaim {
        let store = self
        let nowSeconds = now.timeIntervalSince1970
        let until = nowSeconds + lease
        return try await transaction { connection in
            var claim = SyncClaim.granted
            var found = false
            for try await (holder, expires) in try await connection.query(
                "SELECT holder, lease_expires_at FROM sync_account FOR UPDATE", logger: store.logger
            ).decode((String?, Double?).self) {
                found = true
                if let holder, holder != worker, let expires, expires > nowSeconds {
                    claim = .heldBy(worker: holder, until: Date(timeIntervalSince1970: expires))
                }
            }
            if found, case .granted = claim {
                try await connection.query(
                    "UPDATE sync_account SET holder = \(worker), lease_expires_at = \(until)", logger: store.logger)
            }
            return claim
        }
    }

    public func releaseSync(worker: String) async throws {
        _ = try await rows(
            "UPDATE sync_account SET holder = NULL, lease_expires_at = NULL WHERE holder = \(worker) RETURNING singleton"
        )
    }

    private static func changeKnown(
        added: [String], removed: [String], connection: PostgresConnection, store: PostgresFeedStore
    ) async throws {
        if !removed.isEmpty {
            try await connection.query("DELETE FROM sync_known_feed WHERE url = ANY(\(removed))", logger: store.logger)
        }
        if !added.isEmpty {
            try await connection.query(
                "INSERT INTO sync_known_feed (url) SELECT unnest(\(added)::text[]) ON CONFLICT DO NOTHING",
                logger: store.logger)
        }
    }
}
