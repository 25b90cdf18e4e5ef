public import Foundation

/// One refresh run, as recorded.
public struct RefreshRun: Sendable, Hashable {
    public var id: Int64
    public var startedAt: Date
    public var endedAt: Date?
    public var feedsChecked: Int
    public var feedsFailed: Int
    public var feedsNotModified: Int
    public var newEpisodes: Int
    /// Body bytes downloaded in the run.
    public var bytesDownloaded: Int
    /// Bytes not downloaded thanks to 304s (each 304 counts the feed's last body size).
    public var bytesSaved: Int
    /// Feeds whose body was read only up to their known leading episodes (the rest not read).
    public var feedsReadShort = 0

    public init(
        id: Int64,
        startedAt: Date,
        endedAt: Date? = nil,
        feedsChecked: Int = 0,
        feedsFailed: Int = 0,
        feedsNotModified: Int = 0,
        newEpisodes: Int = 0,
        bytesDownloaded: Int = 0,
        bytesSaved: Int = 0
    ) {
        self.bytesDownloaded = bytesDownloaded
        self.bytesSaved = bytesSaved
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.feedsChecked = feedsChecked
        self.feedsFailed = feedsFailed
        self.feedsNotModified = feedsNotModified
        self.newEpisodes = newEpisodes
    }
}
