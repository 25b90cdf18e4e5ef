public import Foundation
public import HTTPTransport

/// Why a media download failed, in words a user can act on: the message names the URL (or the path) and the cause.
///
/// Whatever the kind, the final file never appears. A download cut short (``Kind/shortBody``, ``Kind/stalled``,
/// ``Kind/tooSlow``, ``Kind/timeout``, ``Kind/transport``) keeps its `.part` for a later resume; a body that is not
/// the media (``Kind/notMedia``, ``Kind/emptyBody``, ``Kind/unsupportedEncoding``), a decoded (gzip) body cut short,
/// and a disk that filled up (``Kind/diskFull``) leave none.
public struct DownloadError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The cause, for callers that decide what to do next (retry later, give up, tell the user to free space).
    public enum Kind: String, Sendable, Equatable {
        /// The URL is not http or https.
        case unsupportedScheme
        /// The server answered 4xx or 5xx (or a status a download cannot use); ``DownloadError/status`` says which.
        case httpStatus
        /// The body is a document (an HTML error page, JSON, XML, text) where the feed announced audio or video;
        /// ``DownloadError/detail`` says which (``Detail/document(_:contentType:)``).
        case notMedia
        /// The server answered with an empty body (`Content-Length: 0`, or no byte before the end).
        case emptyBody
        /// The body came in a `Content-Encoding` podfresh cannot decode (only gzip and deflate are);
        /// ``DownloadError/detail`` names it (``Detail/encoding(_:)``).
        case unsupportedEncoding
        /// The body ended before the length the server announced.
        case shortBody
        /// More redirects than the limit, or a redirect loop.
        case tooManyRedirects
        /// The server sent no answer within the first-byte limit (``Detail/limit(_:)`` says ``TransferLimit/firstByte``).
        case noResponse
        /// No byte arrived for the stall limit.
        case stalled
        /// The body came slower than the minimum rate over its window (a trickle that never quite stalls).
        case tooSlow
        /// The whole download took longer than the total timeout.
        case timeout
        /// The file would not fit in the free space left (with the margin), checked before a byte is written.
        case notEnoughSpace
        /// The disk filled up while the file was being written; the partial file was removed to give the space back.
        case diskFull
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
    /// What exactly came instead of the media, or which limit ended the download, for callers that word it.
    public var detail: Detail?

    /// The typed facts behind some kinds.
    public enum Detail: Sendable, Equatable {
        /// The limit that ended the download (``Kind/noResponse``, ``Kind/stalled``, ``Kind/tooSlow``,
        /// ``Kind/timeout``).
        case limit(TransferLimit)
        /// The document that came instead of the media, and the `Content-Type` it came with (``Kind/notMedia``).
        case document(DocumentKind, contentType: String?)
        /// The `Content-Encoding` that cannot be decoded (``Kind/unsupportedEncoding``).
        case encoding(String)
    }

    /// An error of `kind` with its message.
    public init(kind: Kind, message: String, url: URL? = nil, status: Int? = nil, detail: Detail? = nil) {
        self.kind = kind
        self.message = message
        self.url = url
        self.status = status
        self.detail = detail
    }

    public var description: String { message }
}
