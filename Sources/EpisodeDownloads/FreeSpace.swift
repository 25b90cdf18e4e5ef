public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Free space on the file system of a download directory, and the check made before a download whose length is known.
public enum FreeSpace {
    /// How much room to leave beyond the file itself: a fraction of the file, at least a small minimum and at most a
    /// cap, so a small file needs little room and a large one never asks for more than the cap.
    public struct Margin: Sendable, Equatable {
        /// A fraction of the file's size (0.05 is 5%).
        public var fraction: Double
        /// At least this many bytes.
        public var minimumBytes: Int64
        /// At most this many bytes.
        public var maximumBytes: Int64

        /// A margin of `fraction` of the file, at least `minimumBytes` and at most `maximumBytes`.
        public init(fraction: Double, minimumBytes: Int64, maximumBytes: Int64 = .max) {
            self.fraction = fraction
            self.minimumBytes = minimumBytes
            self.maximumBytes = max(minimumBytes, maximumBytes)
        }

        /// 10% of the file, at least 1 MiB and at most 100 MB: a 1 MiB episode needs 2 MiB free, a 50 MB one 55 MB,
        /// a 2 GB video 2.1 GB.
        public static let standard = Margin(fraction: 0.10, minimumBytes: 1 << 20, maximumBytes: 100_000_000)
        /// No margin at all.
        public static let none = Margin(fraction: 0, minimumBytes: 0)

        /// The room to keep free besides a file of `bytes`.
        public func bytes(for bytes: Int64) -> Int64 {
            min(maximumBytes, max(minimumBytes, Int64((Double(max(0, bytes)) * fraction).rounded(.up))))
        }
    }

    /// The bytes an unprivileged process may still write on the file system holding `directory` (statvfs
    /// `f_bavail × f_frsize`). A directory that does not exist yet is measured at its nearest existing ancestor.
    public static func availableBytes(at directory: URL) throws(DownloadError) -> Int64 {
        var path = directory.standardizedFileURL.path
        while !FileManager.default.fileExists(atPath: path) && path != "/" && !path.isEmpty {
            path = (path as NSString).deletingLastPathComponent
        }
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else {
            let reason = String(cString: strerror(errno))
            throw DownloadError(.cannotReadFreeSpace(path: path, reason: reason))
        }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    /// Refuses a download of `needed` more bytes into `directory` when `available` bytes would not hold it plus the
    /// margin; the message says how much is needed and how much is free.
    public static func check(
        needed: Int64, available: Int64, margin: Margin = .standard, directory: URL, url: URL? = nil
    ) throws(DownloadError) {
        guard needed > 0 else { return }
        let required = needed + margin.bytes(for: needed)
        guard required > available else { return }
        throw DownloadError(
            .notEnoughSpace(directory: directory.path, needed: needed, required: required, available: available),
            url: url)
    }

    /// Measures `directory` and checks that `needed` more bytes fit (``check(needed:available:margin:directory:url:)``).
    public static func check(
        needed: Int64, margin: Margin = .standard, directory: URL, url: URL? = nil
    ) throws(DownloadError) {
        guard needed > 0 else { return }
        try check(
            needed: needed, available: availableBytes(at: directory), margin: margin, directory: directory, url: url)
    }
}
