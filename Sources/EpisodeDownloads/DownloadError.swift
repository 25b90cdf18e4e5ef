public import Foundation
public import HTTPTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a media download failed: the typed facts (``Cause``), never a sentence. ConsoleOutput words them.
///
/// Whatever the kind, the final file never appears. A download cut short (``Kind/shortBody``, ``Kind/stalled``,
/// ``Kind/tooSlow``, ``Kind/timeout``, ``Kind/transport``) keeps its `.part` for a later resume; a body that is not
/// the media (``Kind/notMedia``, ``Kind/emptyBody``, ``Kind/unsupportedEncoding``), a decoded (gzip) body cut short,
/// and a disk that filled up (``Kind/diskFull``) leave none.
public struct DownloadError: Error, Sendable, Hashable, Codable {
    /// The cause, for callers that decide what to do next (retry later, give up, tell the user to free space).
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The URL is not http or https.
        case unsupportedScheme
        /// The server answered 4xx or 5xx (or a status a download cannot use); ``DownloadError/status`` says which.
        case httpStatus
        /// The body is a document (an HTML error page, JSON, XML, text) where the feed announced audio or video.
        case notMedia
        /// The server answered with an empty body (`Content-Length: 0`, or no byte before the end).
        case emptyBody
        /// The body came in a `Content-Encoding` podfresh cannot decode (only gzip and deflate are).
        case unsupportedEncoding
        /// The body ended before the length the server announced.
        case shortBody
        /// More redirects than the limit, or a redirect loop.
        case tooManyRedirects
        /// The server sent no answer within the first-byte limit.
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
        /// Reading or writing a file failed.
        case io
        /// A network error: refused, reset, unknown host, TLS.
        case transport
        /// A file beside an episode (a transcript, chapters, artwork) was larger than its limit.
        case tooLarge
        /// A file beside an episode was not what it should be (chapters that are not chapters JSON, an image that is
        /// not an image, an error page).
        case wrongContent
        /// An HLS episode podfresh does not save: live (no `#EXT-X-ENDLIST` yet), encrypted, or laid out in a way it
        /// does not assemble.
        case hls
    }

    /// What a file operation was doing when it failed.
    public enum FileOperation: String, Sendable, Hashable, Codable {
        case open, prepare, write, sync
    }

    /// What happened, with the facts a message needs: URLs and paths, statuses, the limit and its value, byte counts,
    /// the document kind and the encoding, and the OS's reason text where only it knows the cause.
    public indirect enum Cause: Sendable, Hashable, Codable {
        /// The URL is not an http or https URL.
        case notHTTPURL
        /// A status a download cannot use, with its reason phrase.
        case httpStatus(Int, reasonPhrase: String)
        /// A 206 with only a part of the file, to a request for all of it.
        case partialAnswer
        /// The media came in an encoding podfresh does not decode.
        case undecodedEncoding(String)
        /// An empty body, with the status and `Content-Type` it came with.
        case emptyBody(status: Int, contentType: String?)
        /// A document where the feed announced media (`announced`: the feed's type for it).
        case notMedia(DocumentKind, status: Int, contentType: String?, announced: String?)
        /// The body ended after `received` of `total` bytes, cut by `cutBy` when a network error did it.
        case shortBody(received: Int64, total: Int64, cutBy: Cause?)
        /// More than `max` redirects.
        case tooManyRedirects(max: Int)
        /// The redirects came back to a URL already visited.
        case redirectCycle
        /// The transfer failed below HTTP: the name lookup, the connection, TLS, the body's encoding, one of the
        /// transfer's limits, or the connection closing before the body's end.
        case transport(TransportFailure)
        /// The download folder could not be created, with the OS's reason text.
        case cannotCreateFolder(path: String, reason: String)
        /// A file operation on `path` failed, with the OS's reason text; `diskFull` when the disk filled up.
        case fileFailed(FileOperation, path: String, reason: String, diskFull: Bool)
        /// The finished `.part` could not be renamed to its final name.
        case cannotRename(path: String, to: String, reason: String)
        /// The folder could not be synced after the rename.
        case cannotSyncFolder(path: String, reason: String)
        /// A file could not be removed.
        case cannotRemove(path: String, reason: String)
        /// The free space of a folder could not be read.
        case cannotReadFreeSpace(path: String, reason: String)
        /// The file does not fit: it needs `needed` bytes (`required` with the margin), `available` are free.
        case notEnoughSpace(directory: String, needed: Int64, required: Int64, available: Int64)
        /// A file name built from feed text would leave the download folder.
        case nameLeavesFolder(file: String, folder: String)
        /// A file beside an episode is larger than `limit` bytes (`received` when the body said so or was cut there).
        case tooLarge(limit: Int64, received: Int64)
        /// A file beside an episode is not `expected` (its name, e.g. "WebVTT", "chapters JSON", "an image"); `found`:
        /// the document it is instead, when it is one, and its `Content-Type`.
        case notTheExtra(expected: String, found: DocumentKind?, contentType: String?)
        /// The HLS playlist has no `#EXT-X-ENDLIST`: a live stream, not (yet) an episode to save.
        case hlsLive
        /// The HLS playlist's segments are encrypted (`METHOD`: AES-128, SAMPLE-AES): podfresh does not decrypt them.
        case hlsEncrypted(method: String)
        /// The HLS playlist cannot be saved as one file: `detail` says why (byte ranges, no segments, no variant).
        case hlsUnsupported(detail: String)
        /// The HLS playlist's summed `#EXTINF` (`playlist` seconds) differs from the episode's declared duration
        /// (`declared` seconds, `itunes:duration`) by more than `tolerance` seconds: not the episode the feed describes.
        case hlsDurationMismatch(playlist: Double, declared: Double, tolerance: Double)
    }

    /// What happened.
    public var cause: Cause
    /// The URL asked for, when there was one.
    public var url: URL?

    /// An error with its cause, for the media at `url`.
    public init(_ cause: Cause, url: URL? = nil) {
        self.cause = cause
        self.url = url
    }

    /// The stable kind, for decisions and the store.
    public var kind: Kind {
        switch cause {
        case .notHTTPURL: .unsupportedScheme
        case .httpStatus, .partialAnswer: .httpStatus
        case .undecodedEncoding: .unsupportedEncoding
        case .emptyBody: .emptyBody
        case .notMedia: .notMedia
        case .shortBody: .shortBody
        case .tooManyRedirects, .redirectCycle: .tooManyRedirects
        case .transport(let failure): Self.kind(of: failure)
        case .fileFailed(_, _, _, let diskFull): diskFull ? .diskFull : .io
        case .cannotCreateFolder, .cannotRename, .cannotSyncFolder, .cannotRemove, .cannotReadFreeSpace,
            .nameLeavesFolder:
            .io
        case .notEnoughSpace: .notEnoughSpace
        case .tooLarge: .tooLarge
        case .notTheExtra: .wrongContent
        case .hlsLive, .hlsEncrypted, .hlsUnsupported, .hlsDurationMismatch: .hls
        }
    }

    /// A transfer's failure as a download's kind: each body limit has a kind of its own, a body cut or not decoded
    /// is a short or unusable body, and the rest is the network's.
    private static func kind(of failure: TransportFailure) -> Kind {
        switch failure {
        case .transferLimit(.firstByte, _, _, _, _, _): .noResponse
        case .transferLimit(.stall, _, _, _, _, _): .stalled
        case .transferLimit(.minimumRate, _, _, _, _, _): .tooSlow
        case .transferLimit(.total, _, _, _, _, _), .timedOut: .timeout
        case .closedBeforeEnd, .compressedBodyCutShort: .shortBody
        case .corruptBody, .expandsTooMuch: .unsupportedEncoding
        default: .transport
        }
    }

    /// The HTTP status, for ``Kind/httpStatus``, ``Kind/emptyBody`` and ``Kind/notMedia``.
    public var status: Int? {
        switch cause {
        case .httpStatus(let status, _): status
        case .partialAnswer: 206
        case .emptyBody(let status, _), .notMedia(_, let status, _, _): status
        default: nil
        }
    }

    /// Which of the transfer's limits ended the download, when one did.
    public var limit: TransferLimit? {
        if case .transport(let failure) = cause { return failure.limit }
        return nil
    }
}

extension DownloadError {
    /// A file operation on `path` that failed with the OS error `code` (a full disk or quota named as such).
    static func file(_ operation: FileOperation, path: String, code: Int32, url: URL) -> DownloadError {
        DownloadError(
            .fileFailed(
                operation, path: path, reason: String(cString: strerror(code)),
                diskFull: code == ENOSPC || code == EDQUOT),
            url: url)
    }
}
