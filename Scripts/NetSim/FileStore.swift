import Foundation
import NIOCore
import Synchronization

/// The corpus files, read from disk on first use and kept in memory, each with the validators a static file server
/// would give it (nginx's: a strong ETag from the modification time and size, and Last-Modified).
final class FileStore: Sendable {
    /// One file ready to serve.
    struct Entry: Sendable {
        var plain: ByteBuffer
        /// The `.gz` beside it, when there is one.
        var gzip: ByteBuffer?
        var etag: String
        var lastModified: String
        var modified: Date
    }

    private let root: URL
    private let cache = Mutex<[String: Entry]>([:])

    init(root: String) { self.root = URL(fileURLWithPath: root) }

    /// The file at `relativePath` under the corpus folder, or nil when it cannot be read.
    func entry(_ relativePath: String) -> Entry? {
        if let hit = cache.withLock({ $0[relativePath] }) { return hit }
        let url = root.appendingPathComponent(relativePath)
        guard let data = try? Data(contentsOf: url),
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        let gzipData = try? Data(contentsOf: url.appendingPathExtension("gz"))
        let seconds = Int(modified.timeIntervalSince1970)
        let entry = Entry(
            plain: ByteBuffer(bytes: data),
            gzip: gzipData.map { ByteBuffer(bytes: $0) },
            etag: "\"\(String(seconds, radix: 16))-\(String(data.count, radix: 16))\"",
            lastModified: Self.httpDate(modified),
            modified: Date(timeIntervalSince1970: TimeInterval(seconds)))
        cache.withLock { $0[relativePath] = entry }
        return entry
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}
