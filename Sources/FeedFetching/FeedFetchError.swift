public import Foundation
public import HTTPTransport

/// Why a feed could not be fetched: the typed facts (``Cause``), never a sentence. ConsoleOutput words them.
public struct FeedFetchError: Error, Hashable, Sendable, Codable {
    /// Stable kinds, stored by their raw value.
    public enum Kind: String, Sendable, Hashable, Codable {
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

    /// What happened, with the facts a message needs: hosts, ports and paths, statuses, limits and their values,
    /// byte counts, and the reason text of a third party (the OS, a library) where only it knows the cause.
    public enum Cause: Sendable, Hashable, Codable {
        // MARK: Addresses
        /// The URL given to the HTTP source is not an http or https URL.
        case notHTTPURL(url: String)
        /// The URL given to the file source is not a file URL.
        case notFileURL(url: String)
        /// A scheme podfresh does not fetch (nil: the URL has none).
        case schemeNotFetched(scheme: String?)
        /// A redirect to a URL of another scheme (`ftp:`, `file:` …), which is never followed.
        case redirectedToScheme(String, status: Int)

        // MARK: HTTP answers
        /// A non-success status, with its reason phrase and the `Retry-After` it came with.
        case httpStatus(Int, reasonPhrase: String, retryAfter: Date?)
        /// A 3xx without a `Location` that can be followed.
        case redirectWithoutLocation(status: Int, reasonPhrase: String)
        /// 410 Gone.
        case gone
        /// 304 Not Modified to a request that sent no validators.
        case unaskedNotModified
        /// More than `max` redirects.
        case tooManyRedirects(max: Int)
        /// The redirects came back to a URL already visited.
        case redirectCycle

        // MARK: Size
        /// The body went over the byte limit (`announced`: the `Content-Length` that said so before a byte came).
        case bodyOverLimit(limit: Int, announced: Int?)
        /// A feed file over the byte limit.
        case fileOverLimit(path: String, limit: Int)

        // MARK: The transfer
        /// The transfer failed below HTTP: the name lookup, the connection, TLS, the body's encoding, one of the
        /// transfer's limits, or the connection closing early.
        case transport(TransportFailure)

        // MARK: Files
        /// No file at `path`.
        case noSuchFile(path: String)
        /// `path` is a folder.
        case folder(path: String)
        /// The file could not be opened.
        case cannotOpen(path: String)
        /// Reading the file failed, with the OS's reason text.
        case readFailed(path: String, reason: String)
    }

    /// What happened.
    public let cause: Cause

    /// An error with its cause.
    public init(_ cause: Cause) {
        self.cause = cause
    }

    /// The stable kind, for decisions and the store.
    public var kind: Kind {
        switch cause {
        case .notHTTPURL, .notFileURL, .schemeNotFetched, .redirectedToScheme: .unsupportedScheme
        case .httpStatus, .redirectWithoutLocation: .httpStatus
        case .gone: .gone
        case .unaskedNotModified: .transport
        case .tooManyRedirects, .redirectCycle: .tooManyRedirects
        case .bodyOverLimit, .fileOverLimit: .tooLarge
        case .transport(let failure):
            switch failure.kind {
            case .noSuchHost: .unknownHost
            case .refused: .connectionRefused
            case .tls: .tls
            case .unreachable: .unreachable
            case .corruptBody: .corruptBody
            case .tooLarge: .tooLarge
            case .timeout: .timeout
            case .broken: .transport
            }
        case .noSuchFile, .folder, .cannotOpen, .readFailed: .file
        }
    }

    /// The HTTP status, when a server answered one.
    public var status: Int? {
        switch cause {
        case .httpStatus(let status, _, _), .redirectWithoutLocation(let status, _), .redirectedToScheme(_, let status):
            status
        case .gone: 410
        case .unaskedNotModified: 304
        default: nil
        }
    }

    /// `Retry-After` from a 429/503 response, resolved to a date.
    public var retryAfter: Date? {
        if case .httpStatus(_, _, let retryAfter) = cause { return retryAfter }
        return nil
    }

    /// For ``Kind/timeout`` and ``Kind/unreachable``: which of the fetch's limits was hit, when one was.
    public var limit: TransferLimit? {
        if case .transport(let failure) = cause { return failure.limit }
        return nil
    }

    /// For ``Kind/tooLarge``: the byte limit on a feed's body that the feed went over (nil when the decompression ratio
    /// was the limit).
    public var maxBodyBytes: Int? {
        switch cause {
        case .bodyOverLimit(let limit, _), .fileOverLimit(_, let limit): limit
        default: nil
        }
    }

    /// True for failures worth one quick retry within a run (reset connections, a timeout of the client's own).
    /// Refused connections, unknown hosts, TLS failures and corrupt bodies are final: retrying at once would fail the
    /// same way; so is a fetch over one of its named limits (first byte, stall, rate, total): a server that slow now
    /// is as slow a second later, and a retry would double the wait.
    public var isTransient: Bool { kind == .transport || (kind == .timeout && limit == nil) }
}
