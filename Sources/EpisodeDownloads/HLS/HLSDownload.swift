public import Foundation
import HTTPTransport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// HLS episodes saved as one file, complete or absent.
///
/// The playlist is read (a multivariant one gives its media playlist: ``HLSPlaylist/choose(variants:audio:)``); a
/// playlist without `#EXT-X-ENDLIST` is live and not saved, an encrypted one (AES-128, SAMPLE-AES) is refused, and so
/// is one whose summed `#EXTINF` is further from the episode's declared duration than ``hlsDurationTolerance(declared:)``
/// allows (``MediaRequest/declaredDuration``; nothing compared without one). Every
/// segment (and the fMP4 initialisation section) is downloaded as a media file is (``MediaDownloader/download(_:accepted:progress:)``:
/// the same first-byte, stall, minimum-rate and free-space limits, complete only at its announced length), a few at
/// a time, into `NAME.hls.part/`, where each complete segment stays until the episode is whole: a resumed download
/// fetches only the segments missing. When every segment of the playlist is there, they are joined in order (the
/// initialisation section first) into `NAME.part`, fsynced and renamed: MPEG-TS segments as `NAME.ts`, fMP4 as
/// `NAME.m4a` (audio only) or `NAME.mp4` (in place of a `.m3u8` extension the name took from the playlist's URL).
extension MediaDownloader {
    /// How many segments of one episode are fetched at once.
    public static let hlsSegmentsAtOnce = 4
    /// The largest playlist read.
    static let playlistLimit: Int64 = 5_000_000

    /// True when `url` and `type` announce an HLS playlist (`.m3u8`, `application/vnd.apple.mpegurl`,
    /// `application/x-mpegURL`).
    public static func isHLS(url: URL, type: String?) -> Bool {
        if let type, MediaSniffing.document(contentType: type) == .playlist { return true }
        return url.pathExtension.lowercased() == "m3u8"
    }

    /// How far, in seconds, an HLS playlist's summed `#EXTINF` may differ from the duration the feed declares for the
    /// episode (`itunes:duration`) before the episode is refused: 10% of the declared duration, at least 30 s (feeds
    /// round, and encoders pad the last segment) and at most 10 minutes (room for inserted ads, never for a missing
    /// part of the episode).
    public static func hlsDurationTolerance(declared: Double) -> Double {
        min(600, max(30, declared * 0.10))
    }

    /// The folder where `destination`'s segments wait until the episode is whole.
    public static func segmentFolder(for destination: URL) -> URL {
        URL(fileURLWithPath: destination.path + ".hls.part")
    }

    /// Downloads the HLS episode whose playlist is `request.url`.
    ///
    /// - Parameters:
    ///   - accepted: Called once the playlist is read and can be saved, before the first segment is fetched.
    ///   - progress: Bytes of segments so far (of the segments fetched in this run; `resumedFrom` counts those kept
    ///     from before).
    /// - Returns: The file, under `request.destination` with the extension its segments call for.
    /// - Throws: ``DownloadError`` (`.hls` for a live, encrypted or unsupported playlist; a segment's own failure), or
    ///   `CancellationError`. The segments already complete are kept for a resume.
    public func downloadHLS(
        _ request: MediaRequest, accepted: @escaping @Sendable (MediaResponse) async throws -> Void = { _ in },
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws -> DownloadedMedia {
        let (media, playlistURL, audioOnly) = try await mediaPlaylist(request.url)
        if let method = media.encryption { throw DownloadError(.hlsEncrypted(method: method), url: request.url) }
        guard media.isComplete else { throw DownloadError(.hlsLive, url: request.url) }
        if media.usesByteRanges {
            throw DownloadError(.hlsUnsupported(detail: "its segments are byte ranges of one file"), url: request.url)
        }
        guard !media.segments.isEmpty else {
            throw DownloadError(.hlsUnsupported(detail: "its playlist lists no segment"), url: request.url)
        }
        // The playlist alone says how long the file will last: a playlist that is not the episode the feed describes
        // (a trailer, a cut-down or wrong rendition) is refused before a segment is fetched.
        if let declared = request.declaredDuration, declared > 0 {
            let tolerance = Self.hlsDurationTolerance(declared: declared)
            if !(abs(media.duration - declared) <= tolerance) {
                throw DownloadError(
                    .hlsDurationMismatch(playlist: media.duration, declared: declared, tolerance: tolerance),
                    url: request.url)
            }
        }
        let folder = Self.segmentFolder(for: request.destination)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(
                .cannotCreateFolder(path: folder.path, reason: String(describing: error)), url: request.url)
        }
        try await accepted(
            MediaResponse(
                finalURL: playlistURL, etag: nil, lastModified: nil, expectedBytes: nil, resumedFrom: 0,
                contentType: "application/vnd.apple.mpegurl"))

        // The parts in order: the initialisation section, then every segment.
        let parts: [(url: URL, file: URL)] =
            (media.initSection.map { [(url: $0, file: folder.appendingPathComponent("init.seg"))] } ?? [])
            + media.segments.enumerated().map { index, segment in
                (url: segment.url, file: folder.appendingPathComponent(String(format: "%06d.seg", index)))
            }
        let kept = parts.filter { FileManager.default.fileExists(atPath: $0.file.path) }
        let keptBytes = kept.reduce(Int64(0)) { $0 + (Self.fileSize($1.file) ?? 0) }
        let counter = ByteCounter(start: keptBytes)
        let missing = parts.filter { !FileManager.default.fileExists(atPath: $0.file.path) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                guard next < missing.count else { return }
                let part = missing[next]
                next += 1
                group.addTask {
                    _ = try await download(
                        MediaRequest(url: part.url, destination: part.file),
                        progress: { report in
                            let total = counter.add(Int64(report.chunkBytes))
                            progress(
                                DownloadProgress(
                                    receivedBytes: total, expectedBytes: nil, resumedFrom: keptBytes,
                                    chunkBytes: report.chunkBytes))
                        })
                }
            }
            for _ in 0..<Self.hlsSegmentsAtOnce { startNext() }
            while try await group.next() != nil { startNext() }
        }
        // Every part of the playlist is here: join them, under the extension their container calls for (fMP4 is audio
        // only when its variant said so, or when its initialisation section holds no video track).
        let video = media.initSection.map { _ in Self.hasVideoTrack(folder.appendingPathComponent("init.seg")) }
        let ext = video == nil ? "ts" : (audioOnly || video == false ? "m4a" : "mp4")
        var base = request.destination
        if base.pathExtension.lowercased() == "m3u8" { base = base.deletingPathExtension() }
        let destination = base.appendingPathExtension(ext)
        let sizes = parts.map { Self.fileSize($0.file) }
        guard sizes.allSatisfy({ ($0 ?? 0) > 0 }) else {
            throw DownloadError(
                .hlsUnsupported(detail: "a segment went missing from \(folder.path) while the episode was joined"),
                url: request.url)
        }
        let total = sizes.reduce(Int64(0)) { $0 + ($1 ?? 0) }
        try FreeSpace.check(
            needed: total, margin: configuration.freeSpaceMargin, directory: destination.deletingLastPathComponent(),
            url: request.url)
        let partFile = URL(fileURLWithPath: destination.path + ".part")
        let files = parts.map(\.file)
        try await blockingIO {
            try Self.join(files, into: partFile, url: request.url)
            if FileManager.default.fileExists(atPath: destination.path) {
                _ = unlink(partFile.path)
                throw DownloadError(
                    .cannotRename(
                        path: partFile.path, to: destination.lastPathComponent,
                        reason: "a file of that name is there already, and podfresh did not write it"),
                    url: request.url)
            }
            try Self.commit(partFile, to: destination, url: request.url)
            try? FileManager.default.removeItem(at: folder)
        }
        return DownloadedMedia(
            file: destination, finalURL: playlistURL, byteCount: total, resumedFrom: keptBytes, etag: nil,
            lastModified: nil, contentType: ext == "ts" ? "video/mp2t" : (audioOnly ? "audio/mp4" : "video/mp4"),
            container: ext == "ts" ? nil : .mp4)
    }

    /// The media playlist behind `url` (read through a multivariant one), its URL, and whether it is audio only
    /// (the variant chosen said so).
    private func mediaPlaylist(_ url: URL) async throws -> (HLSPlaylist.MediaPlaylist, URL, Bool) {
        var current = url
        var audioOnly = false
        for _ in 0..<3 {
            let (text, source) = try await fetchPlaylist(current)
            let playlist: HLSPlaylist
            do {
                playlist = try HLSPlaylist.parse(text, base: source)
            } catch {
                throw DownloadError(
                    .hlsUnsupported(detail: "its playlist does not read (\(error))"), url: current)
            }
            switch playlist {
            case .media(let media):
                return (media, source, audioOnly)
            case .multivariant(let variants, let audio):
                guard let chosen = HLSPlaylist.choose(variants: variants, audio: audio) else {
                    throw DownloadError(.hlsUnsupported(detail: "no variant to choose"), url: current)
                }
                audioOnly =
                    variants.first(where: { $0.url == chosen })?.isAudioOnly ?? audio.contains { $0.url == chosen }
                current = chosen
            }
        }
        throw DownloadError(.hlsUnsupported(detail: "its playlists lead to more playlists"), url: url)
    }

    /// The playlist at `url` as text, and the URL that served it.
    private func fetchPlaylist(_ url: URL) async throws -> (String, URL) {
        let request = ExtraRequest(
            url: url, kind: .chapters, base: URL(fileURLWithPath: "/"), sizeLimit: Self.playlistLimit)
        let watch = TransferWatch(clock: configuration.clock)
        let body: ([UInt8], String?, URL)
        do {
            body = try await watch.run(limits: limits) { try await fetchBody(request, watch: watch) }
        } catch let exceeded as TransferLimitExceeded {
            throw DownloadError(.transport(TransportFailure(exceeded, host: url.host ?? "the server")), url: url)
        }
        return (String(decoding: body.0, as: UTF8.self), body.2)
    }

    /// True when the initialisation section at `file` has a video track (a `hdlr` of type `vide`).
    static func hasVideoTrack(_ file: URL) -> Bool {
        let bytes = Array((try? Data(contentsOf: file)) ?? Data())
        let hdlr = Array("hdlr".utf8)
        let vide = Array("vide".utf8)
        var i = 0
        while i + 16 <= bytes.count {
            if Array(bytes[i..<(i + 4)]) == hdlr && Array(bytes[(i + 12)..<(i + 16)]) == vide { return true }
            i += 1
        }
        return false
    }

    /// Writes `files`, in order, into `part` (replaced), and fsyncs it; removes it when that fails.
    static func join(_ files: [URL], into part: URL, url: URL) throws {
        let out = open(part.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard out >= 0 else {
            throw DownloadError(
                .fileFailed(.open, path: part.path, reason: String(cString: strerror(errno)), diskFull: false), url: url
            )
        }
        var failure: (DownloadError.FileOperation, Int32)?
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        outer: for file in files {
            let input = open(file.path, O_RDONLY | O_CLOEXEC)
            guard input >= 0 else {
                failure = (.open, errno)
                break
            }
            defer { _ = close(input) }
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = (.write, errno)
                    break outer
                }
                if count == 0 { break }
                var done = 0
                while done < count {
                    let written = buffer.withUnsafeBytes { write(out, $0.baseAddress! + done, count - done) }
                    if written < 0 {
                        if errno == EINTR { continue }
                        failure = (.write, errno)
                        break outer
                    }
                    done += written
                }
            }
        }
        if failure == nil, fsync(out) != 0 { failure = (.sync, errno) }
        _ = close(out)
        if let (operation, code) = failure {
            _ = unlink(part.path)
            throw DownloadError.file(operation, path: part.path, code: code, url: url)
        }
    }
}

/// The bytes of one HLS episode's segments received so far, added to from the segments' tasks.
private final class ByteCounter: Sendable {
    private let total: Mutex<Int64>

    init(start: Int64) { total = Mutex(start) }

    /// Adds `bytes` and returns the new total.
    func add(_ bytes: Int64) -> Int64 {
        total.withLock {
            $0 += bytes
            return $0
        }
    }
}
