public import Foundation
import Glibc

/// A port on 127.0.0.1 where connecting times out, as it does when the network drops packets: a listening socket
/// with a backlog of 0 whose one queue slot is taken by a connection nobody accepts, so the kernel drops every further
/// SYN (Linux, `tcp_abort_on_overflow = 0`, the default). Nothing leaves the machine.
///
/// Its two descriptors are set once in `init` and closed once in `close()`, so it is `Sendable`.
public final class UnansweredPort: Sendable {
    /// The port whose connection attempts time out.
    public let port: Int
    private let listener: Int32
    private let filler: Int32

    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw UnansweredPortError(step: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 0) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            closeSocket(listener)
            throw UnansweredPortError(step: "bind/listen")
        }
        // Take the queue's one slot with a connection that is never accepted.
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected =
            filler >= 0
            && withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) == 0 }
            }
        guard connected else {
            closeSocket(listener)
            if filler >= 0 { closeSocket(filler) }
            throw UnansweredPortError(step: "filling the accept queue")
        }
        self.listener = listener
        self.filler = filler
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// An http URL on this port.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Closes both sockets.
    public func close() {
        closeSocket(filler)
        closeSocket(listener)
    }
}

/// Setting up an ``UnansweredPort`` failed.
public struct UnansweredPortError: Error, CustomStringConvertible {
    public let step: String
    public var description: String { "could not set up an unanswered port: \(step) failed (errno \(errno))" }
}

private func closeSocket(_ descriptor: Int32) {
    _ = close(descriptor)
}
