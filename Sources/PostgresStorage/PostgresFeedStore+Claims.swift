public import FeedModels
public import Foundation
import PostgresNIO

extension PostgresFeedStore: FeedClaiming {
    /// The advisory lock key that makes claims take turns ("podclaim" read as bytes), so each claim counts every
    /// host's leases exactly and the fleet never exceeds the per-host limit. A claim holds it for a few milliseconds.
    static let claimLock: Int64 = 0x706f_6463_6c61_696d

    /// How many claimable feeds one claim looks at, oldest due first, before it spreads them over hosts (feeds of
    /// hosts at their limit and leased feeds are passed over before this limit counts).
    static let claimWindow = 256

    /// Claims feeds in one short transaction: picks up to `request.limit` matching feeds nobody holds, at most
    /// `request.perHost` leased per host over every worker, the first of each host first; locks them with
    /// `FOR UPDATE SKIP LOCKED` (a feed another transaction holds is passed over, never waited for); writes the lease
    /// (worker, a new token, an expiry by the database's clock); and commits at once. No lock outlives the claim.
    public func claimFeeds(_ request: ClaimRequest) async throws -> ClaimResult {
        let limit = max(0, request.limit)
        guard limit > 0 else { return ClaimResult(claimed: []) }
        var ids: [Int64] = []
        var since: Double = 0
        var includeGone = false
        let predicate: String
        switch request.selection {
        case .due:
            predicate =
                "NOT s.is_gone AND (s.next_check_at IS NULL OR s.next_check_at <= extract(epoch FROM now()))"
        case .all(let gone, let notCheckedSince):
            includeGone = gone
            since = notCheckedSince.timeIntervalSince1970
            predicate =
                "(p.include_gone OR NOT s.is_gone) AND (s.last_checked_at IS NULL OR s.last_checked_at < p.since)"
        case .among(let chosen, let notCheckedSince):
            ids = chosen
            since = notCheckedSince.timeIntervalSince1970
            predicate = "s.id = ANY(p.ids) AND (s.last_checked_at IS NULL OR s.last_checked_at < p.since)"
        }
        let leaseSeconds =
            Double(request.lease.components.seconds)
            + Double(request.lease.components.attoseconds) / 1e18
        let perHost = max(1, request.perHost)
        let worker = request.worker
        let store = self
        return try await transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.claimLock))", logger: store.logger)
            var claimed: [(subscription: Subscription, lease: FeedLease)] = []
            let rows = try await connection.query(
                """
                WITH p AS (SELECT \(ids)::bigint[] AS ids, \(since)::float8 AS since, \(includeGone)::boolean AS include_gone),
                busy AS (
                  SELECT host, count(*) AS n FROM subscription WHERE lease_expires_at > now() GROUP BY host
                ),
                candidate AS (
                  SELECT s.id, s.host, s.next_check_at FROM subscription s, p
                  WHERE \(unescaped: predicate)
                    AND (s.lease_expires_at IS NULL OR s.lease_expires_at <= now())
                    AND s.host NOT IN (SELECT host FROM busy WHERE n >= \(perHost))
                  ORDER BY s.next_check_at NULLS FIRST, s.id
                  LIMIT \(Self.claimWindow)
                ),
                ranked AS (
                  SELECT id, host, row_number() OVER (PARTITION BY host ORDER BY next_check_at NULLS FIRST, id) AS rank
                  FROM candidate
                ),
                chosen AS (
                  SELECT r.id FROM ranked r LEFT JOIN busy b ON b.host = r.host
                  WHERE r.rank <= \(perHost) - coalesce(b.n, 0)
                  ORDER BY r.rank, r.id
                  LIMIT \(limit)
                ),
                locked AS (
                  SELECT id FROM subscription WHERE id IN (SELECT id FROM chosen) FOR UPDATE SKIP LOCKED
                )
                UPDATE subscription s SET lease_owner = \(worker), lease_token = nextval('podfresh_lease_token'),
                  lease_expires_at = now() + \(leaseSeconds) * interval '1 second'
                FROM locked WHERE s.id = locked.id
                RETURNING \(unescaped: Self.subscriptionReadColumns.split(separator: ",").map { "s." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")), s.lease_token
                """, logger: store.logger)
            for try await row in rows {
                guard let subscription = try Self.subscription(from: row),
                    let token = try RowReader(row).int64("lease_token")
                else { continue }
                claimed.append((subscription, FeedLease(subscriptionID: subscription.id, token: token)))
            }
            // Spread hosts as the claim chose them: the first feed of each host first.
            var waiting = 0
            if claimed.count < limit {
                for try await remaining in try await connection.query(
                    """
                    WITH p AS (SELECT \(ids)::bigint[] AS ids, \(since)::float8 AS since, \(includeGone)::boolean AS include_gone)
                    SELECT count(*)::bigint FROM (
                      SELECT 1 FROM subscription s, p
                      WHERE \(unescaped: predicate)
                        AND (s.lease_expires_at IS NULL OR s.lease_expires_at <= now())
                      LIMIT 1
                    ) AS left_over
                    """, logger: store.logger
                ).decode(Int64.self) {
                    waiting = Int(remaining)
                }
            }
            return ClaimResult(claimed: claimed, waitingForHost: waiting)
        }
    }

    /// Clears the leases this worker holds on feeds it will not check, so another worker may take them at once.
    public func releaseLeases(_ leases: [FeedLease]) async throws {
        guard !leases.isEmpty else { return }
        _ = try await rows(
            """
            UPDATE subscription s SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
            FROM unnest(\(leases.map(\.subscriptionID))::bigint[], \(leases.map(\.token))::bigint[]) AS l(id, token)
            WHERE s.id = l.id AND s.lease_token = l.token
            """)
    }

    /// Leases that have not expired, by the database's clock.
    public func activeLeaseCount() async throws -> Int {
        let rows = try await rows("SELECT count(*)::bigint AS n FROM subscription WHERE lease_expires_at > now()")
        return try rows.first.flatMap { try RowReader($0).integer("n") } ?? 0
    }

    /// The database's clock minus this machine's, measured at the middle of one round trip.
    public func clockOffset() async throws -> TimeInterval {
        let before = Date()
        let rows = try await rows("SELECT extract(epoch FROM clock_timestamp())::float8 AS now")
        let after = Date()
        guard let server = try rows.first.flatMap({ try RowReader($0).real("now") }) else { return 0 }
        let local = (before.timeIntervalSince1970 + after.timeIntervalSince1970) / 2
        return server - local
    }

    // MARK: - Runs over every feed

    /// Joins the run in progress over `selection` (ended, or neither joined nor claimed for within `lease`, it is
    /// over, and a new one starts now) in one statement, so workers starting at once meet in one run.
    public func joinCheckPass(_ selection: CheckPass, lease: Duration) async throws -> Date {
        let seconds = Self.seconds(lease)
        let rows = try await rows(
            """
            INSERT INTO check_pass AS c (selection, started_at, touched_at, ended)
            VALUES (\(selection.key), extract(epoch FROM now())::float8, now(), false)
            ON CONFLICT (selection) DO UPDATE SET
              started_at = CASE WHEN c.ended OR c.touched_at < now() - \(seconds) * interval '1 second'
                THEN excluded.started_at ELSE c.started_at END,
              touched_at = now(), ended = false
            RETURNING started_at
            """)
        guard let start = try rows.first.flatMap({ try RowReader($0).real("started_at") }) else {
            throw StoreError(.noRunJoined(database: location.description))
        }
        return Date(timeIntervalSince1970: start)
    }

    public func touchCheckPass(_ selection: CheckPass, startedAt: Date) async throws {
        _ = try await rows(
            """
            UPDATE check_pass SET touched_at = now()
            WHERE selection = \(selection.key) AND started_at = \(startedAt.timeIntervalSince1970) AND NOT ended
            """)
    }

    public func endCheckPass(_ selection: CheckPass, startedAt: Date) async throws {
        _ = try await rows(
            """
            UPDATE check_pass SET ended = true
            WHERE selection = \(selection.key) AND started_at = \(startedAt.timeIntervalSince1970)
            """)
    }

    /// A check whose lease is no longer current.
    static let leaseLost = StoreError(.leaseLost)

    /// Refuses a check whose lease is no longer current, inside the merge's transaction (the row is locked), and
    /// clears the lease when it is: the feed is then free again.
    static func fence(_ check: FeedCheck, on connection: PostgresConnection, store: PostgresFeedStore) async throws {
        guard let lease = check.lease else { return }
        // One statement checks the lease and clears it; no row means the lease is not this check's any more.
        var current = false
        for try await _ in try await connection.query(
            """
            UPDATE subscription SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
            WHERE id = \(check.subscriptionID) AND lease_token = \(lease.token)
              AND lease_expires_at > clock_timestamp()
            RETURNING id
            """, logger: store.logger
        ) {
            current = true
        }
        guard current else { throw leaseLost }
    }
}
