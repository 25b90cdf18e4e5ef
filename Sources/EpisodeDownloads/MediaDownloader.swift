import AsyncHTTPClient
import Foundation
public import HTTPTransport
import Measures
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloads one media file at a time over one shared `HTTPClient`, so that a file is either complete under its final
/// name or absent:
/// - the body streams to `NAME.part` chunk by chunk as it arrives (AsyncHTTPClient's body sequence gives
///   backpressure), so memory does not grow with the file;
/// - the file is complete only when its size equals the length the server announced (`Content-Length`, or the total
///   of `Content-Range`); then it is fsynced, renamed to its final name, and the directory fsynced;
/// - a `.part` left by an earlier attempt is resumed with `Range` plus `If-Range` (the stored ETag, else
///   Last-Modified), and started over when the server answers 200 or a range that starts elsewhere;
/// - media requests send `Accept-Encoding: identity`; a text body where the feed announced media, a 4xx/5xx, a short
///   body, too many redirects, a stall (no byte for ``DownloadConfiguration/stallTimeout``) or the total timeout is a
///   ``DownloadError``.
public struct MediaDownloader: Sendable {
    private let network: HTTPNetwork
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

    /// How media requests talk to servers: no decompression (media is asked for as `identity`), a read timeout as
    /// long as the progress timeout.
    var profile: HTTPNetwork.Profile {
        HTTPNetwork.Profile(
            decompressionRatioLimit: nil, connectTimeout: configuration.connectTimeout,
            readTimeout: configuration.stallTimeout + .seconds(5))
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
            throw DownloadError(
                kind: .unsupportedScheme, message: "\(request.url.absoluteString) is not an http or https URL",
                url: request.url)
        }
        let watch = TransferWatch()
        return try await withThrowingTaskGroup(of: DownloadedMedia?.self) { group in
            group.addTask {
                try await self.transfer(request, watch: watch, accepted: accepted, progress: progress)
            }
            group.addTask {
                do {
                    try await watch.watch(limits: self.limits)
                } catch let exceeded as TransferLimitExceeded {
                    throw self.limitError(exceeded, url: request.url, watch: watch)
                }
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let media = result { return media }
            }
            throw CancellationError()
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
            throw DownloadError(
                kind: .io, message: "cannot create the folder \(directory.path): \(Self.reason(error))", url: url)
        }
        let deadline = ContinuousClock.now + configuration.totalTimeout
        var offset = Self.fileSize(part) ?? 0
        let validator = Self.ifRangeValidator(etag: request.etag, lastModified: request.lastModified)
        if offset > 0 && validator == nil {
            // Without a validator the bytes on disk may belong to another version of the file: start over.
            try Self.remove(part, url: url)
            offset = 0
        }
        var attempts = 0
        while true {
            attempts += 1
            let resuming = offset > 0
            var httpRequest = HTTPClientRequest(url: url.absoluteString)
            httpRequest.method = .GET
            httpRequest.headers.add(name: "User-Agent", value: configuration.userAgent)
            httpRequest.headers.add(name: "Accept", value: "*/*")
            httpRequest.headers.add(name: "Accept-Encoding", value: "identity")
            if resuming, let validator {
                httpRequest.headers.add(name: "Range", value: "bytes=\(offset)-")
                httpRequest.headers.add(name: "If-Range", value: validator)
            }
            let response: HTTPClientResponse
            let finalURL: URL
            do {
                let exchange = try await network.execute(
                    httpRequest, profile: profile, maxRedirects: configuration.maxRedirects,
                    deadline: Self.nioDeadline(deadline), watch: watch)
                response = exchange.response
                finalURL = exchange.url
            } catch {
                throw classify(error, url: url, watch: watch)
            }
            let status = Int(response.status.code)
            let headers = response.headers
            var start: Int64 = 0
            var total: Int64?
            switch status {
            case 206:
                guard let range = headers.first(name: "Content-Range").flatMap(ContentRange.init) else {
                    throw DownloadError(
                        kind: .httpStatus,
                        message: "\(url.absoluteString): HTTP 206 without a usable Content-Range", url: url,
                        status: status)
                }
                if range.start != offset && range.start != 0 {
                    // The server sent a range starting elsewhere: the bytes on disk cannot be continued.
                    try Self.remove(part, url: url)
                    offset = 0
                    guard attempts < 3 else {
                        throw DownloadError(
                            kind: .httpStatus,
                            message: "\(url.absoluteString): the server answers a range that starts at \(range.start)",
                            url: url, status: status)
                    }
                    continue
                }
                start = range.start
                total = range.total ?? Self.contentLength(headers).map { range.start + $0 }
            case 200:
                start = 0
                total = Self.contentLength(headers)
            case 416 where resuming:
                // The .part is as long as the file or longer (or the file changed): start over.
                try Self.remove(part, url: url)
                offset = 0
                continue
            default:
                var message = "\(url.absoluteString): HTTP \(status) \(response.status.reasonPhrase)"
                if !(400...599).contains(status) { message += ", not a media file" }
                throw DownloadError(kind: .httpStatus, message: message, url: url, status: status)
            }
            let contentType = headers.first(name: "Content-Type")
            if Self.isTextWhereMediaWasAnnounced(contentType: contentType, announced: request.announcedType) {
                throw DownloadError(
                    kind: .notMedia,
                    message:
                        "\(url.absoluteString): the server sent \(contentType ?? "text") (an error page?) where the feed "
                        + "announced \(request.announcedType ?? "media")",
                    url: url, status: status)
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
            let written = try await write(
                response.body, to: part, from: start, total: total, deadline: deadline, url: url, watch: watch,
                progress: progress)
            if let total, written != total {
                throw Self.shortBody(url: url, got: written, of: total, cause: nil)
            }
            try await blockingIO { try Self.commit(part, to: request.destination, url: url) }
            return DownloadedMedia(
                file: request.destination, finalURL: finalURL, byteCount: written, resumedFrom: start,
                etag: etag, lastModified: lastModified, contentType: contentType)
        }
    }

    /// Streams `body` into `part` from byte `start` (truncating there), one chunk at a time; returns the file's size.
    private func write(
        _ body: HTTPClientResponse.Body, to part: URL, from start: Int64, total: Int64?,
        deadline: ContinuousClock.Instant,
        url: URL, watch: TransferWatch, progress: @Sendable (DownloadProgress) -> Void
    ) async throws -> Int64 {
        let file = try await blockingIO { try PartFile(path: part, truncatingAt: start, url: url) }
        defer { file.finish() }
        var size = start
        watch.bodyStarted(received: start, expected: total)
        do {
            for try await buffer in body {
                try await blockingIO { try buffer.withUnsafeReadableBytes { try file.append($0) } }
                size += Int64(buffer.readableBytes)
                watch.received(buffer.readableBytes)
                progress(
                    DownloadProgress(
                        receivedBytes: size, expectedBytes: total, resumedFrom: start, chunkBytes: buffer.readableBytes
                    ))
                if ContinuousClock.now > deadline {
                    throw timeoutError(url: url, watch: watch)
                }
            }
        } catch let error as DownloadError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            let classified = classify(error, url: url, watch: watch)
            if let total, let downloadError = classified as? DownloadError, downloadError.kind == .transport {
                throw Self.shortBody(url: url, got: size, of: total, cause: downloadError.message)
            }
            throw classified
        }
        try await blockingIO { try file.sync() }
        return size
    }

    /// Renames the fsynced `part` to `destination`, then fsyncs the directory so the new name survives a crash.
    private static func commit(_ part: URL, to destination: URL, url: URL) throws {
        guard rename(part.path, destination.path) == 0 else {
            throw DownloadError(
                kind: .io,
                message:
                    "cannot rename \(part.path) to \(destination.lastPathComponent): \(String(cString: strerror(errno)))",
                url: url)
        }
        let directory = destination.deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            defer { _ = close(descriptor) }
            if fsync(descriptor) != 0 && errno != EINVAL {
                throw DownloadError(
                    kind: .io, message: "cannot sync the folder \(directory): \(String(cString: strerror(errno)))",
                    url: url)
            }
        }
    }

    // MARK: - Stalls and timeouts

    /// The limits the watchdog holds a download to: no answer or no byte for the stall timeout, a body slower than
    /// the minimum rate, the whole download over the total timeout.
    var limits: TransferLimits {
        TransferLimits(
            nameLookup: configuration.connectTimeout, connect: configuration.connectTimeout,
            firstByte: configuration.stallTimeout, stall: configuration.stallTimeout,
            minimumRate: configuration.minimumRate, total: configuration.totalTimeout)
    }

    private func limitError(_ exceeded: TransferLimitExceeded, url: URL, watch: TransferWatch) -> DownloadError {
        switch exceeded.limit {
        case .total:
            return timeoutError(url: url, watch: watch)
        case .minimumRate:
            let got = Self.progress(watch)
            return DownloadError(
                kind: .stalled,
                message:
                    "\(url.absoluteString): too slow: under \(exceeded.limits.minimumRate?.bytesPerSecond ?? 0) bytes/s "
                    + "over \(Measure.duration(exceeded.duration)) (\(got); the .part is kept to resume)",
                url: url)
        case .nameLookup, .connect, .firstByte, .stall:
            return stalledError(url: url, watch: watch)
        }
    }

    /// What a download had received when a limit ended it: "got 10 of 20 bytes", or "got 10 bytes" without a length.
    private static func progress(_ watch: TransferWatch) -> String {
        let (received, expected) = watch.counts
        return expected.map { "got \(received) of \($0) bytes" } ?? "got \(received) bytes"
    }

    private func stalledError(url: URL, watch: TransferWatch) -> DownloadError {
        let got = Self.progress(watch)
        return DownloadError(
            kind: .stalled,
            message:
                "\(url.absoluteString): stalled: no byte arrived for \(Measure.duration(configuration.stallTimeout)) "
                + "(\(got); the .part is kept to resume)",
            url: url)
    }

    private func timeoutError(url: URL, watch: TransferWatch) -> DownloadError {
        let got = Self.progress(watch)
        return DownloadError(
            kind: .timeout,
            message:
                "\(url.absoluteString): timed out: not complete within \(Measure.duration(configuration.totalTimeout)) "
                + "(\(got))",
            url: url)
    }

    /// Sorts an error from AsyncHTTPClient or NIO into a ``DownloadError`` kind.
    private func classify(_ error: any Error, url: URL, watch: TransferWatch) -> any Error {
        if error is DownloadError || error is CancellationError { return error }
        let host = url.host ?? "the server"
        if let error = error as? HTTPNetwork.RedirectError {
            switch error {
            case .tooMany:
                return DownloadError(
                    kind: .tooManyRedirects,
                    message: "\(url.absoluteString): more than \(configuration.maxRedirects) redirects", url: url)
            case .cycle:
                return DownloadError(
                    kind: .tooManyRedirects, message: "\(url.absoluteString): the redirects go round in a circle",
                    url: url)
            }
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout:
                return stalledError(url: url, watch: watch)
            case .deadlineExceeded:
                return timeoutError(url: url, watch: watch)
            case .cancelled:
                return CancellationError()
            case .connectTimeout:
                return DownloadError(
                    kind: .transport,
                    message: "\(url.absoluteString): cannot connect to \(host) within "
                        + Measure.duration(configuration.connectTimeout),
                    url: url)
            default:
                break
            }
        }
        if Task.isCancelled { return CancellationError() }
        return DownloadError(
            kind: .transport, message: "\(url.absoluteString): \(Self.networkProblem(error, host: host))", url: url)
    }

    // MARK: - Helpers

    /// A network error in words that name no library type: the host cannot be resolved, refuses, or is unreachable.
    static func networkProblem(_ error: any Error, host: String) -> String {
        switch error {
        case let error as NameLookupError:
            switch error.kind {
            case .noSuchHost: return "cannot resolve the host name \(host) (no such host)"
            case .timedOut(let limit):
                return "cannot resolve the host name \(host): no answer within \(Measure.duration(limit))"
            case .nameServerUnavailable: return "cannot resolve the host name \(host): the name server did not answer"
            case .failed(let reason): return "cannot resolve the host name \(host): \(reason)"
            }
        case is SocketAddressError.UnknownHost:
            return "cannot resolve the host name \(host) (no such host, or no DNS)"
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return "cannot resolve the host name \(host) (no such host, or no DNS)"
            }
            if let first = error.connectionErrors.first {
                return networkProblem(first.error, host: host)
            }
            return "cannot connect to \(host): no address answered"
        case let error as IOError:
            return "cannot connect to \(host): \(String(cString: strerror(error.errnoCode)))"
        default:
            return "network error talking to \(host): \(ErrorWords.describe(error))"
        }
    }

    private static func shortBody(url: URL, got: Int64, of total: Int64, cause: String?) -> DownloadError {
        var message = "\(url.absoluteString): the body ended early: got \(got) of \(total) bytes"
        if let cause { message += " (\(cause))" }
        message += "; the .part is kept to resume"
        return DownloadError(kind: .shortBody, message: message, url: url)
    }

    /// The `If-Range` value: a strong ETag (a weak one cannot be used for ranges), else the Last-Modified date.
    static func ifRangeValidator(etag: String?, lastModified: String?) -> String? {
        if let etag, !etag.isEmpty, !etag.hasPrefix("W/") { return etag }
        if let lastModified, !lastModified.isEmpty { return lastModified }
        return nil
    }

    /// True when the server sent text (an HTML error page, a captive portal) where the feed did not announce text.
    static func isTextWhereMediaWasAnnounced(contentType: String?, announced: String?) -> Bool {
        guard let type = contentType.map(mediaType), type.hasPrefix("text/") else { return false }
        guard let announced = announced.map(mediaType), !announced.isEmpty else { return true }
        return !announced.hasPrefix("text/")
    }

    private static func mediaType(_ value: String) -> String {
        String(value.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
            .lowercased()
    }

    private static func contentLength(_ headers: HTTPHeaders) -> Int64? {
        headers.first(name: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    static func fileSize(_ url: URL) -> Int64? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    private static func remove(_ file: URL, url: URL) throws {
        guard unlink(file.path) == 0 || errno == ENOENT else {
            throw DownloadError(
                kind: .io, message: "cannot remove \(file.path): \(String(cString: strerror(errno)))", url: url)
        }
    }

    private static func nioDeadline(_ instant: ContinuousClock.Instant) -> NIODeadline {
        let left = ContinuousClock.now.duration(to: instant)
        let nanoseconds = left.components.seconds * 1_000_000_000 + left.components.attoseconds / 1_000_000_000
        return .now() + .nanoseconds(max(0, nanoseconds))
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
private func blockingIO<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
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

    init(path: URL, truncatingAt offset: Int64, url: URL) throws {
        self.path = path
        self.url = url
        descriptor = open(path.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.error("cannot open", path: path, url: url) }
        guard ftruncate(descriptor, off_t(offset)) == 0, lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
            let error = Self.error("cannot prepare", path: path, url: url)
            finish()
            throw error
        }
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let count = write(descriptor, pointer, remaining)
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.error("cannot write", path: path, url: url)
            }
            pointer += count
            remaining -= count
        }
    }

    func sync() throws {
        guard fsync(descriptor) == 0 else { throw Self.error("cannot sync", path: path, url: url) }
    }

    func finish() {
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
    }

    private static func error(_ what: String, path: URL, url: URL) -> DownloadError {
        let code = errno
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT {
            return DownloadError(kind: .notEnoughSpace, message: "\(what) \(path.path): \(reason)", url: url)
        }
        return DownloadError(kind: .io, message: "\(what) \(path.path): \(reason)", url: url)
    }
}
