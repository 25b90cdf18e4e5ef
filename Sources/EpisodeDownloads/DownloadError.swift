public import Foundation

/// Why a media download failed, in words a user can act on: the message names the URL (or the path) and the cause.
///
/// Whatever the kind, the final file never appears. A download cut short (``Kind/shortBody``, ``Kind/stalled``,
/// ``Kind/timeout``, ``Kind/transport``) keeps its `.part` for a later resume; a body that is not the media
/// (``Kind/notMedia``) does not.
public struct DownloadError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The cause, for callers that decide what to do next (retry later, give up, tell the user to free space).
    public enum Kind: String, Sendable, Equatable {
        /// The URL is not http or https.
        case unsupportedScheme
        /// The server answered 4xx or 5xx (or a status a download cannot use); ``DownloadError/status`` says which.
        case httpStatus
        /// The body is text (an HTML error page, say) where the feed announced audio or video.
        case notMedia
        /// The body ended before the length the server announced.
        case shortBody
        /// More redirects than the limit, or a redirect loop.
        case tooManyRedirects
        /// No byte arrived for the progress timeout.
        case stalled
        /// The whole download took longer than the total timeout.
        case timeout
        /// The file would not fit in the free space left (with the margin).
        case notEnoughSpace
        /// Reading or writing a file failed; the message names the path.
        case io
        /// A network error: refused, reset, unknown host, TLS.
        case transport
    }

    /// The cause.
    public var kind: Kind
    /// One sentence naming the URL or path and the cause, e.g. "https://…/ep1.mp3: the body ended after 10 of 20
    /// bytes".
    public var message: String
    /// The URL asked for.
    public var url: URL?
    /// The HTTP status, for ``Kind/httpStatus`` and ``Kind/notMedia``.
    public var status: Int?

    /// An error of `kind` with its message.
    public init(kind: Kind, message: String, url: URL? = nil, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.url = url
        self.status = status
    }

    public var description: String { message }
}
