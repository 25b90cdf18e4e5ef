import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What the hostile server does for one path.
///
/// Every case is one fault (or a plain good answer). The server speaks just enough HTTP/1.1 to be hostile on purpose:
/// it reads one request per connection and always closes afterwards.
enum HostileResponse: Sendable {
    /// 200 with these bytes and an `ETag`, or 304 when the request's `If-None-Match` names that ETag.
    case versioned(body: [UInt8], etag: String)
    /// 200 with these bytes.
    case ok(body: [UInt8], contentType: String = "application/rss+xml", headers: [(String, String)] = [])
    /// Any status, headers and body, with a correct Content-Length.
    case status(Int, headers: [(String, String)] = [], body: [UInt8] = [])
    /// 200, the body sent `chunk` bytes at a time with `interval` between chunks.
    case trickle(body: [UInt8], chunk: Int, interval: Duration)
    /// 200 declaring `declaredLength`, sends `prefix`, then says nothing more until the server stops.
    case stall(prefix: [UInt8], declaredLength: Int)
    /// 200 declaring the whole body, sends `prefix`, then resets the connection (RST, not FIN).
    case reset(prefix: [UInt8], declaredLength: Int)
    /// 200 declaring `declaredLength`, sends `body` (shorter), then closes cleanly.
    case shortBody(body: [UInt8], declaredLength: Int)
    /// A 3xx to `location` (a path on this server, or any absolute URL).
    case redirect(status: Int, location: String)
    /// These exact bytes as the whole response.
    case raw([UInt8])
}

/// A small HTTP/1.1 server on 127.0.0.1 (port 0) built on POSIX sockets, one thread per connection, serving
/// ``HostileResponse``s by path and counting every request it sees.
///
/// ## Why this class is `@unchecked Sendable`
/// The routes, counters and open sockets are touched only inside `lock.withLock {}`; the listening socket is set once
/// in `init` and closed once in ``stop()``. Connection threads copy what they need out of the lock before writing.
final class HostileServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var routes: [String: HostileResponse] = [:]
    private var counts: [String: Int] = [:]
    private var conditionalCounts: [String: Int] = [:]
    private var openSockets: Set<Int32> = []
    private var stopped = false

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket() failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw ServerError("bind/listen failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Sets (or replaces) what `path` answers.
    func route(_ path: String, _ response: HostileResponse) {
        lock.withLock { routes[path] = response }
    }

    /// Requests seen for `path` (nil: for every path).
    func requestCount(_ path: String? = nil) -> Int {
        lock.withLock { path.map { counts[$0, default: 0] } ?? counts.values.reduce(0, +) }
    }

    /// Requests for `path` that carried `If-None-Match` or `If-Modified-Since`.
    func conditionalRequestCount(_ path: String) -> Int {
        lock.withLock { conditionalCounts[path, default: 0] }
    }

    /// Closes the listener and every open connection (stalled ones included).
    func stop() {
        let sockets: Set<Int32>? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            return openSockets
        }
        // A second call (deinit after stop) must not touch the listener's descriptor: the accept thread may have
        // closed it by then and the number may belong to another test's socket.
        guard let sockets else { return }
        // Only shut the listener down: the accept thread closes it when it leaves its loop, so the descriptor number
        // cannot be reused (by another test's socket) while that thread might still call accept() on it.
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }

    // MARK: - Connections

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopped {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if isStopped { return }
                continue
            }
            let registered = lock.withLock { () -> Bool in
                if stopped { return false }
                openSockets.insert(fd)
                return true
            }
            guard registered else {
                close(fd)
                return
            }
            let thread = Thread { [self] in
                serve(fd)
                lock.withLock { _ = openSockets.remove(fd) }
                close(fd)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        guard let head = readRequestHead(fd) else { return }
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        let path = parts.count > 1 ? String(parts[1]) : "/"
        let conditional = lines.dropFirst().contains { line in
            let lower = line.lowercased()
            return lower.hasPrefix("if-none-match:") || lower.hasPrefix("if-modified-since:")
        }
        let ifNoneMatch = lines.dropFirst().first { $0.lowercased().hasPrefix("if-none-match:") }
            .map { $0.dropFirst("if-none-match:".count).trimmingCharacters(in: .whitespaces) }
        let response: HostileResponse? = lock.withLock {
            counts[path, default: 0] += 1
            if conditional { conditionalCounts[path, default: 0] += 1 }
            return routes[path]
        }
        guard let response else {
            write(fd, Self.head(status: 404, headers: [("Content-Length", "0")]))
            return
        }
        switch response {
        case .versioned(let body, let etag):
            if ifNoneMatch == etag {
                write(fd, Self.head(status: 304, headers: [("ETag", etag), ("Content-Length", "0")]))
            } else {
                write(fd, Self.head(status: 200, headers: [("Content-Type", "application/rss+xml"), ("ETag", etag), ("Content-Length", "\(body.count)")]))
                write(fd, body)
            }
        case .ok(let body, let contentType, let headers):
            write(fd, Self.head(status: 200, headers: [("Content-Type", contentType), ("Content-Length", "\(body.count)")] + headers))
            write(fd, body)
        case .status(let status, let headers, let body):
            var all = headers
            if !all.contains(where: { $0.0.lowercased() == "content-length" }) { all.append(("Content-Length", "\(body.count)")) }
            write(fd, Self.head(status: status, headers: all))
            write(fd, body)
        case .trickle(let body, let chunk, let interval):
            write(fd, Self.head(status: 200, headers: [("Content-Type", "application/rss+xml"), ("Content-Length", "\(body.count)")]))
            var offset = 0
            while offset < body.count, !isStopped {
                let end = min(body.count, offset + max(1, chunk))
                guard write(fd, Array(body[offset..<end])) else { return }
                offset = end
                Thread.sleep(forTimeInterval: Self.seconds(interval))
            }
        case .stall(let prefix, let declaredLength):
            write(fd, Self.head(status: 200, headers: [("Content-Type", "application/rss+xml"), ("Content-Length", "\(declaredLength)")]))
            write(fd, prefix)
            // Say nothing more; leave when the server stops or the client hangs up.
            var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while !isStopped {
                let ready = poll(&probe, 1, 100)
                if ready > 0 {
                    var byte: UInt8 = 0
                    if recv(fd, &byte, 1, 0) <= 0 { return }
                }
            }
        case .reset(let prefix, let declaredLength):
            write(fd, Self.head(status: 200, headers: [("Content-Type", "application/rss+xml"), ("Content-Length", "\(declaredLength)")]))
            write(fd, prefix)
            Thread.sleep(forTimeInterval: 0.05)
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        case .shortBody(let body, let declaredLength):
            write(fd, Self.head(status: 200, headers: [("Content-Type", "application/rss+xml"), ("Content-Length", "\(declaredLength)")]))
            write(fd, body)
        case .redirect(let status, let location):
            let target = location.hasPrefix("/") ? url(location).absoluteString : location
            write(fd, Self.head(status: status, headers: [("Location", target), ("Content-Length", "0")]))
        case .raw(let bytes):
            write(fd, bytes)
        }
    }

    private func readRequestHead(_ fd: Int32) -> String? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while buffer.count < 64 * 1024 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
            if let range = Self.find(terminator, in: buffer) {
                return String(decoding: buffer[..<range], as: UTF8.self)
            }
        }
        return nil
    }

    @discardableResult
    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    static func head(status: Int, headers: [(String, String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A TCP port on 127.0.0.1 that nothing listens on (bound, then closed), for "no connection is made" checks.
func closedLoopbackPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
