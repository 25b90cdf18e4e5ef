/// Why no connection to a server could be made, as facts; ConsoleOutput words them. `Codable` because a store error
/// can be part of a subscription's stored last failure.
public enum ConnectionFailure: Sendable, Hashable, Codable {
    /// The host answered that nothing listens on the port (`ECONNREFUSED`).
    case refused
    /// No answer in time: the connect timeout (its seconds, when known) or the system's (`ETIMEDOUT`).
    case timedOut(seconds: Double?)
    /// The host name was not found (getaddrinfo's error code, e.g. `EAI_NONAME`, when known).
    case nameNotFound(code: Int?)
    /// The system refused to connect with this `errno` (`ENETUNREACH`, `EHOSTUNREACH`, ...).
    case system(errno: Int32)
    /// The server closed the connection before it was ready.
    case closed
    /// Something else: the error, named by `ErrorWords` (its description, or its type).
    case other(String)
}
