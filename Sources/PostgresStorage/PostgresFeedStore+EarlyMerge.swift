public import FeedModels
import FeedParsing
import Foundation
import PostgresNIO

extension PostgresFeedStore {
    /// Sorts episodes of a body still being read, and stores the back catalogue among them, in one transaction of
    /// their own (see ``EpisodeRepository/mergeEarly(_:)``). When some may be stored, the subscription's row is locked
    /// for its length and, under a lease, the lease must still be the check's (it is left in place: the check's own
    /// merge ends it); otherwise nothing is written and the lease is reported lost. Like ``apply(_:)``, it runs in a
    /// task of its own.
    public func mergeEarly(_ part: EarlyEpisodes) async throws -> EarlyMergeSummary {
        let rows = part.episodes.map { episode in
            let fields = EpisodeFields(episode)
            return (fields: fields, fingerprint: fields.fingerprint)
        }
        let keys = part.episodes.map(\.id)
        let writes = part.insertable.contains(true)
        let store = self
        return try await Task {
            try await store.transaction { connection in
                if writes {
                    try await store.lockForEarlyWrite(part.subscriptionID, lease: part.lease, on: connection)
                }
                var stored: [String: String] = [:]
                for try await (key, fingerprint) in try await connection.query(
                    """
                    SELECT key, fingerprint FROM episode
                    WHERE subscription_id = \(part.subscriptionID) AND key = ANY(\(keys))
                    """, logger: store.logger
                ).decode((String, String).self) {
                    stored[key] = fingerprint
                }
                let plan = EarlyMergePlan(
                    keys: keys, fingerprints: rows.map(\.fingerprint), stored: stored, insertable: part.insertable)
                if !plan.inserts.isEmpty {
                    try await store.carryOut(
                        plan.writes, keys: { keys[$0] }, rows: rows, subscriptionID: part.subscriptionID,
                        checkedAt: part.checkedAt.timeIntervalSince1970, runID: nil, on: connection)
                }
                return plan.summary
            }
        }.value
    }

    /// Removes the back catalogue a check's early merges stored, its body then refused (see
    /// ``EpisodeRepository/withdrawEarly(_:)``), in one transaction: under a lease, only while the lease is the
    /// check's (else nothing is removed and the lease is reported lost).
    public func withdrawEarly(_ withdrawal: EarlyWithdrawal) async throws -> Int {
        guard !withdrawal.keys.isEmpty else { return 0 }
        let store = self
        return try await Task {
            try await store.transaction { connection in
                try await store.lockForEarlyWrite(withdrawal.subscriptionID, lease: withdrawal.lease, on: connection)
                var removed = 0
                for try await _ in try await connection.query(
                    """
                    DELETE FROM episode
                    WHERE subscription_id = \(withdrawal.subscriptionID)
                      AND first_seen_at = \(withdrawal.checkedAt.timeIntervalSince1970)
                      AND first_seen_run_id IS NULL AND key = ANY(\(withdrawal.keys))
                    RETURNING id
                    """, logger: store.logger
                ) {
                    removed += 1
                }
                return removed
            }
        }.value
    }

    /// Locks the subscription's row for an early write; under a lease, only while the lease is the check's.
    private func lockForEarlyWrite(
        _ subscriptionID: Int64, lease: FeedLease?, on connection: PostgresConnection
    )
        async throws
    {
        guard let lease else {
            _ = try await Self.lockedSubscription(id: subscriptionID, on: connection, store: self)
            return
        }
        var current = false
        for try await _ in try await connection.query(
            """
            SELECT id FROM subscription
            WHERE id = \(subscriptionID) AND lease_token = \(lease.token) AND lease_expires_at > clock_timestamp()
            FOR UPDATE
            """, logger: logger
        ) {
            current = true
        }
        guard current else {
            _ = try await Self.lockedSubscription(id: subscriptionID, on: connection, store: self)
            throw Self.leaseLost
        }
    }
}
