public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// Fetches feeds over HTTP(S) with one shared `HTTPClient`: conditional GET, gzip/deflate with a ratio limit,
/// redirects (permanent moves detected from the redirect history), a body cap enforced while streaming.
public struct HTTPFeedSource: FeedSource {
    private let client: HTTPClient
    let configuration: FetchConfiguration

    /// The one client a process should use for feeds, with every limit pinned. The caller shuts it down (or use
    /// ``withSource(configuration:_:)``, which does).
    public static func makeClient(configuration: FetchConfiguration) -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration(configuration))
    }

    /// A feed source over a new client, shut down when `body` returns or throws (AsyncHTTPClient's
    /// `withHTTPClient`).
    public static func withSource<Result>(
        configuration: FetchConfiguration, _ body: (HTTPFeedSource) async throws -> Result
    ) async throws -> Result {
        try await HTTPClient.withHTTPClient(configuration: clientConfiguration(configuration)) { client in
            try await body(HTTPFeedSource(client: client, configuration: configuration))
        }
    }

    static func clientConfiguration(_ configuration: FetchConfiguration) -> HTTPClient.Configuration {
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: configuration.maxRedirects, allowCycles: false),
            timeout: .init(
                connect: TimeAmount(configuration.connectTimeout),
                // A stall is caught by the read timeout; a trickle by the deadline checked per chunk.
                read: TimeAmount(min(.seconds(30), configuration.totalTimeout))),
            decompression: .enabled(limit: .ratio(configuration.decompressionRatioLimit)))
        clientConfiguration.httpVersion = .automatic
        // By default AHC retries a failed connection attempt with backoff until the connect timeout, so a refused
        // port, an unknown host or a bad certificate took the whole timeout (10 s; 20 s and 18 handshakes for TLS)
        // and surfaced as a timeout. Fail on the first attempt instead: the error is then the real cause, and the
        // refresh engine retries the causes worth retrying (resets, timeouts) once itself.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        return clientConfiguration
    }

    /// - Parameters:
    ///   - client: The shared client (from ``makeClient(configuration:)``).
    ///   - configuration: Limits and the user agent.
    public init(client: HTTPClient, configuration: FetchConfiguration) {
        self.client = client
        self.configuration = configuration
    }

    public func fetch<Consumer: FeedBodyConsumer>(
        _ request: FeedRequest,
        consumer makeConsumer: (FeedResponseHead) throws -> Consumer
    ) async throws -> FeedFetchResult<Consumer> {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", request.url.host?.isEmpty == false else {
            throw FeedFetchError(
                kind: .unsupportedScheme, message: "\(request.url.absoluteString) is not an http or https URL")
        }
        var httpRequest = HTTPClientRequest(url: request.url.absoluteString)
        httpRequest.method = .GET
        httpRequest.headers.add(name: "User-Agent", value: configuration.userAgent)
        httpRequest.headers.add(
            name: "Accept",
            value: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8")
        httpRequest.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        let sentValidators = request.conditional && (request.etag != nil || request.lastModified != nil)
        if request.conditional {
            if let etag = request.etag { httpRequest.headers.add(name: "If-None-Match", value: etag) }
            if let lastModified = request.lastModified {
                httpRequest.headers.add(name: "If-Modified-Since", value: lastModified)
            }
        }
        let timeout = configuration.totalTimeout
        let deadline =
            NIODeadline.now()
            + .nanoseconds(
                Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        do {
            let response = try await client.execute(httpRequest, deadline: deadline)
            let head = makeHead(request: request, response: response)
            let status = Int(response.status.code)
            switch status {
            case 200...299:
                // A declared length over the limit is refused from the header, before a byte of the body is read;
                // dropping the body closes the connection.
                let declaredLength = response.headers.first(name: "Content-Length")
                    .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                if let declared = declaredLength, declared > configuration.maxBodyBytes {
                    let limit = Self.megabytes(configuration.maxBodyBytes)
                    throw FeedFetchError(
                        kind: .tooLarge,
                        message:
                            "the feed is larger than \(limit)\(Self.named(configuration.maxBodyBytesName)): the server announces \(Self.megabytes(declared))"
                    )
                }
                let consumer = try makeConsumer(head)
                var count = 0
                for try await buffer in response.body {
                    if NIODeadline.now() > deadline {
                        throw FeedFetchError(
                            kind: .timeout,
                            message: "timed out: the body did not arrive within \(configuration.totalTimeout)")
                    }
                    count += buffer.readableBytes
                    if count > configuration.maxBodyBytes {
                        throw FeedFetchError(
                            kind: .tooLarge,
                            message:
                                "the feed is larger than \(Self.megabytes(configuration.maxBodyBytes))\(Self.named(configuration.maxBodyBytesName))"
                        )
                    }
                    do {
                        try buffer.withUnsafeReadableBytes { try consumer.consume($0) }
                    } catch {
                        throw FeedFetchConsumerError(underlying: error)
                    }
                }
                return .fetched(head, consumer, byteCount: count)
            case 304:
                guard sentValidators else {
                    throw FeedFetchError(
                        kind: .transport, message: "the server answered 304 Not Modified to an unconditional request",
                        status: 304)
                }
                return .notModified(head)
            case 410:
                throw FeedFetchError(kind: .gone, message: "HTTP 410 Gone: the feed was removed", status: 410)
            case 300...399:
                if let location = response.headers.first(name: "Location"),
                    let target = URL(string: location, relativeTo: head.url),
                    let targetScheme = target.scheme?.lowercased(),
                    targetScheme != "http" && targetScheme != "https"
                {
                    throw FeedFetchError(
                        kind: .unsupportedScheme,
                        message: "redirected to a \(targetScheme): URL, which podfresh never follows", status: status)
                }
                throw FeedFetchError(
                    kind: .httpStatus,
                    message: "HTTP \(status) \(response.status.reasonPhrase) without a usable Location", status: status)
            default:
                var message = "HTTP \(status) \(response.status.reasonPhrase)"
                if let retryAfter = head.retryAfter {
                    message += " (retry after \(HTTPHeaderValues.string(from: retryAfter)))"
                }
                throw FeedFetchError(kind: .httpStatus, message: message, status: status, retryAfter: head.retryAfter)
            }
        } catch let error as FeedFetchError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as FeedFetchConsumerError {
            throw error.underlying
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw classify(error, url: request.url)
        }
    }

    private func makeHead(request: FeedRequest, response: HTTPClientResponse) -> FeedResponseHead {
        let finalURL = response.url ?? request.url
        let hops = response.history
        var redirects: [URL] = []
        var permanentRedirect: URL?
        if hops.count > 1 {
            redirects = hops.dropFirst().compactMap { URL(string: $0.request.url) }
            let statuses = hops.dropLast().map { $0.responseHead.status.code }
            let isPermanent: (UInt) -> Bool = { $0 == 301 || $0 == 308 }
            if statuses.allSatisfy(isPermanent) {
                permanentRedirect = finalURL
            } else if let first = statuses.first, isPermanent(first) {
                permanentRedirect = redirects.first
            }
        }
        let headers = response.headers
        let now = configuration.now()
        let contentType = headers.first(name: "Content-Type")
        return FeedResponseHead(
            url: finalURL,
            status: Int(response.status.code),
            etag: headers.first(name: "ETag"),
            lastModified: headers.first(name: "Last-Modified"),
            contentType: contentType,
            charset: contentType.flatMap(HTTPHeaderValues.charset),
            maxAge: headers.first(name: "Cache-Control").flatMap(HTTPHeaderValues.maxAge),
            expires: headers.first(name: "Expires").flatMap(HTTPHeaderValues.date),
            retryAfter: headers.first(name: "Retry-After").flatMap { HTTPHeaderValues.retryAfter($0, now: now) },
            permanentRedirect: permanentRedirect,
            redirects: redirects)
    }

    /// " (NAME)" for a limit the caller named, else nothing.
    static func named(_ name: String?) -> String {
        name.map { " (\($0))" } ?? ""
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes >= 1_000_000 ? "\(bytes / 1_000_000) MB" : "\(bytes) bytes"
    }
}

/// Wraps an error thrown by a body consumer so it passes through the fetch unchanged.
struct FeedFetchConsumerError: Error {
    let underlying: any Error
}
