/// Why no connection to a server could be made, as facts; ConsoleOutput words them. `Codable` because a store error
/// can be part of a subscription's stored last failure.
///
/// A fact that is also a transfer's (HTTPTransport's `TransportFailure`) has the same name here: `connectionRefused`,
/// `connectTimedOut`, `noSuchHost`, `closedEarly`. Rows stored under the names these facts had before still read
/// back (``init(from:)``).
public enum ConnectionFailure: Sendable, Hashable, Codable {
    /// The host answered that nothing listens on the port (`ECONNREFUSED`).
    case connectionRefused
    /// No answer in time: the connect timeout (its seconds, when known) or the system's (`ETIMEDOUT`).
    case connectTimedOut(seconds: Double?)
    /// The host name was not found (getaddrinfo's error code, e.g. `EAI_NONAME`, when known).
    case noSuchHost(code: Int?)
    /// The system refused to connect with this `errno` (`ENETUNREACH`, `EHOSTUNREACH`, ...).
    case system(errno: Int32)
    /// The server closed the connection before it was ready.
    case closedEarly
    /// Something else: the error, named by `ErrorWords` (its description, or its type).
    case other(String)
}

extension ConnectionFailure {
    /// Reads the stored form, under today's names or the ones an older podfresh wrote (`refused`, `timedOut`,
    /// `nameNotFound`, `closed`).
    public init(from decoder: any Decoder) throws {
        self =
            switch try Stored(from: decoder) {
            case .connectionRefused, .refused: .connectionRefused
            case .connectTimedOut(let seconds), .timedOut(let seconds): .connectTimedOut(seconds: seconds)
            case .noSuchHost(let code), .nameNotFound(let code): .noSuchHost(code: code)
            case .system(let code): .system(errno: code)
            case .closedEarly, .closed: .closedEarly
            case .other(let words): .other(words)
            }
    }

    /// Every name a stored failure may have: today's, and before them the ones they replaced.
    private enum Stored: Decodable {
        case connectionRefused
        case connectTimedOut(seconds: Double?)
        case noSuchHost(code: Int?)
        case system(errno: Int32)
        case closedEarly
        case other(String)
        case refused
        case timedOut(seconds: Double?)
        case nameNotFound(code: Int?)
        case closed
    }
}
