public import FeedModels
public import Foundation
import PostgresNIO

// Podping state on PostgreSQL (schema version 5): `podping_feed` per feed and one `podping_cursor` row. In a fleet
// one worker holds the cursor's lease and reads the chain; it marks pinged feeds due here, and every worker picks
// them up through its usual claims.

extension PostgresFeedStore: PodpingRepository {
    public func podpingStates() async throws -> [Int64: PodpingFeedState] {
        var states: [Int64: PodpingFeedState] = [:]
        for row in try await rows(
            """
            SELECT subscription_id, uses_podping, hive_accounts, last_ping_at, last_ping_reason, last_ping_block,
              ping_count FROM podping_feed
            """)
        {
            let state = try Self.podpingState(from: row)
            states[state.subscriptionID] = state
        }
        return states
    }

    private static func podpingState(from row: PostgresRow) throws -> PodpingFeedState {
        let r = RowReader(row)
        return PodpingFeedState(
            subscriptionID: try r.int64("subscription_id") ?? 0, usesPodping: try r.bool("uses_podping"),
            hiveAccounts: (try r.text("hive_accounts") ?? "").split(separator: "\n").map(String.init),
            lastPingAt: try r.date("last_ping_at"), lastPingReason: try r.text("last_ping_reason"),
            lastPingBlock: try r.int64("last_ping_block"), pingCount: try r.integer("ping_count") ?? 0)
    }

    public func podpingStates(subscriptionIDs: [Int64]) async throws -> [Int64: PodpingFeedState] {
        guard !subscriptionIDs.isEmpty else { return [:] }
        var states: [Int64: PodpingFeedState] = [:]
        for row in try await rows(
            """
            SELECT subscription_id, uses_podping, hive_accounts, last_ping_at, last_ping_reason, last_ping_block,
              ping_count FROM podping_feed WHERE subscription_id = ANY(\(subscriptionIDs))
            """)
        {
            let state = try Self.podpingState(from: row)
            states[state.subscriptionID] = state
        }
        return states
    }

    public func subscriptionsMark() async throws -> SubscriptionsMark {
        let row = try await rows(
            """
            SELECT count(*)::bigint AS count, coalesce(max(id), 0)::bigint AS max_id,
              count(*) FILTER (WHERE is_gone)::bigint AS gone, count(moved_from)::bigint AS moved,
              (coalesce(sum(length(url)), 0) + coalesce(sum(length(moved_from)), 0))::bigint AS url_length
            FROM subscription
            """
        ).first
        let r = row.map(RowReader.init)
        return SubscriptionsMark(
            count: try r?.int64("count") ?? 0, maxID: try r?.int64("max_id") ?? 0, gone: try r?.int64("gone") ?? 0,
            moved: try r?.int64("moved") ?? 0, urlLength: try r?.int64("url_length") ?? 0)
    }

    public func recordPings(_ pings: [FeedPing], at now: Date, cooldown: TimeInterval) async throws -> [Int64: Date] {
        guard !pings.isEmpty else { return [:] }
        let store = self
        return try await transaction { connection in
            var madeDue: [Int64: Date] = [:]
            for ping in pings {
                var found: (gone: Bool, lastChecked: Double?, nextCheck: Double?)?
                // The row lock orders this with a merge of the same feed.
                for try await (gone, lastChecked, nextCheck) in try await connection.query(
                    """
                    SELECT is_gone, last_checked_at, next_check_at FROM subscription
                    WHERE id = \(ping.subscriptionID) FOR UPDATE
                    """, logger: store.logger
                ).decode((Bool, Double?, Double?).self) {
                    found = (gone, lastChecked, nextCheck)
                }
                guard let found else { continue }
                let blockTime = ping.blockTime.timeIntervalSince1970
                try await connection.query(
                    """
                    INSERT INTO podping_feed (subscription_id, last_ping_at, last_ping_reason, last_ping_block, ping_count)
                    VALUES (\(ping.subscriptionID), \(blockTime), \(ping.reason), \(ping.blockNumber), 1)
                    ON CONFLICT (subscription_id) DO UPDATE SET
                      last_ping_at = greatest(podping_feed.last_ping_at, excluded.last_ping_at),
                      last_ping_reason = excluded.last_ping_reason, last_ping_block = excluded.last_ping_block,
                      ping_count = podping_feed.ping_count + 1
                    """, logger: store.logger)
                // A check in flight now may predate the change: its merge keeps the feed due (dueAfterCheck).
                let recheckBefore = PodpingDuePlan.recheckBefore(ping: ping.blockTime, recordedAt: now)
                    .timeIntervalSince1970
                try await connection.query(
                    """
                    UPDATE subscription SET
                      podping_recheck_before = greatest(podping_recheck_before, \(recheckBefore)),
                      podping_cooldown = \(cooldown)
                    WHERE id = \(ping.subscriptionID)
                    """, logger: store.logger)
                guard
                    let due = PodpingDuePlan.dueAt(
                        ping: ping.blockTime, now: now,
                        lastCheckedAt: found.lastChecked.map(Date.init(timeIntervalSince1970:)),
                        nextCheckAt: madeDue[ping.subscriptionID]
                            ?? found.nextCheck.map(Date.init(timeIntervalSince1970:)),
                        isGone: found.gone, cooldown: cooldown)
                else { continue }
                try await connection.query(
                    """
                    UPDATE subscription SET next_check_at = \(due.timeIntervalSince1970),
                      next_check_reason = \(ScheduleReason.podping.storedText)
                    WHERE id = \(ping.subscriptionID)
                    """, logger: store.logger)
                madeDue[ping.subscriptionID] = due
            }
            return madeDue
        }
    }

    public func podpingCursor() async throws -> PodpingCursor? {
        try await rows("SELECT block, updated_at, holder, lease_expires_at FROM podping_cursor").first.map {
            let r = RowReader($0)
            return PodpingCursor(
                block: try r.int64("block"), updatedAt: try r.date("updated_at"), holder: try r.text("holder"),
                leaseExpiresAt: try r.date("lease_expires_at"))
        }
    }

    public func claimPodpingCursor(
        worker: String, lease: TimeInterval, at now: Date
    ) async throws
        -> PodpingCursorClaim
    {
        let store = self
        let nowSeconds = now.timeIntervalSince1970
        let until = nowSeconds + lease
        return try await transaction { connection in
            try await connection.query(
                "INSERT INTO podping_cursor (singleton) VALUES (true) ON CONFLICT DO NOTHING", logger: store.logger)
            var claim: PodpingCursorClaim?
            for try await (block, holder, expires) in try await connection.query(
                "SELECT block, holder, lease_expires_at FROM podping_cursor FOR UPDATE", logger: store.logger
            ).decode((Int64?, String?, Double?).self) {
                if let holder, holder != worker, let expires, expires > nowSeconds {
                    claim = .heldBy(worker: holder, until: Date(timeIntervalSince1970: expires))
                } else {
                    claim = .granted(block: block)
                }
            }
            if case .granted = claim {
                try await connection.query(
                    "UPDATE podping_cursor SET holder = \(worker), lease_expires_at = \(until)", logger: store.logger)
            }
            return claim ?? .granted(block: nil)
        }
    }

    public func advancePodpingCursor(
        to block: Int64, worker: String, lease: TimeInterval, at now: Date
    ) async throws
        -> Bool
    {
        let nowSeconds = now.timeIntervalSince1970
        let until = nowSeconds + lease
        return
            !(try await rows(
                """
                UPDATE podping_cursor SET block = \(block), updated_at = \(nowSeconds), lease_expires_at = \(until)
                WHERE holder = \(worker) RETURNING block
                """
            ).isEmpty)
    }

    public func releasePodpingCursor(worker: String) async throws {
        _ = try await rows(
            "UPDATE podping_cursor SET holder = NULL, lease_expires_at = NULL WHERE holder = \(worker) RETURNING block")
    }
}
