import NIOCore
import NIOPosix

/// Whether something accepts TCP connections on `host:port` now: one connection attempt, closed at once. A refused
/// connection answers false right away (an HTTP client would keep retrying until its deadline).
public func acceptsConnections(host: String, port: Int) async -> Bool {
    do {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port).get()
        // Linux may give the connection the very port it asks for when nothing listens there any more: a TCP
        // simultaneous open of the socket with itself, which succeeds without any listener.
        let connectedToItself = channel.localAddress?.port == port
        try? await channel.close()
        return !connectedToItself
    } catch {
        return false
    }
}
