public import FeedModels
import FeedParsing
import Foundation
import GRDB

extension FeedStore {
    /// Sorts episodes of a body still being read, and stores the back catalogue among them, in one transaction of
    /// their own (see ``EpisodeRepository/mergeEarly(_:)``): a write only when some may be stored, a read otherwise.
    /// As in ``apply(_:)``, the rows are computed before the transaction.
    public func mergeEarly(_ part: EarlyEpisodes) async throws -> EarlyMergeSummary {
        let keys = part.episodes.map(\.id)
        guard part.insertable.contains(true) else {
            // Nothing may be stored: the fingerprints alone, not the rows.
            let fingerprints = part.episodes.indices.map { EpisodeFields(part.episodes[$0]).fingerprint }
            return try await read { db in
                let stored = try Self.storedFingerprints(of: keys, subscriptionID: part.subscriptionID, db: db)
                return EarlyMergePlan(
                    keys: keys, fingerprints: fingerprints, stored: stored, insertable: part.insertable
                ).summary
            }
        }
        let columns = part.episodes.indices.map { EpisodeColumns(part.episodes[$0]) }
        let fingerprints = columns.map(\.fingerprint)
        return try await write { db in
            guard
                try Int64.fetchOne(
                    db, sql: "SELECT id FROM subscription WHERE id = ?", arguments: [part.subscriptionID]) != nil
            else {
                throw StoreError(.noSubscription(id: part.subscriptionID))
            }
            let stored = try Self.storedFingerprints(of: keys, subscriptionID: part.subscriptionID, db: db)
            let plan = EarlyMergePlan(
                keys: keys, fingerprints: fingerprints, stored: stored, insertable: part.insertable)
            try Self.carryOut(
                plan.writes, keys: { keys[$0] }, columns: columns, subscriptionID: part.subscriptionID,
                checkedAt: part.checkedAt, runID: nil, db: db)
            return plan.summary
        }
    }
}

extension FeedStore {
    /// Removes the back catalogue a check's early merges stored, its body then refused (see
    /// ``EpisodeRepository/withdrawEarly(_:)``), in one transaction, a few hundred keys at a time.
    public func withdrawEarly(_ withdrawal: EarlyWithdrawal) async throws -> Int {
        guard !withdrawal.keys.isEmpty else { return 0 }
        return try await write { db in
            var removed = 0
            for start in stride(from: 0, to: withdrawal.keys.count, by: 500) {
                let batch = withdrawal.keys[start..<min(start + 500, withdrawal.keys.count)]
                var arguments: StatementArguments = [
                    withdrawal.subscriptionID, withdrawal.checkedAt.timeIntervalSince1970,
                ]
                arguments += StatementArguments(batch)
                let marks = Array(repeating: "?", count: batch.count).joined(separator: ", ")
                try db.execute(
                    sql: """
                        DELETE FROM episode
                        WHERE subscriptionId = ? AND firstSeenAt = ? AND firstSeenRunId IS NULL AND key IN (\(marks))
                        """,
                    arguments: arguments)
                removed += db.changesCount
            }
            return removed
        }
    }
}
