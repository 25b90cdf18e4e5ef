import Foundation
public import HTTPTransport

/// Fetches feeds over HTTP(S) through the process's one ``HTTPNetwork`` (names resolved concurrently and cached,
/// one connection pool per host): conditional GET, gzip/deflate with a ratio limit, redirects (permanent moves
/// detected from the hops), a body cap enforced while streaming, and separate limits on connecting, the first byte,
/// stalls, the body's rate and the whole fetch (``FetchConfiguration/limits``), each named in the error it causes.
public struct HTTPFeedSource: FeedSource {
    private let network: HTTPNetwork
    let configuration: FetchConfiguration

    /// A network for feeds; the caller shuts it down (or use ``withSource(configuration:network:_:)``, which does).
    public static func makeNetwork(configuration: FetchConfiguration) -> HTTPNetwork {
        HTTPNetwork(resolver: HostResolver(policy: configuration.resolverPolicy))
    }

    /// A feed source over `network`, or over a new network shut down when `body` returns or throws.
    public static func withSource<Result>(
        configuration: FetchConfiguration, network: HTTPNetwork? = nil, _ body: (HTTPFeedSource) async throws -> Result
    ) async throws -> Result {
        if let network {
            return try await body(HTTPFeedSource(network: network, configuration: configuration))
        }
        return try await HTTPNetwork.withNetwork(resolver: HostResolver(policy: configuration.resolverPolicy)) {
            try await body(HTTPFeedSource(network: $0, configuration: configuration))
        }
    }

    /// - Parameters:
    ///   - network: The shared network (from ``makeNetwork(configuration:)``).
    ///   - configuration: Limits and the user agent.
    public init(network: HTTPNetwork, configuration: FetchConfiguration) {
        self.network = network
        self.configuration = configuration
    }

    /// How feed requests talk to servers: bodies as sent (decoded as they are read, ``BodyInflater``, with the ratio
    /// limit), AsyncHTTPClient's read timeout as a backstop behind the watchdog's limits (a body waiting for its
    /// consumer is not read, and must not time out), idle connections closed after
    /// ``FetchConfiguration/idleConnectionTimeout``, and HTTP/2 where the server offers it (ALPN; unless
    /// ``FetchConfiguration/allowsHTTP2`` is false), with each stream's
    /// window bounded to ``streamWindow``: a feed's body is read as fast as it is parsed, and when parsing falls
    /// behind the network (a cold run of many feeds), an unbounded stream would pile up to 8 MB of it in memory (an
    /// HTTP/1.1 body waits in TCP). An HTTP/1.1 host gets up to `--per-host` connections (6), as a browser opens; an
    /// HTTP/2 host one connection with up to its stream limit of feeds at once
    /// (``HTTPNetwork/multiplexedStreams(host:)``).
    var profile: HTTPNetwork.Profile {
        HTTPNetwork.Profile(
            decompressionRatioLimit: nil,
            connectTimeout: configuration.connectTimeout,
            readTimeout: configuration.totalTimeout + .seconds(5),
            idleTimeout: configuration.idleConnectionTimeout, allowsHTTP2: configuration.allowsHTTP2,
            streamWindow: Self.streamWindow)
    }

    /// The most bytes of a body read short that are still read (and dropped) to keep its connection: about what a
    /// new TLS connection costs to set up; beyond it the connection is closed.
    static let drainLimit = 64 * 1024

    /// The most bytes of a feed an HTTP/2 stream receives before they are parsed: 256 KB, a window that keeps a
    /// stream at 2.5 MB/s over a 100 ms round trip, and at most 25 MB for a host's 100 streams.
    public static let streamWindow = 256 * 1024

    public func fetch<Consumer: FeedBodyConsumer>(
        _ request: FeedRequest,
        consumer makeConsumer: (FeedResponseHead) async throws -> Consumer
    ) async throws -> FeedFetchResult<Consumer> {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", request.url.host?.isEmpty == false else {
            throw FeedFetchError(.notHTTPURL(url: request.url.absoluteString))
        }
        let watch = TransferWatch(clock: configuration.clock)
        do {
            // The transfer and its watchdog run side by side; the first to end decides. The consumer is made and fed
            // by the transfer alone and handed back when it is done.
            return try await watch.run(limits: configuration.limits) {
                try await transfer(request, watch: watch, makeConsumer: makeConsumer)
            }
        } catch let error as FeedFetchError {
            throw error
        } catch let error as FeedFetchConsumerError {
            throw error.underlying
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw failure(error, url: request.url)
        }
    }

    /// The fact behind a transfer's error (HTTPTransport's one classification), with the limits this source sets.
    private func failure(
        _ error: any Error, url: URL, body: TransportFailure.BodyProgress? = nil
    ) -> FeedFetchError {
        FeedFetchError(
            .transport(
                TransportFailure(error, url: url, profile: profile, timeout: configuration.totalTimeout, body: body)))
    }

    private func transfer<Consumer: FeedBodyConsumer>(
        _ request: FeedRequest, watch: TransferWatch, makeConsumer: (FeedResponseHead) async throws -> Consumer
    ) async throws -> FeedFetchResult<Consumer> {
        var httpRequest = HTTPNetwork.Request(url: request.url)
        httpRequest.addHeader("User-Agent", configuration.userAgent)
        httpRequest.addHeader(
            "Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8")
        httpRequest.addHeader("Accept-Encoding", "gzip, deflate")
        if !request.reusesConnection { httpRequest.addHeader("Connection", "close") }
        let sentValidators = request.conditional && (request.etag != nil || request.lastModified != nil)
        if request.conditional {
            if let etag = request.etag { httpRequest.addHeader("If-None-Match", etag) }
            if let lastModified = request.lastModified { httpRequest.addHeader("If-Modified-Since", lastModified) }
        }
        // AsyncHTTPClient's own deadline is a backstop a moment after the watchdog's total limit.
        let deadline = ContinuousClock.now + configuration.totalTimeout + .seconds(2)
        let exchange: HTTPNetwork.Exchange
        do {
            exchange = try await network.execute(
                httpRequest, profile: profile, maxRedirects: configuration.maxRedirects, deadline: deadline,
                watch: watch)
        } catch let error as HTTPNetwork.RedirectError {
            switch error {
            case .tooMany(let count):
                throw FeedFetchError(.tooManyRedirects(max: count))
            case .cycle:
                throw FeedFetchError(.redirectCycle)
            }
        }
        let response = exchange.response
        let head = makeHead(request: request, exchange: exchange)
        let status = response.status
        let declaredLength = response.headers.first(name: "Content-Length")
            .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if (200...299).contains(status) {
            watch.headArrived()
        } else {
            watch.bodyStarted(expected: declaredLength.map(Int64.init))
        }
        switch status {
        case 200...299:
            // A declared length over the limit is refused from the header, before a byte of the body is read;
            // dropping the body closes the connection.
            if let declared = declaredLength, declared > configuration.maxBodyBytes {
                throw FeedFetchError(.bodyOverLimit(limit: configuration.maxBodyBytes, announced: declared))
            }
            // Making the consumer may wait for a processing slot; the body's limits count from when it is ready.
            let consumer = try await makeConsumer(head)
            watch.bodyStarted(expected: declaredLength.map(Int64.init))
            let inflater = BodyInflater(
                contentEncoding: response.headers.first(name: "Content-Encoding"),
                ratioLimit: configuration.decompressionRatioLimit)
            var count = 0
            var received = 0
            func deliver(_ bytes: UnsafeRawBufferPointer) throws {
                count += bytes.count
                if count > configuration.maxBodyBytes {
                    throw FeedFetchError(.bodyOverLimit(limit: configuration.maxBodyBytes, announced: nil))
                }
                do {
                    try consumer.consume(bytes)
                } catch {
                    throw FeedFetchConsumerError(underlying: error)
                }
            }
            do {
                var draining = false
                for try await chunk in response.body {
                    watch.received(chunk.count)
                    received += chunk.count
                    if draining { continue }
                    try chunk.withUnsafeBytes { bytes in
                        if let inflater {
                            try inflater.inflate(bytes, while: { consumer.wantsMoreBody }, deliver)
                        } else {
                            try deliver(bytes)
                        }
                    }
                    do {
                        try await consumer.afterChunk()
                    } catch {
                        throw FeedFetchConsumerError(underlying: error)
                    }
                    if !consumer.wantsMoreBody {
                        // Read short: the rest is not handed on. Little left is read and dropped, so the connection
                        // serves the host's next feed; more, or an unknown length, closes it (leaving the loop drops
                        // the body).
                        guard let declared = declaredLength, declared - received <= Self.drainLimit else { break }
                        draining = true
                    }
                }
                if consumer.wantsMoreBody { try inflater?.finish() }
            } catch let error as FeedFetchError {
                throw error
            } catch let error as FeedFetchConsumerError {
                throw error
            } catch {
                if Task.isCancelled { throw CancellationError() }
                // The bytes are counted as sent (before decoding), from the host that sent them.
                throw failure(
                    error, url: exchange.url,
                    body: .init(receivedBytes: Int64(received), expectedBytes: declaredLength.map(Int64.init)))
            }
            return .fetched(head, consumer, byteCount: count)
        case 304:
            // Reading the (empty) body to its end is what gives the connection back to its pool for the next feed.
            await HTTPNetwork.discard(response.body)
            guard sentValidators else {
                throw FeedFetchError(.unaskedNotModified)
            }
            return .notModified(head)
        case 410:
            await HTTPNetwork.discard(response.body)
            throw FeedFetchError(.gone)
        case 300...399:
            await HTTPNetwork.discard(response.body)
            if let location = response.headers.first(name: "Location"),
                let target = URL(string: location, relativeTo: head.url),
                let targetScheme = target.scheme?.lowercased(),
                targetScheme != "http" && targetScheme != "https"
            {
                throw FeedFetchError(.redirectedToScheme(targetScheme, status: status))
            }
            throw FeedFetchError(.redirectWithoutLocation(status: status, reasonPhrase: response.reasonPhrase))
        default:
            await HTTPNetwork.discard(response.body)
            throw FeedFetchError(
                .httpStatus(status, reasonPhrase: response.reasonPhrase, retryAfter: head.retryAfter))
        }
    }

    private func makeHead(request: FeedRequest, exchange: HTTPNetwork.Exchange) -> FeedResponseHead {
        let response = exchange.response
        let finalURL = exchange.url
        let hops = exchange.hops
        var redirects: [URL] = []
        var permanentRedirect: URL?
        if hops.count > 1 {
            redirects = hops.dropFirst().map(\.url)
            let statuses = hops.dropLast().map(\.status)
            let isPermanent: (Int) -> Bool = { $0 == 301 || $0 == 308 }
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
            status: response.status,
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

}

/// Wraps an error thrown by a body consumer so it passes through the fetch unchanged.
struct FeedFetchConsumerError: Error {
    let underlying: any Error
}
