import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// Every host's feeds, its delays and its rate cap, shared read-only by all connections.
struct Site: Sendable {
    var host: Layout.Host
    var feeds: [String: Layout.Feed]
    var bytesPerSecond: Int
}

/// What every request handler needs: the sites by name, the files and the counters.
struct WebContext: Sendable {
    var sites: [String: Site]
    var files: FileStore
    var statistics: Statistics
}

/// Starts a listener for every host not marked refuse: HTTP/1.1 on port 80 of its own address, or HTTPS on 443 (with
/// ALPN h2 for hosts marked h2).
enum WebHosts {
    static func start(
        layout: Layout, context: WebContext, group: any EventLoopGroup, certificate: String?, key: String?
    ) async throws -> [any Channel] {
        var h1TLS: NIOSSLContext?
        var h2TLS: NIOSSLContext?
        if layout.hosts.contains(where: { $0.tls && !$0.refuse }) {
            guard let certificate, let key else {
                throw NetSimError("a host is marked tls: give --cert and --key")
            }
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain, privateKey: .privateKey(privateKey))
            configuration.applicationProtocols = ["http/1.1"]
            h1TLS = try NIOSSLContext(configuration: configuration)
            configuration.applicationProtocols = ["h2", "http/1.1"]
            h2TLS = try NIOSSLContext(configuration: configuration)
        }
        var channels: [any Channel] = []
        for host in layout.hosts where !host.refuse && host.dns == .ok {
            let tls = host.tls ? (host.h2 ? h2TLS : h1TLS) : nil
            let name = host.name
            let h2 = host.tls && host.h2
            let maxStreams = host.h2MaxStreams
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 1024)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    context.statistics.connectionOpened(host: name)
                    channel.closeFuture.whenComplete { _ in context.statistics.connectionClosed(host: name) }
                    return configure(
                        channel: channel, tls: tls, h2: h2, maxStreams: maxStreams, name: name, context: context)
                }
            do {
                channels.append(try await bootstrap.bind(host: host.address, port: host.tls ? 443 : 80).get())
            } catch {
                throw NetSimError("cannot listen on \(host.address):\(host.tls ? 443 : 80) for \(name): \(error)")
            }
        }
        return channels
    }

    private static func configure(
        channel: any Channel, tls: NIOSSLContext?, h2: Bool, maxStreams: Int, name: String, context: WebContext
    ) -> EventLoopFuture<Void> {
        let http1: NIOChannelInitializer = { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                try channel.pipeline.syncOperations.addHandler(
                    RequestHandler(listener: name, h2: false, context: context))
            }
        }
        guard let tls else { return http1(channel) }
        do {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        guard h2 else { return http1(channel) }
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { channel in
                channel.eventLoop.makeCompletedFuture {
                    var streams = NIOHTTP2Handler.StreamConfiguration()
                    streams.targetWindowSize = 1 << 20
                    // The stream limit the server names, enforced as real servers do (a stream over it is refused).
                    var connection = NIOHTTP2Handler.ConnectionConfiguration()
                    connection.initialSettings =
                        connection.initialSettings.filter { $0.parameter != .maxConcurrentStreams }
                        + [HTTP2Setting(parameter: .maxConcurrentStreams, value: maxStreams)]
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: connection, streamConfiguration: streams,
                        inboundStreamInitializer: { stream in
                            stream.eventLoop.makeCompletedFuture {
                                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                                try stream.pipeline.syncOperations.addHandler(
                                    RequestHandler(listener: name, h2: true, context: context))
                            }
                        })
                }
            },
            http1ChannelConfigurator: http1)
    }
}

/// Answers one request at a time on an HTTP/1.1 connection (the pipelining handler before it holds back the next), or
/// the one request of an HTTP/2 stream: waits the feed's delay, then sends the head and the body at the rate cap.
///
/// Everything here runs on the channel's event loop; the scheduled steps are isolated to it.
final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The host whose listener took the connection: requests are counted under it.
    private let listener: String
    private let h2: Bool
    private let context: WebContext
    private var head: HTTPRequestHead?
    /// The request being answered (its path), nil between requests.
    private var answering: String?
    private var sentBytes = 0
    private var isOpen = true
    /// The request being answered is a HEAD: its answer has no body.
    private var isHead = false

    init(listener: String, h2: Bool, context: WebContext) {
        self.listener = listener
        self.h2 = h2
        self.context = context
    }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            begin(head, channelContext)
        }
    }

    func channelInactive(context channelContext: ChannelHandlerContext) {
        isOpen = false
        if let path = answering {
            context.statistics.requestFinished(host: listener, path: path, status: nil, bodyBytes: sentBytes)
            answering = nil
        }
        channelContext.fireChannelInactive()
    }

    private func begin(_ head: HTTPRequestHead, _ channelContext: ChannelHandlerContext) {
        let path = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        let hostHeader = head.headers.first(name: "host").map {
            String($0.split(separator: ":", maxSplits: 1)[0]).lowercased()
        }
        let site = hostHeader.flatMap { context.sites[$0] } ?? context.sites[listener]
        context.statistics.requestStarted(host: listener, path: path, h2: h2)
        answering = path
        sentBytes = 0
        isHead = head.method == .HEAD
        let feed = site?.feeds[path]
        let delay = feed?.delayMs ?? site?.host.delayMs ?? 0
        let loop = channelContext.eventLoop.assumeIsolated()
        if delay > 0 {
            loop.scheduleTask(in: .milliseconds(Int64(delay))) {
                self.respond(head, path: path, feed: feed, site: site, channelContext)
            }
        } else {
            respond(head, path: path, feed: feed, site: site, channelContext)
        }
    }

    private func respond(
        _ request: HTTPRequestHead, path: String, feed: Layout.Feed?, site: Site?,
        _ channelContext: ChannelHandlerContext
    ) {
        guard isOpen else { return }
        let keepAlive = h2 || request.isKeepAlive
        var headers = HTTPHeaders()
        headers.add(name: "server", value: "podfresh-netsim")
        headers.add(name: "date", value: FileStore.httpDate(Date()))
        if !h2 { headers.add(name: "connection", value: keepAlive ? "keep-alive" : "close") }
        let served = feed.flatMap(ServingMode.shared.served)
        guard let feed, feed.status == nil, let served, let entry = context.files.entry(served.file) else {
            let status = HTTPResponseStatus(statusCode: feed?.status ?? 404)
            let body = ByteBuffer(string: "\(status.code) \(status.reasonPhrase)\n")
            headers.add(name: "content-type", value: "text/plain")
            headers.add(name: "content-length", value: String(body.readableBytes))
            send(
                status: status, headers: headers, body: body, path: path, keepAlive: keepAlive, site: site,
                channelContext)
            return
        }
        if served.sendsValidators {
            headers.add(name: "etag", value: entry.etag)
            headers.add(name: "last-modified", value: entry.lastModified)
        }
        headers.add(name: "cache-control", value: "max-age=0")
        headers.add(name: "vary", value: "Accept-Encoding")
        let ifNoneMatch = request.headers[canonicalForm: "if-none-match"]
        let notModified: Bool
        if !served.honoursValidators {
            notModified = false
        } else if !ifNoneMatch.isEmpty {
            notModified = ifNoneMatch.contains { $0 == "*" || $0 == entry.etag || $0 == "W/" + entry.etag }
        } else if let since = request.headers.first(name: "if-modified-since").flatMap(FileStore.parseHTTPDate) {
            notModified = entry.modified <= since
        } else {
            notModified = false
        }
        if notModified {
            send(
                status: .notModified, headers: headers, body: nil, path: path, keepAlive: keepAlive, site: site,
                channelContext)
            return
        }
        let acceptsGzip = request.headers[canonicalForm: "accept-encoding"].contains {
            $0.lowercased().hasPrefix("gzip")
        }
        headers.add(name: "content-type", value: "application/rss+xml; charset=utf-8")
        let body: ByteBuffer
        if acceptsGzip, let gzip = entry.gzip {
            headers.add(name: "content-encoding", value: "gzip")
            body = gzip
        } else {
            body = entry.plain
        }
        headers.add(name: "content-length", value: String(body.readableBytes))
        send(status: .ok, headers: headers, body: body, path: path, keepAlive: keepAlive, site: site, channelContext)
    }

    private func send(
        status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer?, path: String, keepAlive: Bool,
        site: Site?, _ channelContext: ChannelHandlerContext
    ) {
        channelContext.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil)
        guard let body, body.readableBytes > 0, !isHead else {
            finish(status: status, path: path, keepAlive: keepAlive, channelContext)
            return
        }
        let rate = site?.bytesPerSecond ?? 0
        sendBody(body, rate: rate, start: .now(), status: status, path: path, keepAlive: keepAlive, channelContext)
    }

    /// Writes the body in slices no faster than `rate` bytes per second since `start` (all at once when 0).
    private func sendBody(
        _ remaining: ByteBuffer, rate: Int, start: NIODeadline, status: HTTPResponseStatus, path: String,
        keepAlive: Bool, _ channelContext: ChannelHandlerContext
    ) {
        guard isOpen else { return }
        var remaining = remaining
        let sliceSize = rate > 0 ? min(remaining.readableBytes, max(4096, rate / 100)) : remaining.readableBytes
        let slice = remaining.readSlice(length: sliceSize)!
        sentBytes += sliceSize
        channelContext.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
        if remaining.readableBytes == 0 {
            finish(status: status, path: path, keepAlive: keepAlive, channelContext)
            return
        }
        let due = start + .nanoseconds(Int64(Double(sentBytes) / Double(rate) * 1e9))
        let rest = remaining
        channelContext.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
            self.sendBody(
                rest, rate: rate, start: start, status: status, path: path, keepAlive: keepAlive,
                channelContext)
        }
    }

    private func finish(
        status: HTTPResponseStatus, path: String, keepAlive: Bool, _ channelContext: ChannelHandlerContext
    ) {
        let statistics = context.statistics
        let bytes = sentBytes
        let host = listener
        answering = nil
        statistics.requestFinished(host: host, path: path, status: Int(status.code), bodyBytes: bytes)
        let done = channelContext.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = channelContext.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

/// A setup problem, printed as it is.
struct NetSimError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
