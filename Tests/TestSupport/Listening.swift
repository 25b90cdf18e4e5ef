import NIOCore
import NIOPosix

/// Whether something accepts TCP connections on `host:port` now: one connection attempt, closed at once. A refused
/// connection answers false right away (an HTTP client would keep retrying until its deadline).
public func acceptsConnections(host: String, port: Int) async -> Bool {
    do {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port).get()
        try? await channel.close()
        return true
    } catch {
        return false
    }
}
