import Foundation
import NIOPosix

/// Reads feeds from `file://` URLs, streaming them through the consumer in 64 KiB chunks. A conditional request whose
/// `lastModified` equals the file's modification time (as an HTTP-date) is answered "not modified".
public struct FileFeedSource: FeedSource {
    private let maxBodyBytes: Int

    /// - Parameter maxBodyBytes: The largest file accepted.
    public init(maxBodyBytes: Int = 75_000_000) {
        self.maxBodyBytes = maxBodyBytes
    }

    public func fetch<Consumer: FeedBodyConsumer>(
        _ request: FeedRequest,
        consumer makeConsumer: (FeedResponseHead) async throws -> Consumer
    ) async throws -> FeedFetchResult<Consumer> {
        guard request.url.isFileURL else {
            throw FeedFetchError(.notFileURL(url: request.url.absoluteString))
        }
        let path = request.url.path
        // Every file operation runs on NIO's thread pool: a slow disk never holds a thread of the cooperative pool.
        let (isFolder, modificationDate, size): (Bool, Date?, Int)
        do {
            (isFolder, modificationDate, size) = try await NIOThreadPool.singleton.runIfActive {
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                return (
                    attributes[.type] as? FileAttributeType == .typeDirectory,
                    attributes[.modificationDate] as? Date, (attributes[.size] as? NSNumber)?.intValue ?? 0
                )
            }
        } catch {
            throw FeedFetchError(.noSuchFile(path: path))
        }
        if isFolder {
            throw FeedFetchError(.folder(path: path))
        }
        let modified = modificationDate.map(HTTPHeaderValues.string(from:))
        let head = FeedResponseHead(url: request.url, status: 200, lastModified: modified)
        if request.conditional, let modified, request.lastModified == modified {
            return .notModified(FeedResponseHead(url: request.url, status: 304, lastModified: modified))
        }
        guard size <= maxBodyBytes else {
            throw FeedFetchError(.fileOverLimit(path: path, limit: maxBodyBytes))
        }
        guard let handle = try? await NIOThreadPool.singleton.runIfActive({ FileHandle(forReadingAtPath: path) })
        else {
            throw FeedFetchError(.cannotOpen(path: path))
        }
        defer { try? handle.close() }
        let consumer = try await makeConsumer(head)
        var count = 0
        while true {
            try Task.checkCancellation()
            let data: Data
            do {
                data = try await NIOThreadPool.singleton.runIfActive { try handle.read(upToCount: 65_536) ?? Data() }
            } catch {
                throw FeedFetchError(.readFailed(path: path, reason: error.localizedDescription))
            }
            if data.isEmpty { break }
            count += data.count
            if count > maxBodyBytes {
                throw FeedFetchError(.fileOverLimit(path: path, limit: maxBodyBytes))
            }
            try data.withUnsafeBytes { try consumer.consume($0) }
            try await consumer.afterChunk()
            if !consumer.wantsMoreBody { break }
        }
        return .fetched(head, consumer, byteCount: count)
    }
}

/// Sends http(s) URLs to one source and file URLs to another; refuses every other scheme.
public struct RoutingFeedSource: FeedSource {
    private let http: any FeedSource
    private let file: any FeedSource

    public init(http: any FeedSource, file: any FeedSource) {
        self.http = http
        self.file = file
    }

    public func fetch<Consumer: FeedBodyConsumer>(
        _ request: FeedRequest,
        consumer makeConsumer: (FeedResponseHead) async throws -> Consumer
    ) async throws -> FeedFetchResult<Consumer> {
        switch request.url.scheme?.lowercased() {
        case "http", "https": return try await http.fetch(request, consumer: makeConsumer)
        case "file": return try await file.fetch(request, consumer: makeConsumer)
        default:
            throw FeedFetchError(.schemeNotFetched(scheme: request.url.scheme))
        }
    }
}
