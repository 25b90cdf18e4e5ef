public import Foundation
import Glibc
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix

/// One request the test server received.
public struct TestRequest: Sendable {
    public var method: String
    public var path: String
    /// Header names lower-cased.
    public var headers: [String: String]
    public var receivedAt: Date
    /// The request's body (up to 1 MiB), e.g. a JSON-RPC call.
    public var body: [UInt8] = []
}

/// How the server misbehaves while answering (issue #5's fault list, and the reliability tests' hostile servers).
///
/// Every faulty response closes its connection when it is done. Pair a fault that is about the bytes on the wire
/// (a declared length, a cut body) with ``TestResponse/compressible`` `false`, or a client that accepts gzip gets a
/// chunked, compressed body instead.
public enum TestFault: Sendable {
    /// Send the body in chunks of `bytes`, waiting `delay` between them.
    case trickle(bytes: Int, delay: Duration)
    /// Announce the full Content-Length, send `afterBytes` of the body, then nothing, holding the connection open
    /// until the client gives up or the server shuts down.
    case stall(afterBytes: Int)
    /// Announce the full Content-Length, send `afterBytes` of the body, then reset the connection (a TCP RST, from
    /// `SO_LINGER` 0, not a clean close).
    case reset(afterBytes: Int)
    /// Announce the full Content-Length, send `afterBytes`, then close cleanly (FIN).
    case shortBody(afterBytes: Int)
    /// Stream `bytes` of body generated on the fly (never held in memory), as fast as the client reads.
    case huge(bytes: Int)
    /// Announce a `Content-Length` of `length`, send the body (shorter), then hold the connection open.
    case declaredLength(Int)
    /// Send these exact bytes as the whole response (status line and headers included, nothing of the server's
    /// own), then close: for answers that are not HTTP, or HTTP that NIO would not write.
    case raw([UInt8])
}

/// A header the server's own handler adds to keep the compressor away from a response; never sent.
let rawResponseMarker = "X-Test-Uncompressed"

/// An answer the server gives.
public struct TestResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    public var fault: TestFault?
    /// Wait this long before answering at all.
    public var delay: Duration?
    /// Answer only once the test releases this gate (after `delay`, if both are given).
    public var gate: TestGate?
    /// Whether the body may be gzipped for a client that accepts it (the default). When false it goes out exactly as
    /// given, with the `Content-Length` the fault declares.
    public var compressible: Bool

    /// An answer with these bytes as its body.
    public init(
        status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = [], fault: TestFault? = nil,
        delay: Duration? = nil,
        compressible: Bool = true,
        gate: TestGate? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.fault = fault
        self.delay = delay
        self.compressible = compressible
        self.gate = gate
    }

    /// An answer with `text`, in UTF-8, as its body.
    public init(
        status: Int = 200, headers: [(String, String)] = [], text: String, fault: TestFault? = nil,
        delay: Duration? = nil,
        compressible: Bool = true
    ) {
        self.init(
            status: status, headers: headers, body: Array(text.utf8), fault: fault, delay: delay,
            compressible: compressible)
    }

    /// A redirect to `location` (a path on this server or an absolute URL).
    public static func redirect(_ status: Int, to location: String) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)])
    }
}

/// A real HTTP/1.1 server on 127.0.0.1 (port 0) for tests: routes set at run time, real conditional GET and gzip for
/// feeds, faults on demand, and a record of every request (and of how many were in flight at once).
///
/// ## Why this class is `@unchecked Sendable`
/// Its mutable state lives in `state`, a `NIOLockedValueBox`; the channel and group are set once in `start()`.
public final class TestHTTPServer: @unchecked Sendable {
    struct State {
        var routes: [String: @Sendable (TestRequest) -> TestResponse] = [:]
        var requests: [TestRequest] = []
        var inFlight = 0
        var maxInFlight = 0
        var closedConnections = 0
        var openedConnections = 0
    }

    let state = NIOLockedValueBox(State())
    private let group: MultiThreadedEventLoopGroup
    private var channel: (any Channel)?

    /// The port the server listens on.
    public private(set) var port = 0

    private init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    /// Starts a server on 127.0.0.1 on a free port.
    public static func start() async throws -> TestHTTPServer {
        let server = TestHTTPServer()
        let bootstrap = ServerBootstrap(group: server.group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    // A response that already names its Content-Encoding (a test's own gzip bytes), or one whose
                    // declared length is the point of the test, goes out as is.
                    try channel.pipeline.syncOperations.addHandler(
                        HTTPResponseCompressor(responseCompressionPredicate: { head, _ in
                            let raw = head.headers.contains(name: rawResponseMarker)
                            head.headers.remove(name: rawResponseMarker)
                            return raw || head.headers.contains(name: "Content-Encoding")
                                ? .doNotCompress : .compressIfPossible
                        }))
                    try channel.pipeline.syncOperations.addHandler(RequestHandler(server: server))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        server.channel = channel
        server.port = channel.localAddress?.port ?? 0
        return server
    }

    /// Stops the server, closing open (even stalled) connections.
    public func shutdown() async throws {
        try? await channel?.close()
        try await group.shutdownGracefully()
    }

    /// The absolute URL of a path on this server.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Answers `path` with a fixed response.
    public func setRoute(_ path: String, _ response: TestResponse) {
        setRoute(path) { _ in response }
    }

    /// Answers `path` by calling `handler` for each request.
    public func setRoute(_ path: String, handler: @escaping @Sendable (TestRequest) -> TestResponse) {
        state.withLockedValue { $0.routes[path] = handler }
    }

    /// Serves a feed with a real `ETag` (a hash of the body) and `Last-Modified`, answering 304 to a matching
    /// `If-None-Match` / `If-Modified-Since`. Gzip is applied when the client accepts it. Call again to change it.
    public func serveFeed(
        _ path: String, _ body: String, lastModified: String = "Tue, 12 Nov 2024 05:00:00 GMT",
        contentType: String = "application/rss+xml; charset=utf-8", etag: Bool = true,
        extraHeaders: [(String, String)] = []
    ) {
        let bytes = Array(body.utf8)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let tag = "\"\(String(hash, radix: 16))\""
        setRoute(path) { request in
            var headers: [(String, String)] =
                [("Content-Type", contentType), ("Last-Modified", lastModified)] + extraHeaders
            if etag { headers.append(("ETag", tag)) }
            if let match = request.headers["if-none-match"], etag {
                if match == tag { return TestResponse(status: 304, headers: headers) }
            } else if let since = request.headers["if-modified-since"], since == lastModified {
                return TestResponse(status: 304, headers: headers)
            }
            return TestResponse(status: 200, headers: headers, body: bytes)
        }
    }

    /// Serves `body` with a fixed `ETag`, answering 304 to an `If-None-Match` that names it. Nothing else: no
    /// `Last-Modified`, no gzip, so the ETag a client stores says exactly which version of the body it holds.
    public func serveVersioned(
        _ path: String, _ body: [UInt8], etag: String, contentType: String = "application/rss+xml"
    ) {
        setRoute(path) { request in
            let headers = [("Content-Type", contentType), ("ETag", etag)]
            if request.headers["if-none-match"] == etag {
                return TestResponse(status: 304, headers: headers, compressible: false)
            }
            return TestResponse(status: 200, headers: headers, body: body, compressible: false)
        }
    }

    /// Every request received so far, in order.
    public var requests: [TestRequest] { state.withLockedValue { $0.requests } }

    /// Requests for one path.
    public func requests(to path: String) -> [TestRequest] { requests.filter { $0.path == path } }

    /// The most requests that were being answered at the same time.
    public var maxConcurrentRequests: Int { state.withLockedValue { $0.maxInFlight } }

    /// How many connections have been closed so far (by either side).
    public var closedConnections: Int { state.withLockedValue { $0.closedConnections } }

    /// How many connections have been accepted so far.
    public var openedConnections: Int { state.withLockedValue { $0.openedConnections } }

    func connectionOpened() {
        state.withLockedValue { $0.openedConnections += 1 }
    }

    func connectionClosed() {
        state.withLockedValue { $0.closedConnections += 1 }
    }

    func begin(_ request: TestRequest) -> TestResponse {
        state.withLockedValue { state in
            state.requests.append(request)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            let path = String(request.path.split(separator: "?", maxSplits: 1).first ?? "")
            guard let route = state.routes[request.path] ?? state.routes[path] else {
                return TestResponse(status: 404, text: "not found")
            }
            return route(request)
        }
    }

    func end() {
        state.withLockedValue { $0.inFlight -= 1 }
    }
}

/// Answers one connection's requests.
final class RequestHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    // Confined to the channel's event loop.
    private let server: TestHTTPServer
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(server: TestHTTPServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(let buffer):
            if body.count < 1 << 20 { body.append(contentsOf: buffer.readableBytesView.prefix((1 << 20) - body.count)) }
        case .end:
            guard let head else { return }
            self.head = nil
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let request = TestRequest(
                method: "\(head.method)", path: head.uri, headers: headers, receivedAt: Date(), body: body)
            body = []
            let response = server.begin(request)
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            let keepAlive = head.isKeepAlive
            if let gate = response.gate {
                gate.whenReleased {
                    loop.execute {
                        let (handler, context) = bound.value
                        handler.respond(response, keepAlive: keepAlive, context: context)
                    }
                }
            } else if let delay = response.delay {
                loop.scheduleTask(
                    in: .nanoseconds(
                        Int64(delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
                ) {
                    let (handler, context) = bound.value
                    handler.respond(response, keepAlive: head.isKeepAlive, context: context)
                }
            } else {
                respond(response, keepAlive: head.isKeepAlive, context: context)
            }
        }
    }

    private func respond(_ response: TestResponse, keepAlive: Bool, context: ChannelHandlerContext) {
        let closeLater = NIOLoopBound(context, eventLoop: context.eventLoop)
        if case .raw(let bytes) = response.fault { return writeRaw(bytes, context: context) }
        var headers = HTTPHeaders(response.headers)
        let total: Int
        switch response.fault {
        case .huge(let bytes), .declaredLength(let bytes): total = bytes
        default: total = response.body.count
        }
        if response.status != 304 && response.status != 204 {
            headers.replaceOrAdd(name: "Content-Length", value: String(total))
        }
        if case .declaredLength = response.fault { headers.add(name: rawResponseMarker, value: "1") }
        if !response.compressible { headers.add(name: rawResponseMarker, value: "1") }
        let faulty = response.fault != nil
        if !keepAlive || faulty { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let server = self.server
        switch response.fault {
        case nil:
            if !response.body.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                server.end()
                if !keepAlive { closeLater.value.close(promise: nil) }
            }
        case .trickle(let size, let delay):
            trickle(response.body[...], size: max(1, size), delay: delay, context: context)
        case .declaredLength:
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body))))).whenComplete {
                _ in
                server.end()
            }
        case .stall(let after):
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body.prefix(after))))))
                .whenComplete { _ in
                    server.end()
                }
        case .reset(let after):
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body.prefix(after))))))
                .whenComplete { _ in
                    server.end()
                    // Give the client a moment to read what was sent, then reset: SO_LINGER 0 turns close() into a RST.
                    let context = closeLater.value
                    context.eventLoop.scheduleTask(in: .milliseconds(50)) {
                        let context = closeLater.value
                        guard let provider = context.channel as? any SocketOptionProvider else {
                            return context.close(promise: nil)
                        }
                        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
                            closeLater.value.close(promise: nil)
                        }
                    }
                }
        case .shortBody(let after):
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body.prefix(after))))))
                .whenComplete { _ in
                    server.end()
                    closeLater.value.close(promise: nil)
                }
        case .raw:
            preconditionFailure("answered by writeRaw")
        case .huge(let bytes):
            streamHuge(
                remaining: bytes,
                seed: response.body.isEmpty ? Array("<rss><channel><title>x</title>".utf8) : response.body,
                context: context)
        }
    }

    /// Writes `bytes` beneath the HTTP encoder (straight to the socket), then closes.
    private func writeRaw(_ bytes: [UInt8], context: ChannelHandlerContext) {
        let closeLater = NIOLoopBound(context, eventLoop: context.eventLoop)
        let server = self.server
        guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
            server.end()
            return context.close(promise: nil)
        }
        encoder.writeAndFlush(NIOAny(ByteBuffer(bytes: bytes))).whenComplete { _ in
            server.end()
            closeLater.value.close(promise: nil)
        }
    }

    private func trickle(_ rest: ArraySlice<UInt8>, size: Int, delay: Duration, context: ChannelHandlerContext) {
        let closeLater = NIOLoopBound(context, eventLoop: context.eventLoop)
        guard context.channel.isActive else { return server.end() }
        if rest.isEmpty {
            let server = self.server
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                server.end()
                closeLater.value.close(promise: nil)
            }
            return
        }
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: rest.prefix(size))))), promise: nil)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let next = rest.dropFirst(size)
        if next.isEmpty {
            // The last byte is out: the response ends now, not one delay later (the client is already done).
            return trickle(next, size: size, delay: delay, context: context)
        }
        context.eventLoop.scheduleTask(
            in: .nanoseconds(
                Int64(delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
        ) {
            let (handler, context) = bound.value
            handler.trickle(next, size: size, delay: delay, context: context)
        }
    }

    private func streamHuge(remaining: Int, seed: [UInt8], context: ChannelHandlerContext) {
        let closeLater = NIOLoopBound(context, eventLoop: context.eventLoop)
        guard context.channel.isActive else { return server.end() }
        if remaining <= 0 {
            let server = self.server
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                server.end()
                closeLater.value.close(promise: nil)
            }
            return
        }
        var chunk = ByteBuffer()
        let size = min(remaining, 256 * 1024)
        while chunk.readableBytes < size {
            let piece = seed.prefix(size - chunk.readableBytes)
            chunk.writeBytes(piece.isEmpty ? [0x20] : Array(piece))
            if seed.count < size {
                chunk.writeBytes(Array("<item><title>filler</title></item>".utf8).prefix(size - chunk.readableBytes))
            }
        }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk)))).whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .success:
                handler.streamHuge(
                    remaining: remaining - size, seed: Array("<item><title>filler</title></item>".utf8),
                    context: context)
            case .failure: handler.server.end()
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelActive(context: ChannelHandlerContext) {
        server.connectionOpened()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.connectionClosed()
        context.fireChannelInactive()
    }
}

/// Starts a ``TestHTTPServer``, runs `body` with it, and shuts the server down however `body` ends.
public func withTestHTTPServer<R>(_ body: (TestHTTPServer) async throws -> R) async throws -> R {
    try await withClosing(try await TestHTTPServer.start(), close: { try await $0.shutdown() }, body)
}

/// Holds answers back until the test releases it: an answer in flight for exactly as long as the test needs, however
/// long the test's own tasks wait for a thread on a busy machine.
public final class TestGate: Sendable {
    private struct State {
        var open = false
        var waiting: [@Sendable () -> Void] = []
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Lets every held answer go, and every later one at once.
    public func release() {
        let waiting = state.withLockedValue { state -> [@Sendable () -> Void] in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for answer in waiting { answer() }
    }

    func whenReleased(_ answer: @escaping @Sendable () -> Void) {
        let now = state.withLockedValue { state -> Bool in
            if state.open { return true }
            state.waiting.append(answer)
            return false
        }
        if now { answer() }
    }
}
