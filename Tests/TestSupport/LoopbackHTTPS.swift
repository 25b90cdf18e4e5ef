import Foundation
import NIOCore
import NIOPosix

/// What the https test servers (``TestTLSServer``, ``TestHTTP2Server``) share: a listening channel on 127.0.0.1 at a
/// free port, their URLs, and their shutdown.
enum LoopbackHTTPS {
    /// Binds `bootstrap` on 127.0.0.1 to a free port.
    static func bind(_ bootstrap: ServerBootstrap) async throws -> (channel: any Channel, port: Int) {
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        return (channel, channel.localAddress?.port ?? 0)
    }

    /// An https URL on the server listening at `port`.
    static func url(port: Int, _ path: String) -> URL {
        URL(string: "https://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Closes the listening channel and ends the server's event loops.
    static func shutdown(_ channel: (any Channel)?, group: MultiThreadedEventLoopGroup) async throws {
        try? await channel?.close()
        try await group.shutdownGracefully()
    }
}
