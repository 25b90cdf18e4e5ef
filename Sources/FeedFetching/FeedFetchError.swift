public import Foundation

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
        /// Connecting or the whole request took too long.
        case timeout
        /// The host name did not resolve or the connection was refused: the network or host is unreachable.
        case unreachable
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

    public init(kind: Kind, message: String, status: Int? = nil, retryAfter: Date? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
    }

    /// True for failures worth one quick retry within a run (reset connections, timeouts).
    public var isTransient: Bool { kind == .transport || kind == .timeout }

    public var description: String { message }
    public var errorDescription: String? { message }
}
