import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one network layer of a process, shared by feed fetches and media downloads: names resolved concurrently and
/// once (``HostResolver``), one connection pool per host that every request to that host reuses (HTTP/1.1
/// keep-alive, or one HTTP/2 connection with several streams where the profile allows it), redirects followed hop by
/// hop through the same resolver and pools, and a host's addresses tried in turn when one does not connect.
///
/// AsyncHTTPClient resolves names itself through SwiftNIO's `getaddrinfo` queue (two lookups at a time on two
/// cores) and offers no resolver of one's own; it does offer a per-client `dnsOverride`. So this layer keeps one
/// client per host, profile and address, whose override sends the host's requests to the address this layer
/// resolved; TLS still checks the certificate against the host's name (SNI is the host name).
///
/// ## Why this class is `@unchecked Sendable`
/// Its mutable state (`clients`, `working`, `closed`) is touched only inside `lock.withLock {}`; clients are
/// created under the lock (creating one does no I/O) and shut down outside it.
public final class HTTPNetwork: @unchecked Sendable {
    /// How a kind of request talks to servers: its pools are apart from other profiles'.
    public struct Profile: Sendable, Hashable {
        /// The largest decompressed/compressed ratio accepted for gzip/deflate bodies that AsyncHTTPClient decodes;
        /// nil: bodies come as sent (media, asked for as identity; feeds, decoded by their reader with
        /// ``BodyInflater``).
        public var decompressionRatioLimit: Int?
        /// Opening a connection to one address.
        public var connectTimeout: Duration
        /// AsyncHTTPClient's own read timeout, a backstop behind the ``TransferWatch`` limits (set it above them).
        public var readTimeout: Duration
        /// How long a connection waits unused in its pool before it is closed. An open connection keeps its read
        /// and TLS buffers (tens of kilobytes, more after a large body): hundreds of idle connections to hosts a
        /// refresh is done with cost more memory than everything else in flight.
        public var idleTimeout: Duration
        /// Whether HTTP/2 is offered (ALPN). Over HTTP/1.1 a body that is not read waits in TCP and holds the server
        /// back; over HTTP/2, AsyncHTTPClient lets each stream receive up to 8 MB unread (a fixed window), so bodies
        /// read slower than they arrive pile up in memory, unless ``streamWindow`` bounds it.
        public var allowsHTTP2: Bool
        /// The most bytes an HTTP/2 stream may receive before they are read (at least 64 KB): its window is opened
        /// only as its body is read (``HTTP2WindowLimiter``). Nil: AsyncHTTPClient's own 8 MB window, opened as bytes
        /// arrive. A larger window lets a stream go faster on a long round trip (a window a round trip).
        public var streamWindow: Int?

        public init(
            decompressionRatioLimit: Int?, connectTimeout: Duration, readTimeout: Duration,
            idleTimeout: Duration = .seconds(60), allowsHTTP2: Bool = true, streamWindow: Int? = nil
        ) {
            self.decompressionRatioLimit = decompressionRatioLimit
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
            self.idleTimeout = idleTimeout
            self.allowsHTTP2 = allowsHTTP2
            self.streamWindow = streamWindow
        }
    }

    /// One answer that came at the end of a chain of redirects.
    public struct Exchange: Sendable {
        /// The final response; its body is not read yet.
        public var response: Response
        /// Every URL asked, the first included, with the status it answered, in order.
        public var hops: [Hop]
        /// The URL the final response came from.
        public var url: URL { hops.last?.url ?? URL(fileURLWithPath: "/") }
    }

    /// One request of a redirect chain and the status it got.
    public struct Hop: Sendable, Hashable {
        public var url: URL
        public var status: Int
    }

    /// A redirect chain that cannot be followed.
    public enum RedirectError: Error, Sendable, Hashable {
        /// More hops than allowed.
        case tooMany(Int)
        /// A URL came back a second time.
        case cycle
    }

    private struct ClientKey: Hashable {
        var host: String
        var address: String
        var profile: Profile
        var connectTimeout: Duration
    }

    /// The resolver every request of this network uses.
    public let resolver: HostResolver
    /// The TLS settings of every client: ``tlsConfiguration``, with a test's own roots added.
    private let tls: TLSConfiguration
    private let lock = NSLock()
    private var clients: [ClientKey: HTTPClient] = [:]
    /// The address that last connected, per host: later requests start there.
    private var working: [String: String] = [:]
    /// Hosts whose last answer came over HTTP/2.
    private var multiplexed: Set<String> = []
    private var closed = false

    /// A network over `resolver`; call ``shutdown()`` when done (or use ``withNetwork(resolver:_:)``).
    public init(resolver: HostResolver = HostResolver()) {
        self.resolver = resolver
        self.tls = Self.tlsConfiguration
    }

    /// A network that trusts the certificates in `trustedPEM` (PEM text) besides the system's: a server of one's own
    /// with a certificate of its own (a test's).
    ///
    /// - Throws: NIOSSL's error when `trustedPEM` holds no readable certificate.
    public convenience init(resolver: HostResolver = HostResolver(), trustingPEM trustedPEM: String) throws {
        var tls = Self.tlsConfiguration
        let extra = try NIOSSLCertificate.fromPEMBytes(Array(trustedPEM.utf8))
        switch tls.trustRoots {
        case .certificates(let roots): tls.trustRoots = .certificates(roots + extra)
        default: tls.additionalTrustRoots.append(.certificates(extra))
        }
        self.init(resolver: resolver, tls: tls)
    }

    private init(resolver: HostResolver, tls: TLSConfiguration) {
        self.resolver = resolver
        self.tls = tls
    }

    /// The streams AsyncHTTPClient opens at once on an HTTP/2 connection when the server names no limit, and the
    /// limit most servers name (100; some 128 or 250).
    public static let assumedStreamLimit = 100

    /// How many requests to `host` can run at once on one connection: ``assumedStreamLimit`` when its last answer
    /// came over HTTP/2, nil when it came over HTTP/1.1 or none has come yet.
    public func multiplexedStreams(host: String) -> Int? {
        lock.withLock { multiplexed.contains(host.lowercased()) } ? Self.assumedStreamLimit : nil
    }

    /// A network that is shut down when `body` returns or throws.
    public static func withNetwork<Result>(
        resolver: HostResolver = HostResolver(), _ body: (HTTPNetwork) async throws -> Result
    ) async throws -> Result {
        let network = HTTPNetwork(resolver: resolver)
        let result: Result
        do {
            result = try await body(network)
        } catch {
            await network.shutdown()
            throw error
        }
        await network.shutdown()
        return result
    }

    /// Shuts every client down; requests made afterwards fail.
    public func shutdown() async {
        let all = lock.withLock {
            closed = true
            let all = Array(clients.values)
            clients.removeAll()
            return all
        }
        await withTaskGroup(of: Void.self) { group in
            for client in all { group.addTask { try? await client.shutdown() } }
        }
    }

    /// Connection pools open now (one per host, profile and address used).
    public var poolCount: Int { lock.withLock { clients.count } }

    // MARK: - Requests

    /// Sends `request` and follows redirects hop by hop, each through the resolver and the pool of its own host. A
    /// redirect's body is read and dropped so its connection goes back to the pool.
    ///
    /// A 3xx without a usable `Location` (or one to a scheme other than http and https) is returned as it is.
    ///
    /// - Parameters:
    ///   - deadline: When AsyncHTTPClient gives up on the whole exchange, a backstop behind the watched limits.
    ///   - watch: Told when each request starts, for the first-byte limit.
    /// - Throws: ``RedirectError``, or an error of the resolver, the connection or TLS, which
    ///   ``TransportFailure/init(_:url:profile:timeout:body:)`` turns into a fact.
    public func execute(
        _ request: Request, profile: Profile, maxRedirects: Int, deadline: ContinuousClock.Instant,
        watch: TransferWatch? = nil
    ) async throws -> Exchange {
        var url = request.url
        var clientRequest = request.client
        let deadline = Self.nioDeadline(deadline)
        var hops: [Hop] = []
        var visited: Set<String> = [url.absoluteString]
        while true {
            let response = try await send(clientRequest, to: url, profile: profile, deadline: deadline, watch: watch)
            let status = Int(response.status.code)
            hops.append(Hop(url: url, status: status))
            guard [301, 302, 303, 307, 308].contains(status),
                let location = response.headers.first(name: "Location"),
                let target = URL(string: location, relativeTo: url)?.absoluteURL,
                let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
                target.host?.isEmpty == false
            else {
                return Exchange(response: Response(response), hops: hops)
            }
            await Self.discard(Body(base: response.body))
            guard hops.count <= maxRedirects else { throw RedirectError.tooMany(maxRedirects) }
            guard visited.insert(target.absoluteString).inserted else { throw RedirectError.cycle }
            url = target
            clientRequest.url = target.absoluteString
        }
    }

    /// Reads and drops a body of up to `limit` bytes so its connection can be reused; a longer one is dropped
    /// unread (the connection then closes).
    public static func discard(_ body: Body, limit: Int = 64 * 1024) async {
        var count = 0
        do {
            for try await chunk in body {
                count += chunk.count
                if count > limit { return }
            }
        } catch {}
    }

    /// NIO's deadline for the same instant.
    private static func nioDeadline(_ instant: ContinuousClock.Instant) -> NIODeadline {
        let left = ContinuousClock.now.duration(to: instant)
        let nanoseconds = left.components.seconds * 1_000_000_000 + left.components.attoseconds / 1_000_000_000
        return .now() + .nanoseconds(max(0, nanoseconds))
    }

    /// One request to one URL: the host's addresses are tried in turn (the one that worked last first) until one
    /// connects.
    private func send(
        _ request: HTTPClientRequest, to url: URL, profile: Profile, deadline: NIODeadline, watch: TransferWatch?
    ) async throws -> HTTPClientResponse {
        guard let host = url.host, !host.isEmpty else { throw HTTPClientError.invalidURL }
        var addresses = try await resolver.addresses(for: host)
        let key = host.lowercased()
        if let last = lock.withLock({ working[key] }), let index = addresses.firstIndex(where: { $0.ip == last }),
            index > 0
        {
            addresses.insert(addresses.remove(at: index), at: 0)
        }
        // With several addresses, each attempt gets part of the connect time, so a dead first address leaves time
        // for the next (a simple form of RFC 8305's connection racing).
        let attempts = Array(addresses.prefix(4))
        let connectTimeout =
            attempts.count > 1 ? max(profile.connectTimeout / attempts.count, .seconds(1)) : profile.connectTimeout
        var lastError: (any Error)?
        for (index, address) in attempts.enumerated() {
            let client = try client(host: host, address: address, profile: profile, connectTimeout: connectTimeout)
            watch?.requestStarted()
            do {
                let response = try await client.execute(request, deadline: deadline)
                let overHTTP2 = response.version.major == 2
                lock.withLock {
                    if attempts.count > 1 { working[key] = address.ip }
                    if overHTTP2 { multiplexed.insert(key) } else { multiplexed.remove(key) }
                }
                return response
            } catch {
                guard index < attempts.count - 1, Self.isConnectFailure(error), !Task.isCancelled else { throw error }
                lastError = error
            }
        }
        throw lastError ?? HTTPClientError.connectTimeout
    }

    private func client(
        host: String, address: ResolvedAddress, profile: Profile, connectTimeout: Duration
    ) throws
        -> HTTPClient
    {
        let key = ClientKey(
            host: host.lowercased(), address: address.ip, profile: profile, connectTimeout: connectTimeout)
        return try lock.withLock {
            guard !closed else { throw HTTPClientError.alreadyShutdown }
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: TimeAmount(connectTimeout), read: TimeAmount(profile.readTimeout)),
                decompression: profile.decompressionRatioLimit.map { .enabled(limit: .ratio($0)) } ?? .disabled)
            configuration.httpVersion = profile.allowsHTTP2 ? .automatic : .http1Only
            // A failed connection is reported at once (the caller tries the next address, or says why), instead of
            // AsyncHTTPClient retrying it with backoff until the connect timeout.
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.connectionPool.idleTimeout = TimeAmount(profile.idleTimeout)
            configuration.tlsConfiguration = tls
            if profile.allowsHTTP2 { Self.installHTTP2Handlers(&configuration, profile.streamWindow) }
            // The URL keeps the host's name (Host header, SNI, certificate check); only the address comes from here.
            configuration.dnsOverride = [host: address.ip]
            configuration.dnsOverride[host.lowercased()] = address.ip
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }

    /// Installs ``HTTP2DataCompactor`` on every HTTP/2 connection of a client, and with a `window`,
    /// ``HTTP2WindowLimiter`` after it and ``HTTP2ReadReporter`` on every stream: a stream receives at most `window`
    /// bytes before they are read, and what it holds is those bytes, not the connection's read buffers.
    private static func installHTTP2Handlers(_ configuration: inout HTTPClient.Configuration, _ window: Int?) {
        configuration.http2ConnectionDebugInitializer = { channel in
            channel.eventLoop.submit {
                let pipeline = channel.pipeline.syncOperations
                let multiplexer = try pipeline.handler(type: HTTP2StreamMultiplexer.self)
                try pipeline.addHandler(HTTP2DataCompactor(), position: .before(multiplexer))
                if let window {
                    try pipeline.addHandler(HTTP2WindowLimiter(window: window), position: .before(multiplexer))
                }
            }
        }
        guard window != nil else { return }
        configuration.http2StreamChannelDebugInitializer = { channel in
            channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(HTTP2ReadReporter(), position: .first)
            }
        }
    }

    /// The TLS settings every client shares: the system's trust roots read and parsed once. NIOSSL's default loads
    /// and parses the whole CA bundle for every client's TLS context (tens of milliseconds and about a megabyte
    /// each), which a client per host multiplied by hundreds; certificates given as values are shared by every
    /// context. The bundle is the one NIOSSL itself reads on Linux; without one, NIOSSL's default stays.
    static let tlsConfiguration: TLSConfiguration = {
        var tls = TLSConfiguration.makeClientConfiguration()
        for path in ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"]
        where FileManager.default.fileExists(atPath: path) {
            if let roots = try? NIOSSLCertificate.fromPEMFile(path), !roots.isEmpty {
                tls.trustRoots = .certificates(roots)
            }
            break
        }
        return tls
    }()

    /// True for an error that says this address did not connect (so another address may).
    static func isConnectFailure(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError:
            return error == .connectTimeout
        case let error as IOError:
            return [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, ETIMEDOUT, EADDRNOTAVAIL].contains(error.errnoCode)
        case is NIOConnectionError:
            return true
        case ChannelError.connectTimeout:
            return true
        default:
            return false
        }
    }
}
