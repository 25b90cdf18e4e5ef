public import Foundation

/// What to fetch, with the validators of the last successful fetch.
public struct FeedRequest: Sendable, Hashable {
    /// `http`, `https` or `file` URL.
    public var url: URL
    /// The stored `ETag`, sent as `If-None-Match` when ``conditional`` is true.
    public var etag: String?
    /// The stored `Last-Modified`, sent as `If-Modified-Since` when ``conditional`` is true.
    public var lastModified: String?
    /// False for a forced fetch: no validators are sent.
    public var conditional: Bool
    /// False when nothing else will be asked of this host soon: the server is asked to close the connection after
    /// its answer (`Connection: close`), so neither side keeps it open, idle, with its buffers.
    public var reusesConnection: Bool

    public init(
        url: URL, etag: String? = nil, lastModified: String? = nil, conditional: Bool = true,
        reusesConnection: Bool = true
    ) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.conditional = conditional
        self.reusesConnection = reusesConnection
    }
}

/// What the server (or file system) said before the body.
public struct FeedResponseHead: Sendable, Hashable {
    /// The URL the bytes finally came from, after redirects.
    public var url: URL
    /// HTTP status of the final response (200 for files).
    public var status: Int
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    /// The `charset` parameter of `Content-Type`, lower-cased, if any.
    public var charset: String?
    /// `Cache-Control: max-age` in seconds.
    public var maxAge: Int?
    /// `Expires`, parsed.
    public var expires: Date?
    /// `Retry-After` (seconds or HTTP date) resolved against the response's arrival time.
    public var retryAfter: Date?
    /// Set when the feed moved permanently: the first redirect hop or every hop was 301/308.
    /// The URL is the target of the last permanent hop.
    public var permanentRedirect: URL?
    /// Every URL visited after the request's, in order.
    public var redirects: [URL]

    public init(
        url: URL,
        status: Int,
        etag: String? = nil,
        lastModified: String? = nil,
        contentType: String? = nil,
        charset: String? = nil,
        maxAge: Int? = nil,
        expires: Date? = nil,
        retryAfter: Date? = nil,
        permanentRedirect: URL? = nil,
        redirects: [URL] = []
    ) {
        self.url = url
        self.status = status
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.charset = charset
        self.maxAge = maxAge
        self.expires = expires
        self.retryAfter = retryAfter
        self.permanentRedirect = permanentRedirect
        self.redirects = redirects
    }
}

/// Receives a body chunk by chunk as it arrives (the feed parser, in the refresh engine).
public protocol FeedBodyConsumer: AnyObject {
    /// Takes the next chunk. Throwing stops the download; the error is rethrown from ``FeedSource/fetch(_:consumer:)``.
    func consume(_ bytes: UnsafeRawBufferPointer) throws
    /// False once the consumer has read all it needs (a feed whose leading episodes are all known, issue #36): the
    /// source then stops reading the body (it closes the connection, or reads the rest without handing it on when
    /// little is left) and returns ``FeedFetchResult/fetched(_:_:byteCount:)`` with the bytes handed on so far.
    var wantsMoreBody: Bool { get }
    /// Called after each chunk handed to ``consume(_:)``, outside the source's buffers: the consumer may wait here for
    /// work of its own (a refresh stores the episodes of a long body every few megabytes, issue #36), and the body waits
    /// with it. Throwing stops the download, as in ``consume(_:)``.
    func afterChunk() async throws
}

extension FeedBodyConsumer {
    /// Every byte, by default.
    public var wantsMoreBody: Bool { true }
    /// Nothing to wait for, by default.
    public func afterChunk() async throws {}
}

/// The outcome of a fetch that reached the server.
public enum FeedFetchResult<Consumer> {
    /// 304: the stored copy is current.
    case notModified(FeedResponseHead)
    /// 2xx: the body went through the consumer, to its end or until the consumer wanted no more
    /// (``FeedBodyConsumer/wantsMoreBody``).
    case fetched(FeedResponseHead, Consumer, byteCount: Int)
}

/// Where feed bytes come from: HTTP(S) or a local file.
public protocol FeedSource: Sendable {
    /// Fetches one feed, streaming the body into a consumer made from the response head.
    ///
    /// - Parameters:
    ///   - request: The URL and validators.
    ///   - makeConsumer: Called once, on a successful (2xx) response, before any body byte. It may wait (for a
    ///     processing slot, say); the body is not read meanwhile, and its stall limit starts once it returns.
    /// - Returns: ``FeedFetchResult/notModified(_:)`` or ``FeedFetchResult/fetched(_:_:byteCount:)``.
    /// - Throws: ``FeedFetchError`` for transport and HTTP failures; an error thrown by the consumer, unchanged.
    func fetch<Consumer: FeedBodyConsumer>(
        _ request: FeedRequest,
        consumer makeConsumer: (FeedResponseHead) async throws -> Consumer
    ) async throws -> FeedFetchResult<Consumer>
}
