public import FeedParsing
public import Foundation

/// An episode as kept in the store: the parsed fields plus when podfresh first and last saw it.
public struct StoredEpisode: Sendable, Hashable {
    public var subscriptionID: Int64
    /// The feed-scoped identity key (``ParsedEpisode/id``).
    public var key: String
    /// Every parsed field, as last seen in the feed.
    public var episode: ParsedEpisode
    public var firstSeenAt: Date
    public var lastSeenAt: Date
    /// The refresh run that first stored it (nil when added outside a run).
    public var firstSeenRunID: Int64?

    public init(
        subscriptionID: Int64,
        key: String,
        episode: ParsedEpisode,
        firstSeenAt: Date,
        lastSeenAt: Date,
        firstSeenRunID: Int64? = nil
    ) {
        self.subscriptionID = subscriptionID
        self.key = key
        self.episode = episode
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.firstSeenRunID = firstSeenRunID
    }
}
