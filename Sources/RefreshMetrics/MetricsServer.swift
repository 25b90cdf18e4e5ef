import Measures
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server that answers `GET /metrics` (and `HEAD`) with Prometheus' text format, and nothing else.
///
/// swift-prometheus has no server of its own; this one is a few NIO handlers around an `exposition` closure (usually
/// ``FetchMetrics/exposition()``), called once per scrape. Any other path is 404, any other method 405.
///
/// Its lifetime is structured: ``serve(at:exposition:body:)`` binds, serves while `body` runs, and closes the
/// listening socket and every connection when `body` returns or throws, or when the calling task is cancelled.
public struct MetricsServer: Sendable {
    /// The address bound, with the real port when port 0 was asked for.
    public let address: MetricsAddress

    /// Where the metrics are, e.g. `http://127.0.0.1:9464/metrics`.
    public var url: String { "http://\(address)/metrics" }

    /// The content type of Prometheus' text exposition format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Binds `address`, serves `/metrics` while `body` runs, and stops serving when it returns.
    ///
    /// - Parameters:
    ///   - address: What to bind; only that.
    ///   - exposition: The body of each answer to `GET /metrics`.
    ///   - body: Runs while the server serves; it is given the bound address.
    /// - Returns: What `body` returned.
    /// - Throws: ``MetricsServerError`` when the address cannot be bound (taken, not local, unknown host), or what
    ///   `body` threw.
    public static func serve<Result: Sendable>(
        at address: MetricsAddress,
        exposition: @escaping @Sendable () async -> [UInt8],
        body: (MetricsServer) async throws -> Result
    ) async throws -> Result {
        let listener: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        do {
            listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .bind(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                            wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw MetricsServerError(address: address, cause: error)
        }
        var bound = address
        bound.port = listener.channel.localAddress?.port ?? address.port
        let server = MetricsServer(address: bound)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await accept(listener, exposition: exposition) }
            // A throwing body cancels the accept loop through the group; a returning one cancels it here.
            let result = try await body(server)
            group.cancelAll()
            return result
        }
    }

    /// Accepts connections until the task is cancelled, answering each in a child task; then closes the listener,
    /// which ends every connection's stream too.
    private static func accept(
        _ listener: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>,
        exposition: @escaping @Sendable () async -> [UInt8]
    ) async {
        try? await withTaskCancellationHandler {
            try await listener.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        group.addTask { await answer(connection, exposition: exposition) }
                    }
                }
            }
        } onCancel: {
            listener.channel.close(promise: nil)
        }
    }

    /// Answers the requests of one connection, one after the other, until the client closes it, asks to close it,
    /// or the server stops. Never throws: one connection's trouble is not the server's.
    private static func answer(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>,
        exposition: @escaping @Sendable () async -> [UInt8]
    ) async {
        try? await withTaskCancellationHandler {
            try await connection.executeThenClose { requests, responses in
                var head: HTTPRequestHead?
                for try await part in requests {
                    switch part {
                    case .head(let requestHead):
                        head = requestHead
                    case .body:
                        continue
                    case .end:
                        guard let request = head else { continue }
                        head = nil
                        let response = await respond(to: request, exposition: exposition)
                        var headers = HTTPHeaders()
                        headers.add(name: "Content-Type", value: response.contentType)
                        headers.add(name: "Content-Length", value: "\(response.body.count)")
                        if let allow = response.allow { headers.add(name: "Allow", value: allow) }
                        if !request.isKeepAlive { headers.add(name: "Connection", value: "close") }
                        try await responses.write(
                            .head(HTTPResponseHead(version: request.version, status: response.status, headers: headers))
                        )
                        if request.method != .HEAD {
                            try await responses.write(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
                        }
                        try await responses.write(.end(nil))
                        if !request.isKeepAlive { return }
                    }
                }
            }
        } onCancel: {
            connection.channel.close(promise: nil)
        }
    }

    private struct Response {
        var status: HTTPResponseStatus
        var contentType: String
        var body: [UInt8]
        var allow: String?
    }

    private static func respond(
        to request: HTTPRequestHead, exposition: @Sendable () async -> [UInt8]
    ) async -> Response {
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path == "/metrics" else {
            return Response(
                status: .notFound, contentType: "text/plain; charset=utf-8",
                body: Array("metrics are at /metrics\n".utf8))
        }
        guard request.method == .GET || request.method == .HEAD else {
            return Response(
                status: .methodNotAllowed, contentType: "text/plain; charset=utf-8",
                body: Array("use GET or HEAD\n".utf8), allow: "GET, HEAD")
        }
        return Response(status: .ok, contentType: contentType, body: await exposition())
    }
}

/// The metrics server could not listen on its address: the address and a typed ``Reason``; ConsoleOutput words it
/// (`MetricsText`).
public struct MetricsServerError: Error, CustomStringConvertible {
    /// Why the address could not be bound.
    public enum Reason: Sendable, Hashable {
        /// The system refused, with this `errno` (`EADDRINUSE`: the port is taken; `EADDRNOTAVAIL`: no interface
        /// has that address; `EACCES`: a port below 1024 needs privileges).
        case system(errno: Int32)
        /// The host name could not be resolved to an address.
        case unknownHost
        /// Something else: the error, named by `ErrorWords` (its description, or its type).
        case other(String)
    }

    /// The address that could not be bound.
    public let address: MetricsAddress
    /// Why.
    public let reason: Reason
    /// The error NIO reported.
    public let cause: any Error

    init(address: MetricsAddress, cause: any Error) {
        self.address = address
        self.cause = cause
        if let error = cause as? IOError {
            reason = .system(errno: error.errnoCode)
        } else if cause is SocketAddressError.UnknownHost {
            reason = .unknownHost
        } else {
            reason = .other(ErrorWords.describe(cause))
        }
    }

    /// For logs and debugging only; ConsoleOutput words the reason for users.
    public var description: String { "MetricsServerError(\(address), \(reason))" }
}
