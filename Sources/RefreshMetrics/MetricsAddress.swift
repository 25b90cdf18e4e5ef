/// Where `/metrics` is served: a host (an IP address or a name) and a TCP port, as given to `--metrics HOST:PORT`.
///
/// Only this address is bound: `127.0.0.1:9464` listens on the loopback interface alone, `0.0.0.0:9464` on every
/// IPv4 interface, `[::1]:9464` on IPv6 loopback. Port 0 asks the system for a free port.
public struct MetricsAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IP address (IPv6 without brackets) or a host name.
    public var host: String
    /// The TCP port, 0...65535 (0: any free port).
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT`: `127.0.0.1:9464`, `localhost:9464`, `[::1]:9464`.
    ///
    /// - Throws: ``MetricsAddressError`` with what is wrong (no port, a port that is not a number from 0 to 65535,
    ///   no host, an IPv6 address without brackets, a character that cannot be in a host).
    public init(parsing text: String) throws(MetricsAddressError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw MetricsAddressError(.unclosedBracket)
            }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw MetricsAddressError(.noPort) }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw MetricsAddressError(.noPort) }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { throw MetricsAddressError(.ipv6WithoutBrackets) }
        }
        guard !host.isEmpty else { throw MetricsAddressError(.noHost) }
        let allowed = host.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || ".-:%_".unicodeScalars.contains(scalar))
        }
        guard allowed else { throw MetricsAddressError(.notAHost(String(host))) }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber), portText.count <= 5,
            let port = Int(portText), port <= 65535
        else { throw MetricsAddressError(.badPort(String(portText))) }
        self.init(host: String(host), port: port)
    }

    /// `HOST:PORT`, with an IPv6 host in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why a `--metrics` value is not a `HOST:PORT`: a typed ``Reason``; ConsoleOutput words it (`MetricsText`).
public struct MetricsAddressError: Error, Hashable, CustomStringConvertible {
    /// What is wrong with the value.
    public enum Reason: Sendable, Hashable {
        /// An IPv6 address opened with `[` is never closed with `]`.
        case unclosedBracket
        /// Nothing says the port: no `:PORT` after the host.
        case noPort
        /// An IPv6 address without the brackets that keep its colons apart from the port's.
        case ipv6WithoutBrackets
        /// Nothing before the port.
        case noHost
        /// The host has a character no host name or IP address has.
        case notAHost(String)
        /// The port (its text) is not a number from 0 to 65535.
        case badPort(String)
    }

    /// What is wrong.
    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    /// For logs and debugging only; ConsoleOutput words the reason for users.
    public var description: String { "MetricsAddressError.\(reason)" }
}
