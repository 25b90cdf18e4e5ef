public import Foundation
import HTTPTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a file beside an episode is (`podfresh set FEED --extras on`).
public enum ExtraKind: String, Sendable, Hashable, CaseIterable {
    /// A `podcast:transcript`: WebVTT, SRT, JSON or HTML by its declared type.
    case transcript
    /// `podcast:chapters` JSON.
    case chapters
    /// The episode's image, else the feed's.
    case image

    /// The largest file of this kind kept: 5 MB for text, 20 MB for an image.
    public var sizeLimit: Int64 { self == .image ? 20_000_000 : 5_000_000 }
}

/// One file beside an episode to fetch: from `url`, saved as `base` plus the extension its content calls for
/// (`Ep 1` → `Ep 1.vtt`, `Ep 1.chapters.json`, `Ep 1.jpg`).
public struct ExtraRequest: Sendable, Hashable {
    public var url: URL
    public var kind: ExtraKind
    /// The type the feed declares (a transcript's `type`), which decides how it is checked and named.
    public var declaredType: String?
    /// The path without its extension, beside the media file (`/dir/Ep 1`, or `/dir/Ep 1.en` for a second
    /// transcript).
    public var base: URL
    /// The largest body kept.
    public var sizeLimit: Int64

    public init(url: URL, kind: ExtraKind, declaredType: String? = nil, base: URL, sizeLimit: Int64? = nil) {
        self.url = url
        self.kind = kind
        self.declaredType = declaredType
        self.base = base
        self.sizeLimit = sizeLimit ?? kind.sizeLimit
    }
}

/// A file beside an episode, saved.
public struct SavedExtra: Sendable, Hashable {
    /// The file, complete under its final name.
    public var file: URL
    public var byteCount: Int64
}

extension MediaDownloader {
    /// Fetches one file beside an episode, complete or not at all: the body (at most `request.sizeLimit` bytes, a
    /// larger one refused as soon as it is announced or passes the limit) is checked to be what its kind says
    /// (``ExtraContent``), written to `NAME.part`, fsynced and renamed; an error page, a document of another kind, a
    /// body cut short or too large leaves nothing. A file already under the final name is never replaced.
    ///
    /// - Throws: ``DownloadError`` (``DownloadError/Kind/tooLarge``, ``DownloadError/Kind/wrongContent``, and what a
    ///   media download can fail with), or `CancellationError`.
    public func fetchExtra(_ request: ExtraRequest) async throws -> SavedExtra {
        let url = request.url
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw DownloadError(.notHTTPURL, url: url)
        }
        let watch = TransferWatch(clock: configuration.clock)
        let body: (bytes: [UInt8], contentType: String?, source: URL)
        do {
            body = try await watch.run(limits: limits) { try await fetchBody(request, watch: watch) }
        } catch let exceeded as TransferLimitExceeded {
            throw DownloadError(.transport(TransportFailure(exceeded, host: url.host ?? "the server")), url: url)
        }
        let ext = try ExtraContent.check(
            body.bytes, kind: request.kind, declaredType: request.declaredType, contentType: body.contentType, url: url)
        let destination = URL(fileURLWithPath: request.base.path + "." + ext)
        let part = URL(fileURLWithPath: destination.path + ".part")
        let bytes = body.bytes
        try await blockingIO {
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.writeWhole(bytes, to: part, url: url)
            if FileManager.default.fileExists(atPath: destination.path) {
                _ = unlink(part.path)
                throw DownloadError(
                    .cannotRename(
                        path: part.path, to: destination.lastPathComponent,
                        reason: "a file of that name is there already, and podfresh did not write it"),
                    url: url)
            }
            do {
                try Self.commit(part, to: destination, url: url)
            } catch {
                _ = unlink(part.path)
                throw error
            }
        }
        return SavedExtra(file: destination, byteCount: Int64(bytes.count))
    }

    /// The image at `url` to embed in a file's tags: at most ``EpisodeTags/imageLimit`` bytes, a JPEG or a PNG.
    ///
    /// - Returns: nil when it is another image format.
    /// - Throws: ``DownloadError`` as ``fetchExtra(_:)`` does (too large, not an image, the transfer's failures).
    public func fetchArtwork(_ url: URL) async throws -> Artwork? {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw DownloadError(.notHTTPURL, url: url)
        }
        let request = ExtraRequest(
            url: url, kind: .image, base: URL(fileURLWithPath: "/"), sizeLimit: EpisodeTags.imageLimit)
        let watch = TransferWatch(clock: configuration.clock)
        let body: (bytes: [UInt8], contentType: String?, source: URL)
        do {
            body = try await watch.run(limits: limits) { try await fetchBody(request, watch: watch) }
        } catch let exceeded as TransferLimitExceeded {
            throw DownloadError(.transport(TransportFailure(exceeded, host: url.host ?? "the server")), url: url)
        }
        _ = try ExtraContent.check(
            body.bytes, kind: .image, declaredType: nil, contentType: body.contentType, url: url)
        return Artwork(bytes: body.bytes)
    }

    /// The whole body of `request`, at most its size limit, its `Content-Type` and the URL that served it (after
    /// redirects).
    func fetchBody(_ request: ExtraRequest, watch: TransferWatch) async throws -> ([UInt8], String?, URL) {
        let url = request.url
        var httpRequest = HTTPNetwork.Request(url: url)
        httpRequest.addHeader("User-Agent", configuration.userAgent)
        httpRequest.addHeader("Accept", "*/*")
        let deadline = ContinuousClock.now + configuration.totalTimeout
        let response: HTTPNetwork.Response
        let source: URL
        do {
            let exchange = try await network.execute(
                httpRequest, profile: profile, maxRedirects: configuration.maxRedirects, deadline: deadline,
                watch: watch)
            response = exchange.response
            source = exchange.url
        } catch {
            throw classify(error, url: url)
        }
        guard response.status == 200 else {
            throw DownloadError(.httpStatus(response.status, reasonPhrase: response.reasonPhrase), url: url)
        }
        let contentType = response.headers.first(name: "Content-Type")
        let encoded = !(response.headers.first(name: "Content-Encoding") ?? "identity").lowercased()
            .trimmingCharacters(in: .whitespaces).elementsEqual("identity")
        let announced =
            encoded
            ? nil
            : response.headers.first(name: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        if let announced, announced > request.sizeLimit {
            throw DownloadError(.tooLarge(limit: request.sizeLimit, received: announced), url: url)
        }
        if announced == 0 {
            throw DownloadError(.emptyBody(status: response.status, contentType: contentType), url: url)
        }
        var bytes: [UInt8] = []
        watch.bodyStarted(received: 0, expected: announced)
        do {
            for try await chunk in response.body {
                let received = Int64(bytes.count + chunk.count)
                if received > request.sizeLimit {
                    throw DownloadError(.tooLarge(limit: request.sizeLimit, received: received), url: url)
                }
                chunk.withUnsafeBytes { bytes.append(contentsOf: $0) }
                watch.received(chunk.count)
            }
        } catch let error as DownloadError {
            throw error
        } catch {
            let classified = classify(
                error, url: url, source: source,
                body: TransportFailure.BodyProgress(receivedBytes: Int64(bytes.count), expectedBytes: announced))
            if let announced, let downloadError = classified as? DownloadError, downloadError.kind == .transport {
                throw DownloadError(
                    .shortBody(received: Int64(bytes.count), total: announced, cutBy: downloadError.cause), url: url)
            }
            throw classified
        }
        if let announced, Int64(bytes.count) != announced {
            throw DownloadError(.shortBody(received: Int64(bytes.count), total: announced, cutBy: nil), url: url)
        }
        if bytes.isEmpty {
            throw DownloadError(.emptyBody(status: response.status, contentType: contentType), url: url)
        }
        return (bytes, contentType, source)
    }

    /// Writes `bytes` to `part` (replacing it) and fsyncs it; removes it when that fails.
    private static func writeWhole(_ bytes: [UInt8], to part: URL, url: URL) throws {
        let descriptor = open(part.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw DownloadError(
                .fileFailed(.open, path: part.path, reason: String(cString: strerror(errno)), diskFull: false), url: url
            )
        }
        var failure: (DownloadError.FileOperation, Int32)?
        bytes.withUnsafeBytes { buffer in
            guard var pointer = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let count = write(descriptor, pointer, remaining)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = (.write, errno)
                    return
                }
                pointer += count
                remaining -= count
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = (.sync, errno) }
        _ = close(descriptor)
        if let (operation, code) = failure {
            _ = unlink(part.path)
            throw DownloadError.file(operation, path: part.path, code: code, url: url)
        }
    }
}

/// Whether a fetched extra is what its kind says, and the extension it is saved with.
public enum ExtraContent {
    /// Checks `bytes` against `kind` (and a transcript's declared type, else its URL's extension, else its
    /// `Content-Type`) and returns the file's extension: `vtt`, `srt`, `json`, `html`, `txt`; `chapters.json`; `jpg`,
    /// `png`, `gif`, `webp`.
    /// - Throws: ``DownloadError`` ``DownloadError/Cause/notTheExtra(expected:found:contentType:)``.
    public static func check(
        _ bytes: [UInt8], kind: ExtraKind, declaredType: String?, contentType: String?, url: URL
    ) throws(DownloadError) -> String {
        func refuse(_ expected: String) -> DownloadError {
            DownloadError(
                .notTheExtra(expected: expected, found: MediaSniffing.document(bytes), contentType: contentType),
                url: url)
        }
        switch kind {
        case .chapters:
            guard isChaptersJSON(bytes) else { throw refuse("chapters JSON (an object with a \"chapters\" array)") }
            return "chapters.json"
        case .image:
            guard let ext = imageExtension(bytes) else { throw refuse("an image (JPEG, PNG, GIF or WebP)") }
            return ext
        case .transcript:
            let format = transcriptFormat(declaredType: declaredType, url: url, contentType: contentType)
            switch format {
            case "vtt":
                guard text(bytes).hasPrefix("WEBVTT") else { throw refuse("a WebVTT transcript") }
            case "srt":
                guard isSRT(bytes) else { throw refuse("an SRT transcript") }
            case "json":
                guard (try? JSONSerialization.jsonObject(with: Data(bytes))) != nil else {
                    throw refuse("a JSON transcript")
                }
            case "html":
                guard isHTML(bytes) else { throw refuse("an HTML transcript") }
            default:
                // Plain text: anything readable but a page of markup, which is what an error page is.
                guard MediaSniffing.document(bytes) == nil, String(validating: bytes, as: UTF8.self) != nil else {
                    throw refuse("a text transcript")
                }
            }
            return format
        }
    }

    /// `vtt`, `srt`, `json`, `html` or `txt`: from the declared type, else the URL's extension, else the answer's type.
    static func transcriptFormat(declaredType: String?, url: URL, contentType: String?) -> String {
        func format(type: String?) -> String? {
            guard let type = type.map(MediaSniffing.mediaType) else { return nil }
            switch type {
            case "text/vtt", "text/webvtt": return "vtt"
            case "application/x-subrip", "application/srt", "text/srt", "text/x-srt", "application/x-srt": return "srt"
            case "application/json", "text/json": return "json"
            case "text/html", "application/xhtml+xml": return "html"
            case "text/plain": return "txt"
            default: return nil
            }
        }
        if let declared = format(type: declaredType) { return declared }
        switch url.pathExtension.lowercased() {
        case "vtt": return "vtt"
        case "srt": return "srt"
        case "json": return "json"
        case "html", "htm": return "html"
        case "txt": return "txt"
        default: return format(type: contentType) ?? "txt"
        }
    }

    private static func text(_ bytes: [UInt8]) -> String {
        var sample = Array(bytes.prefix(256))
        if sample.starts(with: [0xEF, 0xBB, 0xBF]) { sample.removeFirst(3) }
        return String(decoding: sample, as: UTF8.self)
    }

    /// An object whose `chapters` is an array (the podcast namespace's JSON chapters format).
    static func isChaptersJSON(_ bytes: [UInt8]) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return false }
        return object["chapters"] is [Any]
    }

    /// A first cue number, and a `-->` timing line.
    static func isSRT(_ bytes: [UInt8]) -> Bool {
        let lines = text(bytes).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lines.first(where: { !$0.isEmpty }), first.allSatisfy(\.isNumber) else { return false }
        return lines.prefix(4).contains { $0.contains("-->") }
    }

    /// Markup that opens like an HTML document or fragment.
    static func isHTML(_ bytes: [UInt8]) -> Bool {
        if MediaSniffing.document(bytes) == .html { return true }
        let lowered = text(bytes).lowercased()
        return lowered.contains("<html") || lowered.contains("<body") || lowered.contains("<p")
            || lowered.contains("<cite") || lowered.contains("<time")
    }

    /// The image format the first bytes show, as an extension; nil for anything else.
    static func imageExtension(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return "gif" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "webp"
        }
        return nil
    }
}
