public import FeedModels
import FeedParsing
public import Foundation
import GRDB

// Podping state in SQLite: the `podpingFeed` and `podpingCursor` tables (migration "podping"). On SQLite one process
// writes at a time (the run lock), so the cursor's lease is kept for the same shape as PostgreSQL's, not for safety.

extension FeedStore: PodpingRepository {
    public func podpingStates() async throws -> [Int64: PodpingFeedState] {
        try await read { db in
            var states: [Int64: PodpingFeedState] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM podpingFeed") {
                let state = Self.podpingState(from: row)
                states[state.subscriptionID] = state
            }
            return states
        }
    }

    public func podpingStates(subscriptionIDs: [Int64]) async throws -> [Int64: PodpingFeedState] {
        guard !subscriptionIDs.isEmpty else { return [:] }
        return try await read { db in
            var states: [Int64: PodpingFeedState] = [:]
            let marks = Array(repeating: "?", count: subscriptionIDs.count).joined(separator: ",")
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM podpingFeed WHERE subscriptionId IN (\(marks))",
                arguments: StatementArguments(subscriptionIDs))
            {
                let state = Self.podpingState(from: row)
                states[state.subscriptionID] = state
            }
            return states
        }
    }

    public func subscriptionsMark() async throws -> SubscriptionsMark {
        try await read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*) AS count, coalesce(max(id), 0) AS maxID, coalesce(sum(isGone), 0) AS gone,
                      count(movedFrom) AS moved,
                      coalesce(sum(length(url)), 0) + coalesce(sum(length(movedFrom)), 0) AS urlLength
                    FROM subscription
                    """)
            return SubscriptionsMark(
                count: row?["count"] ?? 0, maxID: row?["maxID"] ?? 0, gone: row?["gone"] ?? 0,
                moved: row?["moved"] ?? 0, urlLength: row?["urlLength"] ?? 0)
        }
    }

    public func recordPings(_ pings: [FeedPing], at now: Date, cooldown: TimeInterval) async throws -> [Int64: Date] {
        guard !pings.isEmpty else { return [:] }
        return try await write { db in
            var madeDue: [Int64: Date] = [:]
            for ping in pings {
                guard
                    let row = try Row.fetchOne(
                        db, sql: "SELECT isGone, lastCheckedAt, nextCheckAt FROM subscription WHERE id = ?",
                        arguments: [ping.subscriptionID])
                else { continue }
                // A check in flight now may predate the change: its merge keeps the feed due (dueAfterCheck).
                let recheckBefore = PodpingDuePlan.recheckBefore(ping: ping.blockTime, recordedAt: now)
                try db.execute(
                    sql: """
                        INSERT INTO podpingFeed (subscriptionId, lastPingAt, lastPingReason, lastPingBlock, pingCount,
                          recheckBefore, recheckCooldown)
                        VALUES (?, ?, ?, ?, 1, ?, ?)
                        ON CONFLICT (subscriptionId) DO UPDATE SET
                          lastPingAt = max(coalesce(lastPingAt, 0), excluded.lastPingAt),
                          lastPingReason = excluded.lastPingReason, lastPingBlock = excluded.lastPingBlock,
                          pingCount = pingCount + 1,
                          recheckBefore = max(coalesce(recheckBefore, 0), excluded.recheckBefore),
                          recheckCooldown = excluded.recheckCooldown
                        """,
                    arguments: [
                        ping.subscriptionID, ping.blockTime.timeIntervalSince1970, ping.reason, ping.blockNumber,
                        recheckBefore.timeIntervalSince1970, cooldown,
                    ])
                let lastChecked = (row["lastCheckedAt"] as Double?).map(Date.init(timeIntervalSince1970:))
                let nextCheck = (row["nextCheckAt"] as Double?).map(Date.init(timeIntervalSince1970:))
                guard
                    let due = PodpingDuePlan.dueAt(
                        ping: ping.blockTime, now: now, lastCheckedAt: lastChecked,
                        nextCheckAt: madeDue[ping.subscriptionID] ?? nextCheck, isGone: row["isGone"],
                        cooldown: cooldown)
                else { continue }
                try db.execute(
                    sql: "UPDATE subscription SET nextCheckAt = ?, nextCheckReason = ? WHERE id = ?",
                    arguments: [due.timeIntervalSince1970, ScheduleReason.podping.storedText, ping.subscriptionID])
                madeDue[ping.subscriptionID] = due
            }
            return madeDue
        }
    }

    /// What a fetched body says of podping, written in its check's transaction: the declaration as it is, or, when
    /// the feed no longer has `podcast:podping`, nothing left of an earlier one (pings received stay recorded).
    static func writePodpingDeclaration(_ declaration: PodpingDeclaration?, subscriptionID: Int64, db: Database) throws
    {
        if let declaration {
            try db.execute(
                sql: """
                    INSERT INTO podpingFeed (subscriptionId, usesPodping, hiveAccounts) VALUES (?, ?, ?)
                    ON CONFLICT (subscriptionId) DO UPDATE SET usesPodping = excluded.usesPodping,
                      hiveAccounts = excluded.hiveAccounts
                    """,
                arguments: [
                    subscriptionID, declaration.usesPodping, declaration.hiveAccounts.joined(separator: "\n"),
                ])
        } else {
            try db.execute(
                sql: """
                    UPDATE podpingFeed SET usesPodping = NULL, hiveAccounts = ''
                    WHERE subscriptionId = ? AND (usesPodping IS NOT NULL OR hiveAccounts <> '')
                    """,
                arguments: [subscriptionID])
        }
    }

    /// A check's next due time, kept sooner when a believed ping was recorded while the check was in flight
    /// (``PodpingDuePlan/dueAfterCheck(startedAt:planned:recheckBefore:cooldown:)``). SQLite's write transaction
    /// is exclusive, so a ping is recorded either wholly before this merge (and seen here) or after it (and then
    /// judged against this check by ``PodpingDuePlan/dueAt(ping:now:lastCheckedAt:nextCheckAt:isGone:cooldown:)``).
    static func applyPingsDuringCheck(to state: inout CheckStatePlan, subscriptionID: Int64, db: Database) throws {
        guard state.isGone != true,
            let row = try Row.fetchOne(
                db, sql: "SELECT recheckBefore, recheckCooldown FROM podpingFeed WHERE subscriptionId = ?",
                arguments: [subscriptionID])
        else { return }
        guard
            let due = PodpingDuePlan.dueAfterCheck(
                startedAt: state.lastCheckedAt, planned: state.nextCheckAt,
                recheckBefore: (row["recheckBefore"] as Double?).map(Date.init(timeIntervalSince1970:)),
                cooldown: row["recheckCooldown"])
        else { return }
        state.nextCheckAt = due
        state.nextCheckReason = .podping
    }

    public func podpingCursor() async throws -> PodpingCursor? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM podpingCursor WHERE singleton = 1").map(Self.cursor(from:))
        }
    }

    public func claimPodpingCursor(
        worker: String, lease: TimeInterval, at now: Date
    ) async throws
        -> PodpingCursorClaim
    {
        try await write { db in
            let current = try Row.fetchOne(db, sql: "SELECT * FROM podpingCursor WHERE singleton = 1").map(
                Self.cursor(from:))
            if let current, let holder = current.holder, holder != worker, let until = current.leaseExpiresAt,
                until > now
            {
                return .heldBy(worker: holder, until: until)
            }
            try db.execute(
                sql: """
                    INSERT INTO podpingCursor (singleton, holder, leaseExpiresAt) VALUES (1, ?, ?)
                    ON CONFLICT (singleton) DO UPDATE SET holder = excluded.holder,
                      leaseExpiresAt = excluded.leaseExpiresAt
                    """,
                arguments: [worker, now.addingTimeInterval(lease).timeIntervalSince1970])
            return .granted(block: current?.block)
        }
    }

    public func advancePodpingCursor(
        to block: Int64, worker: String, lease: TimeInterval, at now: Date
    ) async throws
        -> Bool
    {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE podpingCursor SET block = ?, updatedAt = ?, leaseExpiresAt = ?
                    WHERE singleton = 1 AND holder = ?
                    """,
                arguments: [
                    block, now.timeIntervalSince1970, now.addingTimeInterval(lease).timeIntervalSince1970, worker,
                ])
            return db.changesCount > 0
        }
    }

    public func releasePodpingCursor(worker: String) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE podpingCursor SET holder = NULL, leaseExpiresAt = NULL WHERE singleton = 1 AND holder = ?",
                arguments: [worker])
        }
    }

    private static func podpingState(from row: Row) -> PodpingFeedState {
        let accounts: String = row["hiveAccounts"] ?? ""
        return PodpingFeedState(
            subscriptionID: row["subscriptionId"], usesPodping: row["usesPodping"],
            hiveAccounts: accounts.split(separator: "\n").map(String.init),
            lastPingAt: (row["lastPingAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
            lastPingReason: row["lastPingReason"], lastPingBlock: row["lastPingBlock"],
            pingCount: row["pingCount"] ?? 0)
    }

    private static func cursor(from row: Row) -> PodpingCursor {
        PodpingCursor(
            block: row["block"], updatedAt: (row["updatedAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
            holder: row["holder"],
            leaseExpiresAt: (row["leaseExpiresAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}
