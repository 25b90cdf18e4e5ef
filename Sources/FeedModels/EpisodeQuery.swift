public import Foundation

/// Which stored episodes to list, newest first.
public struct EpisodeQuery: Sendable, Hashable {
    public var subscriptionID: Int64?
    /// Only episodes published (or, when undated, first seen) at or after this date.
    public var since: Date?
    /// Only episodes first seen in this run.
    public var runID: Int64?
    public var limit: Int?
    /// Only episodes not played to the end on any device (synced episode actions).
    public var unplayedOnly: Bool

    public init(
        subscriptionID: Int64? = nil, since: Date? = nil, runID: Int64? = nil, limit: Int? = nil,
        unplayedOnly: Bool = false
    ) {
        self.unplayedOnly = unplayedOnly
        self.subscriptionID = subscriptionID
        self.since = since
        self.runID = runID
        self.limit = limit
    }
}
