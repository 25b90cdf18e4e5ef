import Foundation

/// A worker's hold on downloading one episode: given by ``DownloadClaiming/claimDownload(subscriptionID:episodeKey:worker:lease:)``,
/// renewed while the file arrives, given back when the download ends.
public struct DownloadLease: Sendable, Hashable {
    /// The feed.
    public var subscriptionID: Int64
    /// The episode's identity key within its feed.
    public var episodeKey: String
    /// A number the store gave this claim alone; a later claim of the same episode gets another.
    public var token: Int64

    public init(subscriptionID: Int64, episodeKey: String, token: Int64) {
        self.subscriptionID = subscriptionID
        self.episodeKey = episodeKey
        self.token = token
    }

    /// How long a download's lease lasts from the store's clock before another worker may take the episode: a
    /// worker that dies mid-download holds it no longer than this.
    public static let duration: Duration = .seconds(120)
    /// How often a worker renews the leases of its downloads in flight (a file may take far longer than a lease).
    public static let renewal: Duration = .seconds(30)
}

/// A store several workers share: an episode is claimed under a lease before it is downloaded, so that two
/// `download` commands (or `refresh --download` workers) on one database download each episode once, as feeds are
/// claimed before they are fetched (``FeedClaiming``). Leases are timed by the store's clock alone.
public protocol DownloadClaiming: Sendable {
    /// Claims episode `episodeKey` of feed `subscriptionID` for `worker` for `lease`, unless another worker holds a
    /// lease on it that has not expired. - Returns: the lease, or nil when another worker holds the episode.
    func claimDownload(
        subscriptionID: Int64, episodeKey: String, worker: String, lease: Duration
    ) async throws -> DownloadLease?
    /// Extends a lease this worker holds by `lease` from now. - Returns: false when it is no longer this worker's.
    @discardableResult func renewDownloadLease(_ held: DownloadLease, lease: Duration) async throws -> Bool
    /// Gives a lease back, so another worker may take the episode at once (a no-op when it is no longer this
    /// worker's).
    func releaseDownloadLease(_ held: DownloadLease) async throws
}
