public import FeedModels
import FeedParsing
import Foundation
import GRDB

extension FeedStore {
    /// Merges episodes of a body still being read in one transaction of their own (see
    /// ``EpisodeRepository/mergeEarly(_:)``). As in ``apply(_:)``, the rows are computed before the transaction.
    public func mergeEarly(_ part: EarlyEpisodes) async throws -> EarlyMergeSummary {
        let keys = part.episodes.map(\.id)
        let columns = part.episodes.indices.map { EpisodeColumns(part.episodes[$0]) }
        return try await write { db in
            guard
                try Int64.fetchOne(
                    db, sql: "SELECT id FROM subscription WHERE id = ?", arguments: [part.subscriptionID]) != nil
            else {
                throw StoreError(.noSubscription(id: part.subscriptionID))
            }
            let stored = try Self.storedFingerprints(of: keys, subscriptionID: part.subscriptionID, db: db)
            let plan = MergePlan(
                earlyKeys: keys, fingerprints: columns.map(\.fingerprint), stored: stored, insertable: part.insertable)
            try Self.carryOut(
                plan, keys: { keys[$0] }, columns: columns, subscriptionID: part.subscriptionID,
                checkedAt: part.checkedAt, runID: nil, db: db)
            return plan.earlySummary
        }
    }

    /// The stored fingerprints of those of `keys` that a feed has stored, asked a few hundred keys at a time.
    private static func storedFingerprints(
        of keys: [String], subscriptionID: Int64, db: Database
    ) throws -> [String: String] {
        var stored: [String: String] = [:]
        var start = keys.startIndex
        while start < keys.endIndex {
            let end = min(keys.endIndex, start + 500)
            let slice = keys[start..<end]
            let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
            var arguments: StatementArguments = [subscriptionID]
            arguments += StatementArguments(slice)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT key, fingerprint FROM episode WHERE subscriptionId = ? AND key IN (\(marks))",
                arguments: arguments)
            while let row = try rows.next() { stored[row["key"]] = row["fingerprint"] }
            start = end
        }
        return stored
    }
}
