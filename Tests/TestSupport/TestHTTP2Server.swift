public import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTPS server on 127.0.0.1 (port 0) that speaks HTTP/2 only (ALPN `h2`), with a certificate of its own
/// (``certificatePEM``, for the client to trust). It counts connections and streams, names a stream limit in its
/// settings as real servers do, and answers by path:
///
/// - `/feed/NAME`: a small RSS feed titled NAME.
/// - `/gather/NAME`: the same feed, held until `gather` such requests are open at once (then all are answered): a
///   client that does not send them side by side never gets an answer.
/// - `/reset/NAME`: a head and one chunk of body, then `RST_STREAM` with `INTERNAL_ERROR`.
/// - `/large/BYTES`: a body of BYTES bytes, all handed to HTTP/2 at once. The server then measures how much the
///   client let it send: it sends a `PING` and, when the answer comes (after every frame the client sent before it),
///   again until the stream's credit (the client's initial window plus its `WINDOW_UPDATE`s) stops growing; that
///   credit is ``credit(for:)``. A client that opens the window only as its reader reads grants little to a reader
///   that has not started; one that opens it as bytes arrive grants the whole body.
///
/// ## Why this class is `@unchecked Sendable`
/// Its counters live in a `NIOLockedValueBox`; the channel, group and port are set once in `start()`.
public final class TestHTTP2Server: @unchecked Sendable {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var channel: (any Channel)?
    private let state = NIOLockedValueBox(State())
    /// The stream limit the server names in its settings.
    public let maxConcurrentStreams: Int
    /// How many `/gather/` requests must be open at once before any is answered.
    public let gather: Int
    /// The server's certificate, as PEM text.
    public let certificatePEM: String

    /// The port the server listens on.
    public private(set) var port = 0

    struct State {
        var connections = 0
        var streams = 0
        var open = 0
        var mostOpen = 0
        var waiting: [EventLoopPromise<Void>] = []
        var credit: [String: Int] = [:]
    }

    private init(maxConcurrentStreams: Int, gather: Int, certificatePEM: String) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.gather = gather
        self.certificatePEM = certificatePEM
    }

    /// Connections accepted so far.
    public var connectionCount: Int { state.withLockedValue { $0.connections } }
    /// Streams (requests) opened so far, on all connections.
    public var streamCount: Int { state.withLockedValue { $0.streams } }
    /// The most streams open at the same time.
    public var mostStreamsAtOnce: Int { state.withLockedValue { $0.mostOpen } }

    /// The credit the client granted the `/large/` stream of `path` once it stopped growing (see the type's
    /// description), or nil before then.
    public func credit(for path: String) -> Int? {
        state.withLockedValue { $0.credit[path] }
    }

    /// Starts the server on 127.0.0.1 on a free port.
    public static func start(maxConcurrentStreams: Int = 100, gather: Int = 1) async throws -> TestHTTP2Server {
        let made = try TestCertificate.make()
        let server = TestHTTP2Server(
            maxConcurrentStreams: maxConcurrentStreams, gather: gather, certificatePEM: made.pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(made.certificate)], privateKey: .privateKey(made.key))
        configuration.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: configuration)
        let settings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 1 << 16),
        ]
        let bootstrap = ServerBootstrap(group: server.group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                server.state.withLockedValue { $0.connections += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(NIOSSLServerHandler(context: context))
                    try pipeline.addHandler(NIOHTTP2Handler(mode: .server, initialSettings: settings))
                    try pipeline.addHandler(CreditWatcher(server: server))
                    try pipeline.addHandler(
                        HTTP2StreamMultiplexer(
                            mode: .server, channel: channel, targetWindowSize: 1 << 20,
                            outboundBufferSizeHighWatermark: 1 << 16, outboundBufferSizeLowWatermark: 1 << 15,
                            inboundStreamInitializer: { stream in
                                server.streamOpened()
                                stream.closeFuture.whenComplete { _ in server.streamClosed() }
                                return stream.eventLoop.makeCompletedFuture {
                                    try stream.pipeline.syncOperations.addHandler(StreamResponder(server: server))
                                }
                            }))
                }
            }
        (server.channel, server.port) = try await LoopbackHTTPS.bind(bootstrap)
        return server
    }

    /// An https URL on this server.
    public func url(_ path: String) -> URL { LoopbackHTTPS.url(port: port, path) }

    /// Stops the server.
    public func shutdown() async throws { try await LoopbackHTTPS.shutdown(channel, group: group) }

    fileprivate func streamOpened() {
        state.withLockedValue {
            $0.streams += 1
            $0.open += 1
            $0.mostOpen = max($0.mostOpen, $0.open)
        }
    }

    fileprivate func streamClosed() {
        state.withLockedValue { $0.open -= 1 }
    }

    /// Holds a `/gather/` answer until `gather` of them wait, then lets all of them go.
    fileprivate func gathered(_ promise: EventLoopPromise<Void>) {
        let ready: [EventLoopPromise<Void>] = state.withLockedValue {
            $0.waiting.append(promise)
            guard $0.waiting.count >= gather else { return [] }
            let all = $0.waiting
            $0.waiting.removeAll()
            return all
        }
        for waiting in ready { waiting.succeed(()) }
    }

    fileprivate func settled(path: String, credit: Int) {
        state.withLockedValue { $0.credit[path] = credit }
    }

    /// A small RSS feed titled `name`.
    static func feed(_ name: String) -> String {
        """
        <?xml version="1.0"?><rss version="2.0"><channel><title>\(name)</title>\
        <item><guid>\(name)-1</guid><title>Episode 1</title></item></channel></rss>
        """
    }
}

/// Runs `body` with a new ``TestHTTP2Server`` and shuts the server down before returning, whether `body` throws or
/// not.
public func withTestHTTP2Server<R>(
    maxConcurrentStreams: Int = 100, gather: Int = 1, _ body: (TestHTTP2Server) async throws -> R
) async throws -> R {
    try await withClosing(
        try await TestHTTP2Server.start(maxConcurrentStreams: maxConcurrentStreams, gather: gather),
        close: { try await $0.shutdown() }, body)
}

/// Answers the one request of a stream by its path (see ``TestHTTP2Server``).
private final class StreamResponder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let server: TestHTTP2Server
    private var answered = false

    init(server: TestHTTP2Server) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .headers(let request) = unwrapInboundIn(data), !answered else { return }
        answered = true
        let path = request.headers.first(name: ":path") ?? "/"
        let parts = path.split(separator: "/").map(String.init)
        let name = parts.count > 1 ? parts[1] : ""
        switch parts.first ?? "" {
        case "gather":
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.assumeIsolated().whenSuccess { [self] in
                respond(context: context, body: TestHTTP2Server.feed(name))
            }
            server.gathered(promise)
        case "reset":
            context.write(wrapOutboundOut(.headers(.init(headers: head(length: nil)))), promise: nil)
            let chunk = ByteBuffer(string: "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel>")
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(chunk)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.rstStream(.internalError)), promise: nil)
        case "large":
            sendLarge(context: context, path: path, count: Int(name) ?? 0)
        default:
            respond(context: context, body: TestHTTP2Server.feed(name))
        }
    }

    private func head(length: Int?) -> HPACKHeaders {
        var headers: HPACKHeaders = [":status": "200", "content-type": "application/rss+xml"]
        if let length { headers.add(name: "content-length", value: String(length)) }
        return headers
    }

    private func respond(context: ChannelHandlerContext, body: String) {
        let bytes = ByteBuffer(string: body)
        context.write(wrapOutboundOut(.headers(.init(headers: head(length: bytes.readableBytes)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(bytes), endStream: true))), promise: nil)
    }

    private func sendLarge(context: ChannelHandlerContext, path: String, count: Int) {
        guard
            let stream = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID),
            let watcher = try? context.channel.parent?.pipeline.syncOperations.handler(type: CreditWatcher.self)
        else { return }
        context.write(wrapOutboundOut(.headers(.init(headers: head(length: count)))), promise: nil)
        // Settling starts once the first frame of the body is on the wire (child streams' writes reach the connection
        // later, at its next flush): the client answers it before it answers the first `PING`.
        let firstSent = context.eventLoop.makePromise(of: Void.self)
        firstSent.futureResult.assumeIsolated().whenSuccess { _ in watcher.settle(stream: stream, path: path) }
        let frame = 16 * 1024
        var sent = 0
        while sent < count {
            let size = min(frame, count - sent)
            sent += size
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: size)
            context.write(
                wrapOutboundOut(.data(.init(data: .byteBuffer(chunk), endStream: sent == count))),
                promise: sent == size ? firstSent : nil)
        }
        context.flush()
    }
}

/// Sits between the connection's HTTP/2 handler and its stream multiplexer: adds up the credit the client grants each
/// stream, and settles a `/large/` stream's credit by rounds of `PING` (see ``TestHTTP2Server``).
private final class CreditWatcher: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let server: TestHTTP2Server
    private var context: ChannelHandlerContext?
    /// The client's initial stream window (its settings).
    private var initialWindow = 65_535
    /// Each stream's `WINDOW_UPDATE`s, added up.
    private var increments: [HTTP2StreamID: Int] = [:]
    /// The stream being settled, its path and its credit when the last `PING` went out.
    private var settling: [(stream: HTTP2StreamID, path: String, credit: Int)] = []
    private var pings: UInt64 = 0

    init(server: TestHTTP2Server) {
        self.server = server
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            if let window = settings.last(where: { $0.parameter == .initialWindowSize }) {
                initialWindow = window.value
            }
        case .windowUpdate(let increment) where frame.streamID != .rootStream:
            increments[frame.streamID, default: 0] += increment
        case .ping(_, ack: true):
            roundEnded()
        default:
            break
        }
        context.fireChannelRead(data)
    }

    private func credit(_ stream: HTTP2StreamID) -> Int {
        initialWindow + increments[stream, default: 0]
    }

    /// Starts settling `stream`'s credit.
    func settle(stream: HTTP2StreamID, path: String) {
        settling.append((stream, path, credit(stream)))
        ping()
    }

    private func ping() {
        guard let context else { return }
        pings += 1
        let frame = HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: pings), ack: false))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    /// A `PING` came back: every frame the client sent before its answer has arrived. A credit that grew is watched
    /// for another round; one that did not is settled.
    private func roundEnded() {
        var again = false
        settling = settling.compactMap { entry in
            let now = credit(entry.stream)
            if now == entry.credit {
                server.settled(path: entry.path, credit: now)
                return nil
            }
            again = true
            return (entry.stream, entry.path, now)
        }
        if again { ping() }
    }
}
