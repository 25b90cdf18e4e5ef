import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Plain HTTP/1.1 on the control address: `GET /stats` returns the counters as JSON, `/reset` returns them and then
/// zeroes them (between a cold and a warm run), `/mode/NAME` switches how the hosts answer (``ServingMode``).
enum ControlServer {
    static func start(
        group: any EventLoopGroup, address: String, port: Int, statistics: Statistics
    ) async throws
        -> any Channel
    {
        try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(ControlHandler(statistics: statistics))
                }
            }
            .bind(host: address, port: port).get()
    }
}

final class ControlHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let statistics: Statistics
    private var uri: String?

    init(statistics: Statistics) { self.statistics = statistics }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): uri = head.uri
        case .body: break
        case .end:
            let body: Data
            var status = HTTPResponseStatus.ok
            switch uri {
            case "/stats": body = statistics.json()
            case "/reset":
                body = statistics.json()
                statistics.reset()
            case let uri? where uri.hasPrefix("/mode/"):
                // How the hosts answer from now on (ServingMode).
                if ServingMode.shared.set(String(uri.dropFirst("/mode/".count))) {
                    body = Data("{}".utf8)
                } else {
                    status = .badRequest
                    body = Data("modes: normal, unconditional, changed, mixed\n".utf8)
                }
            default:
                status = .notFound
                body = Data("GET /stats, /reset or /mode/NAME\n".utf8)
            }
            var headers = HTTPHeaders()
            headers.add(name: "content-type", value: "application/json")
            headers.add(name: "content-length", value: String(body.count))
            context.write(
                wrapOutboundOut(.head(.init(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
