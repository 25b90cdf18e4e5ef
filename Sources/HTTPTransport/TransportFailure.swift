/// Why a transfer failed below HTTP's answers, as facts: the name lookup, the connection, TLS, the body's encoding,
/// the transfer's limits, the connection closing early. Feed fetches and media downloads both wrap it in their own
/// errors; ConsoleOutput words each fact once.
///
/// ``init(_:url:profile:timeout:body:)`` is the one place an error of AsyncHTTPClient, NIO, NIOSSL or the resolver
/// becomes one of these; no library type crosses it.
///
/// `Codable` because the errors that wrap it are stored as JSON (a subscription's last error, a download's last
/// failure): the case names and labels are part of the stored form, so rename none of them.
public enum TransportFailure: Error, Sendable, Hashable, Codable {
    // MARK: Names
    /// The name server answered that the host does not exist (or has no address).
    case noSuchHost(host: String)
    /// The resolver gave no answer for the name (a temporary failure, or no network).
    case nameServerGaveNoAnswer(host: String)
    /// `getaddrinfo` could not reach a name server (`EAI_AGAIN`).
    case nameServerUnreachable(host: String)
    /// The lookup took longer than its limit.
    case lookupTimedOut(host: String, after: Duration)
    /// The lookup failed for a reason only the resolver knows.
    case lookupFailed(host: String, reason: String)

    // MARK: Connecting
    /// Nothing listens on the port (`ECONNREFUSED`).
    case connectionRefused(host: String, port: Int?)
    /// None of the host's addresses answered.
    case noAddressAnswered(host: String, port: Int?)
    /// The network is unreachable from here (`ENETUNREACH`, `ENETDOWN`).
    case networkUnreachable(host: String)
    /// No route to the host (`EHOSTUNREACH`).
    case noRoute(host: String)
    /// No connection within the connect limit.
    case connectTimedOut(host: String, after: Duration)

    // MARK: The connection breaking
    /// The connection was reset (`ECONNRESET`, `EPIPE`).
    case connectionReset(host: String)
    /// The server closed the connection before the whole answer (before the body began).
    case closedEarly
    /// `host` closed the connection while the body came, after `receivedBytes` of the `expectedBytes` its
    /// `Content-Length` announced (nil when unknown: no length, or a body decoded on the way).
    case closedBeforeEnd(host: String, receivedBytes: Int64, expectedBytes: Int64?)
    /// The TLS connection was cut before the whole answer (no closing message).
    case cutShort(host: String)
    /// `host` reset the request's HTTP/2 stream (`RST_STREAM`) with error code `code` (RFC 9113's number: 7 is
    /// `REFUSED_STREAM`, 8 `CANCEL`); the connection and its other streams go on.
    case streamReset(host: String, code: Int)

    // MARK: TLS
    /// The certificate is issued for another name.
    case certificateForAnotherName(host: String)
    /// The certificate is not trusted (self-signed, expired, unknown authority).
    case certificateNotTrusted(host: String)
    /// The certificate could not be checked.
    case certificateUnverifiable(host: String)
    /// The handshake failed (does the server speak TLS there?).
    case handshakeFailed(host: String, port: Int?)

    // MARK: The answer
    /// The answer is not valid HTTP or ended early.
    case invalidHTTP
    /// The body is not valid gzip or deflate although its `Content-Encoding` says so.
    case corruptBody
    /// The compressed body expands more than `ratio` times.
    case expandsTooMuch(ratio: Int)
    /// A gzip or deflate body ended before its compressed stream did.
    case compressedBodyCutShort

    // MARK: Time
    /// One of the transfer's named limits (first byte, stall, minimum rate, total) with its value, the bytes
    /// received by then (and expected, when announced) and, for the minimum rate, the rate in bytes a second. The
    /// lookup and connect limits are ``lookupTimedOut(host:after:)`` and ``connectTimedOut(host:after:)``.
    case transferLimit(
        TransferLimit, host: String, after: Duration, receivedBytes: Int64, expectedBytes: Int64?, minimumRate: Int?)
    /// The HTTP client's own deadline, the backstop behind the named limits: no complete answer within `after`.
    case timedOut(after: Duration)

    // MARK: Others
    /// The request was cancelled.
    case cancelled
    /// Another network error, with the OS's or the library's reason text.
    case networkError(host: String, reason: String)
    /// Another error of the HTTP client, with its reason text.
    case httpClientError(host: String, reason: String)

    /// What a failure says about retrying and about the network, in the groups its clients decide by.
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// The name server knows no such host. Final: the same name fails the same way next time.
        case noSuchHost
        /// The host answered and refused the connection. Final, and never a sign that the network is down.
        case refused
        /// The TLS handshake failed or the certificate was refused. Final.
        case tls
        /// The host could not be reached: no route, no network, a name server that does not answer, connecting or
        /// looking up timed out. When every host of a run fails this way, this machine's network is down.
        case unreachable
        /// The body is not what its `Content-Encoding` says. Final.
        case corruptBody
        /// The compressed body expands past the ratio limit.
        case tooLarge
        /// A named limit of the transfer, or the client's own deadline.
        case timeout
        /// The connection broke mid-answer, the answer was malformed, or another network error.
        case broken
    }

    /// The group this failure belongs to.
    public var kind: Kind {
        switch self {
        case .noSuchHost: .noSuchHost
        case .nameServerGaveNoAnswer, .nameServerUnreachable, .lookupTimedOut, .lookupFailed, .noAddressAnswered,
            .networkUnreachable, .noRoute, .connectTimedOut:
            .unreachable
        case .connectionRefused: .refused
        case .certificateForAnotherName, .certificateNotTrusted, .certificateUnverifiable, .handshakeFailed: .tls
        case .corruptBody: .corruptBody
        case .expandsTooMuch: .tooLarge
        case .transferLimit, .timedOut: .timeout
        case .connectionReset, .closedEarly, .closedBeforeEnd, .cutShort, .streamReset, .invalidHTTP,
            .compressedBodyCutShort, .cancelled, .networkError, .httpClientError:
            .broken
        }
    }

    /// Which of the transfer's limits was hit, when one was.
    public var limit: TransferLimit? {
        switch self {
        case .transferLimit(let limit, _, _, _, _, _): limit
        case .lookupTimedOut: .nameLookup
        case .connectTimedOut: .connect
        default: nil
        }
    }
}
