public import Measures

/// A ``FeedSource`` that tries a fetch once more when it fails in a way worth retrying at once (a reset connection, a
/// timeout: ``FeedFetchError/isTransient``), after a short pause with jitter. Every other outcome passes through.
///
/// The retry builds a new consumer from the new response head, so a half-parsed first attempt leaves nothing behind in
/// memory (what a consumer stored as it read, it stored as true of the feed: see the refresh's early merges).
public struct RetryingFeedSource: FeedSource {
    private let base: any FeedSource
    private let delay: Duration
    private let clock: AppClock

    /// - Parameters:
    ///   - base: The source that does the fetching.
    ///   - delay: The pause before the retry, before jitter (a random 50–150 % of it is used).
    ///   - clock: The clock the pause is taken on.
    public init(wrapping base: any FeedSource, delay: Duration = .milliseconds(500), clock: AppClock = .system) {
        self.base = base
        self.delay = delay
        self.clock = clock
    }

    public func fetch<Consumer: FeedBodyConsumer>(
        _ request: FeedRequest,
        consumer makeConsumer: (FeedResponseHead) async throws -> Consumer
    ) async throws -> FeedFetchResult<Consumer> {
        do {
            return try await base.fetch(request, consumer: makeConsumer)
        } catch let error as FeedFetchError where error.isTransient {
            try await clock.sleep(for: delay * Double.random(in: 0.5...1.5))
            return try await base.fetch(request, consumer: makeConsumer)
        }
    }
}
