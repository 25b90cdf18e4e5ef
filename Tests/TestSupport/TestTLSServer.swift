public import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An https server on 127.0.0.1 (port 0) whose certificate is self-signed, made with `openssl` when it starts: a
/// client that verifies certificates must refuse it. It counts the connections (TLS handshakes begun) it accepts.
///
/// ## Why this class is `@unchecked Sendable`
/// The connection count lives in a `NIOLockedValueBox`; the channel, group and port are set once in `start()`.
public final class TestTLSServer: @unchecked Sendable {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var channel: (any Channel)?
    private let accepted = NIOLockedValueBox(0)

    /// The port the server listens on.
    public private(set) var port = 0

    /// Connections accepted so far; each is one TLS handshake begun.
    public var connectionCount: Int { accepted.withLockedValue { $0 } }

    private init() {}

    /// Starts the server on 127.0.0.1 on a free port. It answers `200 ok` to a client that accepts its certificate.
    public static func start() async throws -> TestTLSServer {
        let server = TestTLSServer()
        let made = try TestCertificate.make()
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(made.certificate)],
            privateKey: .privateKey(made.key)
        )
        let context = try NIOSSLContext(configuration: configuration)
        let bootstrap = ServerBootstrap(group: server.group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                server.accepted.withLockedValue { $0 += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(OKHandler())
                }
            }
        (server.channel, server.port) = try await LoopbackHTTPS.bind(bootstrap)
        return server
    }

    /// An https URL on this server.
    public func url(_ path: String) -> URL { LoopbackHTTPS.url(port: port, path) }

    /// Stops the server.
    public func shutdown() async throws { try await LoopbackHTTPS.shutdown(channel, group: group) }
}

/// Why the TLS test server could not start.
public struct TestTLSServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Answers every request with `200 ok`.
private final class OKHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "2"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "ok")))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Runs `body` with a new ``TestTLSServer`` and shuts the server down before returning, whether `body` throws or not.
public func withTestTLSServer<R>(_ body: (TestTLSServer) async throws -> R) async throws -> R {
    try await withClosing(try await TestTLSServer.start(), close: { try await $0.shutdown() }, body)
}
