// INTERIM: replaced when the fetching branch lands.
public import AsyncHTTPClient
public import Foundation

public struct FetchConfiguration: Sendable {
    public var maxBodyBytes: Int
    public init(connectTimeout: Duration, totalTimeout: Duration, maxBodyBytes: Int, userAgent: String) { self.maxBodyBytes = maxBodyBytes }
}
public struct HTTPFeedSource: FeedSource {
    public static func makeClient(configuration: FetchConfiguration) -> HTTPClient { HTTPClient(eventLoopGroupProvider: .singleton) }
    public init(client: HTTPClient, configuration: FetchConfiguration) {}
    public func fetch<Consumer: FeedBodyConsumer>(_ request: FeedRequest, consumer makeConsumer: (FeedResponseHead) throws -> Consumer) async throws -> FeedFetchResult<Consumer> { fatalError() }
}
public struct FileFeedSource: FeedSource {
    public init(maxBodyBytes: Int) {}
    public func fetch<Consumer: FeedBodyConsumer>(_ request: FeedRequest, consumer makeConsumer: (FeedResponseHead) throws -> Consumer) async throws -> FeedFetchResult<Consumer> { fatalError() }
}
public struct RoutingFeedSource: FeedSource {
    public init(http: HTTPFeedSource, file: FileFeedSource) {}
    public func fetch<Consumer: FeedBodyConsumer>(_ request: FeedRequest, consumer makeConsumer: (FeedResponseHead) throws -> Consumer) async throws -> FeedFetchResult<Consumer> { fatalError() }
}
