public import Foundation
public import HTTPTransport

/// Why a feed could not be fetched.
public struct FeedFetchError: Error, Hashable, CustomStringConvertible, LocalizedError {
    /// Stable kinds, stored by their raw value.
    public enum Kind: String, Sendable, Hashable {
        /// The server answered a non-2xx, non-304 status (see ``status``).
        case httpStatus = "http-status"
        /// 410 Gone: the feed was removed for good.
        case gone
        /// The body exceeded the byte limit, or decompressed beyond the ratio limit.
        case tooLarge = "too-large"
        /// More than the allowed number of redirects, or a redirect cycle.
        case tooManyRedirects = "too-many-redirects"
        /// A URL (or redirect target) whose scheme is not http, https or file.
        case unsupportedScheme = "unsupported-scheme"
        /// The whole request, or reading the answer, took too long.
        case timeout
        /// Causes that suggest this machine's own network is down: network or host unreachable (no route), the name
        /// server cannot be reached (a temporary DNS failure), or connecting timed out. The refresh engine says
        /// "offline" when every network fetch of a run ends this way, and blames no feed.
        case unreachable
        /// The host answered and refused the connection: nothing listens on that port. Final: not retried, and
        /// never taken as a sign that the network is down.
        case connectionRefused = "connection-refused"
        /// The name server answered that the host name does not exist. Final, like ``connectionRefused``.
        case unknownHost = "unknown-host"
        /// The TLS handshake failed: an untrusted, expired or misnamed certificate, or a server that does not speak
        /// TLS there. Final, like ``connectionRefused``.
        case tls
        /// The body is not what its `Content-Encoding` says (not valid gzip or deflate). Final.
        case corruptBody = "corrupt-body"
        /// The connection broke mid-response, or the response was malformed.
        case transport
        /// A local file could not be read.
        case file
    }

    public let kind: Kind
    /// The HTTP status for ``Kind/httpStatus`` and ``Kind/gone``.
    public let status: Int?
    /// `Retry-After` from a 429/503 response, resolved to a date.
    public let retryAfter: Date?
    /// A human-readable reason, safe to print on one line.
    public let message: String
    /// For ``Kind/timeout`` and ``Kind/unreachable``: which of the fetch's limits was hit, when one was.
    public let limit: TransferLimit?
    /// For ``Kind/tooLarge``: the byte limit on a feed's body that the feed went over (nil when the decompression ratio
    /// was the limit).
    public let maxBodyBytes: Int?

    public init(
        kind: Kind, message: String, status: Int? = nil, retryAfter: Date? = nil, limit: TransferLimit? = nil,
        maxBodyBytes: Int? = nil
    ) {
        self.kind = kind
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.limit = limit
        self.maxBodyBytes = maxBodyBytes
    }

    /// True for failures worth one quick retry within a run (reset connections, a timeout of the client's own).
    /// Refused connections, unknown hosts, TLS failures and corrupt bodies are final: retrying at once would fail the
    /// same way; so is a fetch over one of its named limits (first byte, stall, rate, total): a server that slow now
    /// is as slow a second later, and a retry would double the wait.
    public var isTransient: Bool { kind == .transport || (kind == .timeout && limit == nil) }

    public var description: String { message }
    public var errorDescription: String? { message }
}
