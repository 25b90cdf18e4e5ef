import CFileAttributes
import Foundation
public import HTTPTransport
import Measures
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloads one media file at a time over one shared `HTTPClient`, so that a file is either complete under its final
/// name, holding the episode's bytes, or absent:
/// - the body streams to `NAME.part` chunk by chunk as it arrives (AsyncHTTPClient's body sequence gives
///   backpressure), so memory does not grow with the file;
/// - the file is complete only when its size equals the length the server announced (`Content-Length`, or the total
///   of `Content-Range`) and its body ended cleanly; then it is fsynced, renamed to its final name, and the directory
///   fsynced;
/// - a `.part` left by an earlier attempt is resumed with `Range` plus `If-Range` (the stored strong ETag, else
///   Last-Modified) only when the 206 carries that same validator, starts at the byte asked for and agrees on the
///   total the `.part` was started with; otherwise the `.part` is discarded and the file fetched again with one plain
///   GET (a server that ignores `If-Range` cannot splice two versions of a file);
/// - media is asked for as `identity`; a body that comes gzip- or deflate-encoded anyway is decoded, any other
///   encoding refused; an empty body, or a document (HTML, JSON, XML, text: by its type or its first bytes) where
///   media was announced, is a failure naming what came; the first bytes are matched against the usual containers
///   (MP3/ID3, AAC, MP4, Ogg, FLAC, Matroska/WebM, WAV) and the result recorded;
/// - the first-byte, stall, minimum-rate and total limits (``DownloadConfiguration``) are watched apart and each is
///   named when it ends a download; a disk that fills up mid-download has its `.part` removed.
public struct MediaDownloader: Sendable {
    let network: HTTPNetwork
    /// The limits in force.
    public let configuration: DownloadConfiguration

    /// A downloader over `network` (shared with feed fetches: one resolver, one pool per host), or over a new network
    /// shut down when `body` returns or throws.
    public static func withDownloader<Result>(
        configuration: DownloadConfiguration = DownloadConfiguration(), network: HTTPNetwork? = nil,
        _ body: (MediaDownloader) async throws -> Result
    ) async throws -> Result {
        if let network {
            return try await body(MediaDownloader(network: network, configuration: configuration))
        }
        return try await HTTPNetwork.withNetwork {
            try await body(MediaDownloader(network: $0, configuration: configuration))
        }
    }

    /// How media requests talk to servers: media is asked for as `identity`, but a gzip or deflate body is decoded
    /// (within a ratio limit); AsyncHTTPClient's read timeout is only a backstop behind the watched limits.
    var profile: HTTPNetwork.Profile {
        HTTPNetwork.Profile(
            decompressionRatioLimit: configuration.decompressionRatioLimit,
            connectTimeout: configuration.connectTimeout,
            readTimeout: max(configuration.stallTimeout, configuration.firstByteTimeout) + .seconds(5))
    }

    /// - Parameters:
    ///   - network: The network requests go through; the caller shuts it down.
    ///   - configuration: The limits.
    public init(network: HTTPNetwork, configuration: DownloadConfiguration) {
        self.network = network
        self.configuration = configuration
    }

    /// Downloads `request.url` to `request.destination`, resuming its `.part` when there is one.
    ///
    /// - Parameters:
    ///   - accepted: Called once the server's answer is accepted (status, type and free space checked), before the
    ///     first byte is written: store its validators there, so that a crash mid-transfer can still resume. What
    ///     it throws ends the download.
    ///   - progress: Called after each chunk is written, from the downloading task.
    /// - Returns: The complete file's facts, with the validators to store for a later `If-Range`.
    /// - Throws: ``DownloadError`` (the final file does not appear), or `CancellationError`.
    public func download(
        _ request: MediaRequest, accepted: @escaping @Sendable (MediaResponse) async throws -> Void = { _ in },
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws -> DownloadedMedia {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", request.url.host?.isEmpty == false else {
            throw DownloadError(.notHTTPURL, url: request.url)
        }
        let watch = TransferWatch(clock: configuration.clock)
        do {
            return try await watch.run(limits: limits) {
                try await transfer(request, watch: watch, accepted: accepted, progress: progress)
            }
        } catch let exceeded as TransferLimitExceeded {
            throw DownloadError(
                .transport(TransportFailure(exceeded, host: request.url.host ?? "the server")), url: request.url)
        }
    }

    // MARK: - The transfer

    private func transfer(
        _ request: MediaRequest, watch: TransferWatch, accepted: @Sendable (MediaResponse) async throws -> Void,
        progress: @Sendable (DownloadProgress) -> Void
    ) async throws -> DownloadedMedia {
        let url = request.url
        let part = request.partialFile
        let directory = request.destination.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(.cannotCreateFolder(path: directory.path, reason: Self.reason(error)), url: url)
        }
        let deadline = ContinuousClock.now + configuration.totalTimeout
        let totalDeadline = watch.clock.now + configuration.totalTimeout
        var offset = Self.fileSize(part) ?? 0
        let validator = Self.ifRangeValidator(etag: request.etag, lastModified: request.lastModified)
        if offset > 0 && validator == nil {
            // Without a validator the bytes on disk may belong to another version of the file: start over.
            try Self.remove(part, url: url)
            offset = 0
        }
        let partialTotal = offset > 0 ? PartFile.recordedLength(part) : nil
        // A feed that announces a document gets what it announced; one that announces a playlist never gets it saved
        // as the episode.
        let announcedDocument = MediaSniffing.document(contentType: request.announcedType)
        let announcesDocument = announcedDocument != nil && announcedDocument != .playlist
        var restarted: DownloadedMedia.Restart?
        while true {
            let resuming = offset > 0
            var httpRequest = HTTPNetwork.Request(url: url)
            httpRequest.addHeader("User-Agent", configuration.userAgent)
            httpRequest.addHeader("Accept", "*/*")
            httpRequest.addHeader("Accept-Encoding", "identity")
            if resuming, let validator {
                httpRequest.addHeader("Range", "bytes=\(offset)-")
                httpRequest.addHeader("If-Range", validator)
            }
            let response: HTTPNetwork.Response
            let finalURL: URL
            do {
                let exchange = try await network.execute(
                    httpRequest, profile: profile, maxRedirects: configuration.maxRedirects,
                    deadline: deadline, watch: watch)
                response = exchange.response
                finalURL = exchange.url
            } catch {
                throw classify(error, url: url)
            }
            let status = response.status
            let headers = response.headers
            let encoding = Self.contentEncoding(headers)
            var start: Int64 = 0
            var total: Int64?
            switch status {
            case 206 where resuming:
                let range = headers.first(name: "Content-Range").flatMap(ContentRange.init)
                if let mismatch = Self.resumeMismatch(
                    range: range, headers: headers, encoding: encoding, offset: offset, request: request,
                    partialTotal: partialTotal)
                {
                    // Not a continuation of the bytes on disk: discard them and ask once more, plainly.
                    try Self.remove(part, url: url)
                    offset = 0
                    restarted = mismatch
                    continue
                }
                start = offset
                total = range?.total
            case 206:
                // A 206 to a request without Range is usable only when it is the whole file.
                guard let range = headers.first(name: "Content-Range").flatMap(ContentRange.init), range.start == 0,
                    let whole = range.total, range.end == whole - 1
                else {
                    throw DownloadError(.partialAnswer, url: url)
                }
                total = encoding == nil ? whole : nil
            case 200:
                total = encoding == nil ? Self.contentLength(headers) : nil
            case 416 where resuming:
                // The .part is as long as the file or longer (or the file changed): start over.
                try Self.remove(part, url: url)
                offset = 0
                restarted = .rangeNotSatisfiable
                continue
            default:
                throw DownloadError(.httpStatus(status, reasonPhrase: response.reasonPhrase), url: url)
            }
            if let encoding, !Self.decodedEncodings.contains(encoding) {
                throw DownloadError(.undecodedEncoding(encoding), url: url)
            }
            let contentType = headers.first(name: "Content-Type")
            if start == 0 && Self.contentLength(headers) == 0 {
                throw Self.emptyBody(url: url, status: status, contentType: contentType)
            }
            if let document = MediaSniffing.document(contentType: contentType),
                !announcesDocument || document == .playlist
            {
                throw Self.notMedia(
                    document, contentType: contentType, announced: request.announcedType, url: url, status: status)
            }
            if let needed = total.map({ $0 - start }) ?? request.lengthHint.map({ $0 - start }), needed > 0 {
                try FreeSpace.check(
                    needed: needed, margin: configuration.freeSpaceMargin, directory: directory, url: url)
            }
            let etag = headers.first(name: "ETag")
            let lastModified = headers.first(name: "Last-Modified")
            try await accepted(
                MediaResponse(
                    finalURL: finalURL, etag: etag, lastModified: lastModified, expectedBytes: total,
                    resumedFrom: start, contentType: contentType))
            let body = BodyFacts(
                start: start, total: total, contentType: contentType, announced: request.announcedType,
                sniffDocuments: start == 0 && !announcesDocument, status: status, source: finalURL)
            let (written, head): (Int64, [UInt8])
            do {
                (written, head) = try await write(
                    response.body, to: part, body: body, deadline: totalDeadline, url: url, watch: watch,
                    progress: progress)
            } catch let error as DownloadError where [.notMedia, .diskFull].contains(error.kind) {
                // Not the episode, or no room for it: nothing of it is worth keeping.
                try? Self.remove(part, url: url)
                throw error
            }
            if written == 0 {
                try? Self.remove(part, url: url)
                throw Self.emptyBody(url: url, status: status, contentType: contentType)
            }
            if let total, written != total {
                throw DownloadError(.shortBody(received: written, total: total, cutBy: nil), url: url)
            }
            let container = MediaSniffing.container(start == 0 ? head : PartFile.head(part))
            try await blockingIO { try Self.commit(part, to: request.destination, url: url) }
            return DownloadedMedia(
                file: request.destination, finalURL: finalURL, byteCount: written, resumedFrom: start,
                etag: etag, lastModified: lastModified, contentType: contentType, container: container,
                decodedFrom: encoding, restarted: restarted)
        }
    }

    /// What the body's writer needs to know of the answer.
    private struct BodyFacts {
        /// Where the body starts in the file.
        var start: Int64
        /// The whole file's announced length (nil when unknown, or when the body is decoded).
        var total: Int64?
        var contentType: String?
        var announced: String?
        /// Look at the first bytes for a document (only for a body that starts the file, where media is expected).
        var sniffDocuments: Bool
        var status: Int
        /// The URL that sends the body (after redirects).
        var source: URL
    }

    /// Streams `body` into `part` from byte `body.start` (truncating there), one chunk at a time; returns the file's
    /// size and the body's first bytes (up to ``MediaSniffing/sampleSize``).
    private func write(
        _ body: HTTPNetwork.Body, to part: URL, body facts: BodyFacts, deadline: AppClock.Instant,
        url: URL, watch: TransferWatch, progress: @Sendable (DownloadProgress) -> Void
    ) async throws -> (Int64, [UInt8]) {
        let start = facts.start
        let total = facts.total
        let file = try await blockingIO {
            try PartFile(path: part, truncatingAt: start, recordingLength: start == 0 ? total : nil, url: url)
        }
        defer { file.finish() }
        var size = start
        var head: [UInt8] = []
        var sniffed = !facts.sniffDocuments
        func sniff() throws {
            sniffed = true
            if let document = MediaSniffing.document(head) {
                throw Self.notMedia(
                    document, contentType: facts.contentType, announced: facts.announced, url: url,
                    status: facts.status)
            }
        }
        watch.bodyStarted(received: start, expected: total)
        do {
            for try await chunk in body {
                if head.count < MediaSniffing.sampleSize {
                    head += chunk.prefix(MediaSniffing.sampleSize - head.count)
                    if !sniffed && head.count == MediaSniffing.sampleSize { try sniff() }
                }
                try await blockingIO { try chunk.withUnsafeBytes { try file.append($0) } }
                size += Int64(chunk.count)
                watch.received(chunk.count)
                progress(
                    DownloadProgress(
                        receivedBytes: size, expectedBytes: total, resumedFrom: start, chunkBytes: chunk.count
                    ))
                if watch.clock.now > deadline {
                    throw DownloadError(
                        .transport(
                            TransportFailure(
                                TransferLimitExceeded(
                                    limit: .total, limits: limits, receivedBytes: size, expectedBytes: total),
                                host: facts.source.host ?? "the server")),
                        url: url)
                }
            }
            if !sniffed { try sniff() }
        } catch let error as DownloadError {
            throw error
        } catch {
            let classified = classify(
                error, url: url, source: facts.source,
                body: TransportFailure.BodyProgress(receivedBytes: size, expectedBytes: total))
            if let total, let downloadError = classified as? DownloadError, downloadError.kind == .transport {
                throw DownloadError(.shortBody(received: size, total: total, cutBy: downloadError.cause), url: url)
            }
            throw classified
        }
        try await blockingIO { try file.sync() }
        return (size, head)
    }

    /// Renames the fsynced `part` to `destination`, then fsyncs the directory so the new name survives a crash.
    static func commit(_ part: URL, to destination: URL, url: URL) throws {
        guard rename(part.path, destination.path) == 0 else {
            throw DownloadError(
                .cannotRename(
                    path: part.path, to: destination.lastPathComponent, reason: String(cString: strerror(errno))),
                url: url)
        }
        let directory = destination.deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            defer { _ = close(descriptor) }
            if fsync(descriptor) != 0 && errno != EINVAL {
                throw DownloadError(
                    .cannotSyncFolder(path: directory, reason: String(cString: strerror(errno))), url: url)
            }
        }
    }

    // MARK: - Limits

    /// The limits the watchdog holds a download to (``DownloadConfiguration/limits``).
    var limits: TransferLimits { configuration.limits }

    /// Sorts an error from the network into a ``DownloadError`` (HTTPTransport's one classification of a
    /// transfer's failure), or passes on a download's own error and cancellation. `source` is the URL that was
    /// talking (after redirects), `body` how far the body had come when it was being read.
    func classify(
        _ error: any Error, url: URL, source: URL? = nil, body: TransportFailure.BodyProgress? = nil
    ) -> any Error {
        if error is DownloadError || error is CancellationError { return error }
        if let error = error as? HTTPNetwork.RedirectError {
            switch error {
            case .tooMany:
                return DownloadError(.tooManyRedirects(max: configuration.maxRedirects), url: url)
            case .cycle:
                return DownloadError(.redirectCycle, url: url)
            }
        }
        if Task.isCancelled { return CancellationError() }
        let failure = TransportFailure(
            error, url: source ?? url, profile: profile, timeout: configuration.totalTimeout, body: body)
        if failure == .cancelled { return CancellationError() }
        return DownloadError(.transport(failure), url: url)
    }

    // MARK: - Helpers

    /// The `If-Range` value: a strong ETag (a weak one cannot be used for ranges), else the Last-Modified date.
    static func ifRangeValidator(etag: String?, lastModified: String?) -> String? {
        if let etag, !etag.isEmpty, !etag.hasPrefix("W/") { return etag }
        if let lastModified, !lastModified.isEmpty { return lastModified }
        return nil
    }

    /// The encodings a media body may come in and still be saved (decoded on the way).
    static let decodedEncodings: Set<String> = ["gzip", "deflate"]

    /// The body's `Content-Encoding`, lower-cased; nil when absent or `identity`.
    static func contentEncoding(_ headers: HTTPNetwork.Headers) -> String? {
        let codings = headers.values(name: "Content-Encoding").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        .filter { !$0.isEmpty && $0 != "identity" }
        return codings.isEmpty ? nil : codings.joined(separator: ", ")
    }

    /// Why a 206 cannot continue the bytes on disk, or nil when it can: it must carry the validator the `.part` was
    /// started with (the strong ETag, else Last-Modified), start at `offset`, agree on the total the `.part` was
    /// started with (when that was recorded), and not be compressed.
    static func resumeMismatch(
        range: ContentRange?, headers: HTTPNetwork.Headers, encoding: String?, offset: Int64, request: MediaRequest,
        partialTotal: Int64?
    ) -> DownloadedMedia.Restart? {
        if let encoding { return .encodedRange(encoding) }
        if let etag = request.etag, !etag.isEmpty, !etag.hasPrefix("W/") {
            let now = headers.first(name: "ETag")
            if now != etag { return .validatorChanged(was: etag, now: now) }
        } else if let lastModified = request.lastModified {
            let now = headers.first(name: "Last-Modified")
            if now != lastModified { return .validatorChanged(was: lastModified, now: now) }
        }
        guard let range else { return .wrongStart(asked: offset, got: -1) }
        if range.start != offset { return .wrongStart(asked: offset, got: range.start) }
        if let partialTotal, range.total != partialTotal { return .totalChanged(was: partialTotal, now: range.total) }
        if range.total == nil { return .totalChanged(was: partialTotal ?? -1, now: nil) }
        return nil
    }

    private static func emptyBody(url: URL, status: Int, contentType: String?) -> DownloadError {
        DownloadError(.emptyBody(status: status, contentType: contentType), url: url)
    }

    private static func notMedia(
        _ document: DocumentKind, contentType: String?, announced: String?, url: URL, status: Int
    ) -> DownloadError {
        DownloadError(.notMedia(document, status: status, contentType: contentType, announced: announced), url: url)
    }

    private static func contentLength(_ headers: HTTPNetwork.Headers) -> Int64? {
        headers.first(name: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    static func fileSize(_ url: URL) -> Int64? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    private static func remove(_ file: URL, url: URL) throws {
        guard unlink(file.path) == 0 || errno == ENOENT else {
            throw DownloadError(.cannotRemove(path: file.path, reason: String(cString: strerror(errno))), url: url)
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}

/// A parsed `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange: Equatable {
    var start: Int64
    var end: Int64
    var total: Int64?

    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end else {
            return nil
        }
        self.start = start
        self.end = end
        if halves[1] == "*" {
            total = nil
        } else {
            guard let total = Int64(halves[1]), total > end else { return nil }
            self.total = total
        }
    }
}

/// Runs a blocking file operation (open, write, fsync, rename) on NIO's thread pool, so that a slow disk never holds a
/// thread of Swift's cooperative pool; the calling task waits for it.
func blockingIO<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive(body)
}

/// The `.part` file being written: a descriptor opened for writing, positioned at the resume offset.
///
/// `@unchecked Sendable` because its calls run on NIO's thread pool (``blockingIO(_:)``) while the one download task
/// that owns it waits for each: it is used by one thread at a time, in order, and never shared between downloads.
private final class PartFile: @unchecked Sendable {
    private var descriptor: Int32
    private let path: URL
    private let url: URL

    /// The extended attribute that keeps the whole file's length with a `.part` started from its first byte, so a
    /// resume can check that the server still means the same file.
    private static let lengthAttribute = "user.podfresh.length"

    /// Opens `path` for writing at `offset`, dropping what lies beyond; records `length` (the whole file's) on it.
    init(path: URL, truncatingAt offset: Int64, recordingLength length: Int64?, url: URL) throws {
        self.path = path
        self.url = url
        descriptor = open(path.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.error(.open, path: path, url: url) }
        guard ftruncate(descriptor, off_t(offset)) == 0, lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
            let error = Self.error(.prepare, path: path, url: url)
            finish()
            throw error
        }
        if offset == 0 {
            // A file system without user attributes only loses the check of the total on a later resume.
            let value = Array((length.map(String.init) ?? "").utf8)
            if value.isEmpty {
                _ = fremovexattr(descriptor, Self.lengthAttribute)
            } else {
                _ = value.withUnsafeBytes { fsetxattr(descriptor, Self.lengthAttribute, $0.baseAddress, $0.count, 0) }
            }
        }
    }

    /// The whole file's length recorded on the `.part` at `path` when it was started, if it was.
    static func recordedLength(_ path: URL) -> Int64? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { getxattr(path.path, lengthAttribute, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return Int64(String(decoding: buffer.prefix(count), as: UTF8.self))
    }

    /// The first bytes of the file at `path` (up to ``MediaSniffing/sampleSize``), empty when it cannot be read.
    static func head(_ path: URL) -> [UInt8] {
        let descriptor = open(path.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { _ = close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: MediaSniffing.sampleSize)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer.prefix(count)) : []
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let count = write(descriptor, pointer, remaining)
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.error(.write, path: path, url: url)
            }
            pointer += count
            remaining -= count
        }
    }

    func sync() throws {
        guard fsync(descriptor) == 0 else { throw Self.error(.sync, path: path, url: url) }
    }

    func finish() {
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
    }

    private static func error(_ operation: DownloadError.FileOperation, path: URL, url: URL) -> DownloadError {
        DownloadError.file(operation, path: path.path, code: errno, url: url)
    }
}
