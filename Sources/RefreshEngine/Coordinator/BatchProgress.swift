/// Where a batch stands.
public struct BatchProgress: Sendable, Hashable {
    public var total: Int
    public var finished: Int
    /// Feeds being fetched right now.
    public var running: [FeedTarget]
    public var newEpisodes: Int
    public var failures: Int

    public init(total: Int, finished: Int = 0, running: [FeedTarget] = [], newEpisodes: Int = 0, failures: Int = 0) {
        self.total = total
        self.finished = finished
        self.running = running
        self.newEpisodes = newEpisodes
        self.failures = failures
    }
}
