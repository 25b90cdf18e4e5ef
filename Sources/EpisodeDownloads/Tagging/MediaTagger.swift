public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes an episode's tags into a file podfresh downloaded and verified: the new tags, then the file's audio
/// bytes copied unchanged, go to `NAME.tags.part`, which is fsynced and renamed over the file (then the folder
/// fsynced), so the file is always either as downloaded or wholly tagged. The file is streamed (never read whole):
/// memory stays at the tags plus one buffer whatever the file's size.
///
/// - MP3 (an ID3v2 tag or an MPEG audio frame first): the ID3v2 tag(s) at the front are replaced by one v2.4 tag
///   (merged with the old one's other frames with `merge`); what follows, the MPEG frames and any ID3v1
///   tag at the end, is copied byte for byte.
/// - MP4/M4A: `moov` gets a new `udta/meta/ilst`; `mdat` is copied byte for byte; when `moov` comes before the media
///   data every chunk offset (`stco`, `co64`) moves by what `moov` grew.
/// - Anything else is left untouched (``Result/notTaggable(_:)``).
public enum MediaTagger {
    /// What tagging did.
    public enum Result: Sendable, Hashable {
        /// The file now carries the tags, in this format.
        case tagged(Format)
        /// The file's container has no tags podfresh writes (Ogg, FLAC, WAV, MPEG-TS…): it was left untouched.
        case notTaggable(MediaContainer?)
    }

    /// The tag format written.
    public enum Format: String, Sendable, Hashable {
        case id3v24 = "id3v2.4"
        case mp4 = "mp4"
    }

    /// The largest tag block (an old ID3v2 tag, or `moov`) read into memory.
    static let metadataLimit = 64 << 20
    /// The copy buffer.
    static let bufferSize = 1 << 20

    /// Tags `file`.
    /// - Parameters:
    ///   - merge: Keep the file's other tags (`set FEED --tags merge`); else the episode's tags replace them.
    ///   - expectedSize: The size podfresh verified; a file of any other size is not rewritten.
    /// - Throws: ``TagWriteError``; the file is then as it was.
    public static func tag(
        _ file: URL, with tags: EpisodeTags, merge: Bool, expectedSize: Int64? = nil
    ) throws(TagWriteError) -> Result {
        let path = file.path
        let source = try Source(path: path)
        defer { source.release() }
        if let expectedSize, source.size != expectedSize { throw TagWriteError(.changedMeanwhile(path: path)) }
        let head = try source.read(at: 0, count: 64)
        switch MediaSniffing.container(head) {
        case .id3?, .mpegAudio?:
            return try tagMP3(source, tags: tags, merge: merge)
        case .mp4?:
            return try tagMP4(source, tags: tags, merge: merge)
        case let other:
            return .notTaggable(other)
        }
    }

    /// ``tag(_:with:merge:expectedSize:)`` on NIO's thread pool, so that a slow disk never holds a thread of
    /// Swift's cooperative pool.
    public static func tagOffPool(
        _ file: URL, with tags: EpisodeTags, merge: Bool, expectedSize: Int64? = nil
    ) async throws(TagWriteError) -> Result {
        do {
            return try await blockingIO { try tag(file, with: tags, merge: merge, expectedSize: expectedSize) }
        } catch let error as TagWriteError {
            throw error
        } catch {
            throw TagWriteError(
                .file(operation: "open", path: file.path, reason: String(describing: error), diskFull: false))
        }
    }

    // MARK: - MP3

    private static func tagMP3(_ source: Source, tags: EpisodeTags, merge: Bool) throws(TagWriteError) -> Result {
        var audioStart = 0
        var existing: [ID3v2.Frame] = []
        // Tags may be stacked: each is read (to merge) and all are replaced by one.
        while let length = ID3v2.tagLength(header: try source.read(at: audioStart, count: 10)) {
            guard Int64(audioStart + length) <= source.size else {
                throw MP4Metadata.malformed(source.path, "the ID3v2 tag runs past the end of the file")
            }
            if merge {
                guard length <= metadataLimit else {
                    throw MP4Metadata.malformed(source.path, "the ID3v2 tag is larger than 64 MB")
                }
                existing += try ID3v2.frames(of: try source.read(at: audioStart, count: length), path: source.path)
            }
            audioStart += length
        }
        let frames = ID3v2.merged(existing: existing, ours: ID3v2.frames(for: tags), merge: merge)
        try source.rewrite(replacing: 0..<Int64(audioStart), with: ID3v2.render(frames))
        return .tagged(.id3v24)
    }

    // MARK: - MP4

    private static func tagMP4(_ source: Source, tags: EpisodeTags, merge: Bool) throws(TagWriteError) -> Result {
        var offset: Int64 = 0
        var moovRange: Range<Int64>?
        var dataAfterMoov = false
        // Fragments after moov must place their data relative to themselves; an index of absolute offsets
        // (`mfra`) would be moved.
        var fragmentsRelative = true
        while offset + 8 <= source.size {
            let header = try source.read(at: offset, count: 16)
            var size = Int64(ID3v2.bigEndian(header[0..<4]))
            let type = Array(header[4..<8])
            if size == 1 {
                guard header.count == 16 else { throw MP4Metadata.malformed(source.path, "a box is cut short") }
                size = Int64(ID3v2.bigEndian(header[8..<16]))
            } else if size == 0 {
                size = source.size - offset
            }
            guard size >= 8, offset + size <= source.size else {
                throw MP4Metadata.malformed(
                    source.path, "a top-level box (\(MP4Metadata.name(type))) runs past the end of the file")
            }
            if type == Array("moov".utf8) {
                guard moovRange == nil else { throw MP4Metadata.malformed(source.path, "the file has two moov boxes") }
                moovRange = offset..<(offset + size)
            } else if moovRange != nil, type == Array("mdat".utf8) || type == Array("moof".utf8) {
                dataAfterMoov = true
            }
            if type == Array("moof".utf8) {
                guard size <= metadataLimit else {
                    throw MP4Metadata.malformed(source.path, "a moof box is larger than 64 MB")
                }
                let moof = try source.read(at: offset, count: Int(size))
                if ID3v2.bigEndian(moof[0..<4]) == 1 {
                    fragmentsRelative = false
                } else if try !MP4Metadata.fragmentIsRelative(moof, path: source.path) {
                    fragmentsRelative = false
                }
            } else if type == Array("mfra".utf8) {
                fragmentsRelative = false
            }
            offset += size
        }
        guard let moovRange else { throw MP4Metadata.malformed(source.path, "the file has no moov box") }
        guard moovRange.count <= metadataLimit else {
            throw MP4Metadata.malformed(source.path, "its moov box is larger than 64 MB")
        }
        var moov = try source.read(at: moovRange.lowerBound, count: Int(moovRange.count))
        if ID3v2.bigEndian(moov[0..<4]) == 1 {
            // A 64-bit header around a small moov: the same box with a 32-bit one.
            moov = MP4Metadata.box("moov", Array(moov[16...]))
        }
        let ours = MP4Metadata.items(for: tags)
        var rewritten = try MP4Metadata.rewrite(
            moov: moov, ours: ours, merge: merge, shift: 0, shiftFrom: 0, path: source.path,
            fragmentsRelative: fragmentsRelative)
        let shift = rewritten.count - Int(moovRange.count)
        if dataAfterMoov && shift != 0 {
            rewritten = try MP4Metadata.rewrite(
                moov: moov, ours: ours, merge: merge, shift: shift, shiftFrom: Int(moovRange.upperBound),
                path: source.path, fragmentsRelative: fragmentsRelative)
        }
        try source.rewrite(replacing: moovRange, with: rewritten)
        return .tagged(.mp4)
    }

    // MARK: - The file

    /// The verified file, open for reading, and what it was when opened (to tell whether it changed).
    private struct Source {
        let path: String
        let descriptor: Int32
        let identity: stat
        var size: Int64 { Int64(identity.st_size) }

        init(path: String) throws(TagWriteError) {
            self.path = path
            descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { throw Self.failure("open", path) }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                let error = Self.failure("read", path)
                _ = close(descriptor)
                throw error
            }
            guard info.st_mode & S_IFMT == S_IFREG else {
                _ = close(descriptor)
                throw TagWriteError(.changedMeanwhile(path: path))
            }
            identity = info
        }

        func release() { _ = close(descriptor) }

        static func failure(_ operation: String, _ path: String, code: Int32 = errno) -> TagWriteError {
            TagWriteError(
                .file(
                    operation: operation, path: path, reason: String(cString: strerror(code)),
                    diskFull: code == ENOSPC || code == EDQUOT))
        }

        /// Up to `count` bytes at `offset` (fewer at the end of the file).
        func read(at offset: some BinaryInteger, count: Int) throws(TagWriteError) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            var filled = 0
            var failed: Int32 = 0
            bytes.withUnsafeMutableBytes { buffer in
                while filled < count {
                    let n = pread(
                        descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
                    if n < 0 {
                        if errno == EINTR { continue }
                        failed = errno
                        return
                    }
                    if n == 0 { return }
                    filled += n
                }
            }
            if failed != 0 { throw Self.failure("read", path, code: failed) }
            bytes.removeLast(count - filled)
            return bytes
        }

        /// Writes `NAME.tags.part`: the file's bytes before `range`, `replacement`, the bytes after it; then fsyncs
        /// it and renames it over the file, if the file is still the one opened.
        func rewrite(replacing range: Range<Int64>, with replacement: [UInt8]) throws(TagWriteError) {
            let partPath = path + ".tags.part"
            let out = open(partPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(identity.st_mode & 0o777))
            guard out >= 0 else {
                if errno == EEXIST { throw TagWriteError(.partExists(path: partPath)) }
                throw Self.failure("open", partPath)
            }
            var committed = false
            defer {
                _ = close(out)
                if !committed { _ = unlink(partPath) }
            }
            try copy(0..<range.lowerBound, to: out, partPath: partPath)
            try put(replacement, to: out, partPath: partPath)
            try copy(range.upperBound..<size, to: out, partPath: partPath)
            guard fsync(out) == 0 else { throw Self.failure("sync", partPath) }
            // Still the file podfresh verified: same inode, size and modification time under the same name.
            var now = stat()
            var named = stat()
            guard fstat(descriptor, &now) == 0, stat(path, &named) == 0, named.st_ino == identity.st_ino,
                named.st_dev == identity.st_dev, now.st_size == identity.st_size,
                now.st_mtim.tv_sec == identity.st_mtim.tv_sec, now.st_mtim.tv_nsec == identity.st_mtim.tv_nsec
            else { throw TagWriteError(.changedMeanwhile(path: path)) }
            guard rename(partPath, path) == 0 else { throw Self.failure("rename", partPath) }
            committed = true
            let folder = (path as NSString).deletingLastPathComponent
            let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                _ = fsync(directory)
                _ = close(directory)
            }
        }

        private func copy(_ range: Range<Int64>, to out: Int32, partPath: String) throws(TagWriteError) {
            var offset = range.lowerBound
            var buffer = [UInt8](repeating: 0, count: MediaTagger.bufferSize)
            while offset < range.upperBound {
                let want = Int(min(Int64(MediaTagger.bufferSize), range.upperBound - offset))
                var got = 0
                var failed: Int32 = 0
                buffer.withUnsafeMutableBytes { raw in
                    while true {
                        let n = pread(descriptor, raw.baseAddress!, want, off_t(offset))
                        if n < 0 && errno == EINTR { continue }
                        if n < 0 { failed = errno }
                        got = max(n, 0)
                        return
                    }
                }
                if failed != 0 { throw Self.failure("read", path, code: failed) }
                // The file got shorter under us: not the file that was verified.
                guard got > 0 else { throw TagWriteError(.changedMeanwhile(path: path)) }
                try put(buffer[0..<got], to: out, partPath: partPath)
                offset += Int64(got)
            }
        }

        private func put(_ bytes: some ContiguousBytes, to out: Int32, partPath: String) throws(TagWriteError) {
            var failed: Int32 = 0
            bytes.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let n = write(out, raw.baseAddress! + done, raw.count - done)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failed = errno
                        return
                    }
                    done += n
                }
            }
            if failed != 0 { throw Self.failure("write", partPath, code: failed) }
        }
    }
}
