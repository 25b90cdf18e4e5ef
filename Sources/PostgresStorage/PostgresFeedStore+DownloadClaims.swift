public import FeedModels
import Foundation
import PostgresNIO

// Download leases on PostgreSQL (see ``DownloadClaiming``): one statement each, timed by the database's clock.
extension PostgresFeedStore: DownloadClaiming {
    /// Claims the episode in one statement: a new lease row, or an expired one taken over in place; a lease that has
    /// not expired is left alone and nothing comes back. Concurrent claims of one episode take turns on its row, so
    /// exactly one gets it.
    public func claimDownload(
        subscriptionID: Int64, episodeKey: String, worker: String, lease: Duration
    ) async throws -> DownloadLease? {
        let seconds = Self.seconds(lease)
        let rows = try await rows(
            """
            INSERT INTO download_lease AS l (subscription_id, episode_key, owner, token, expires_at)
            VALUES (\(subscriptionID), \(episodeKey), \(worker), nextval('podfresh_lease_token'),
              now() + \(seconds) * interval '1 second')
            ON CONFLICT (subscription_id, episode_key) DO UPDATE SET
              owner = excluded.owner, token = excluded.token, expires_at = excluded.expires_at
            WHERE l.expires_at <= now()
            RETURNING token
            """)
        guard let token = try rows.first.flatMap({ try RowReader($0).int64("token") }) else { return nil }
        return DownloadLease(subscriptionID: subscriptionID, episodeKey: episodeKey, token: token)
    }

    @discardableResult
    public func renewDownloadLease(_ held: DownloadLease, lease: Duration) async throws -> Bool {
        let seconds = Self.seconds(lease)
        return try await !rows(
            """
            UPDATE download_lease SET expires_at = now() + \(seconds) * interval '1 second'
            WHERE subscription_id = \(held.subscriptionID) AND episode_key = \(held.episodeKey)
              AND token = \(held.token)
            RETURNING token
            """
        ).isEmpty
    }

    public func releaseDownloadLease(_ held: DownloadLease) async throws {
        _ = try await rows(
            """
            DELETE FROM download_lease
            WHERE subscription_id = \(held.subscriptionID) AND episode_key = \(held.episodeKey)
              AND token = \(held.token)
            """)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
