import FeedFetching
import Foundation
import HTTPTransport
import TestSupport
import Testing

/// Counts a body and wants no more of it once it has `wanted` bytes (a feed whose leading episodes are all known).
private final class Enough: FeedBodyConsumer {
    let wanted: Int
    var count = 0
    init(wanted: Int = .max) { self.wanted = wanted }
    func consume(_ chunk: UnsafeRawBufferPointer) throws { count += chunk.count }
    var wantsMoreBody: Bool { count < wanted }
}

private func withShortSource(
    maxBodyBytes: Int = 10_000_000, _ body: (HTTPFeedSource, TestHTTPServer) async throws -> Void
) async throws {
    let server = try await TestHTTPServer.start()
    let configuration = FetchConfiguration(
        connectTimeout: .seconds(2), totalTimeout: .seconds(30), maxBodyBytes: maxBodyBytes, userAgent: "podfresh/test")
    let network = HTTPFeedSource.makeNetwork(configuration: configuration)
    try await withClosing(
        (network, server),
        close: {
            await $0.0.shutdown()
            try? await $0.1.shutdown()
        }
    ) { _ in try await body(HTTPFeedSource(network: network, configuration: configuration), server) }
}

/// Issue #36: a body the consumer has read enough of is not read to its end, and the default size limit.
@Suite(.timeLimit(.minutes(1)))
struct ShortBodyTests {
    @Test func aConsumerThatWantsNoMoreEndsTheFetchAndItsConnection() async throws {
        try await withShortSource { source, server in
            // 2 MB announced, 64 KB sent, then nothing: only a fetch that stops reading early ends.
            let body = [UInt8](repeating: UInt8(ascii: "x"), count: 2_000_000)
            server.setRoute(
                "/big.xml",
                TestResponse(status: 200, body: body, fault: .stall(afterBytes: 65_536), compressible: false))
            let result = try await source.fetch(FeedRequest(url: server.url("/big.xml"))) { _ in Enough(wanted: 1000) }
            guard case .fetched(_, let consumer, let count) = result else {
                Issue.record("not fetched: \(result)")
                return
            }
            #expect(count == consumer.count && count < 65_536)
            #expect(await waitUntil { server.closedConnections == 1 }, "much was left: the connection is closed")
        }
    }

    @Test func littleLeftIsDrainedSoTheConnectionServesTheNextFeed() async throws {
        try await withShortSource { source, server in
            let body = [UInt8](repeating: UInt8(ascii: "x"), count: 40_000)
            server.setRoute("/small.xml", TestResponse(status: 200, body: body, compressible: false))
            for _ in 0..<2 {
                let result = try await source.fetch(FeedRequest(url: server.url("/small.xml"))) { _ in
                    Enough(wanted: 100)
                }
                guard case .fetched = result else {
                    Issue.record("not fetched")
                    return
                }
            }
            #expect(server.openedConnections == 1, "the rest was read and dropped; the connection was kept")
            #expect(server.closedConnections == 0)
        }
    }

    @Test func theDefaultFeedSizeLimitIs75MB() async throws {
        #expect(FetchConfiguration().maxBodyBytes == 75_000_000)
        try await withShortSource(maxBodyBytes: FetchConfiguration().maxBodyBytes) { source, server in
            server.setRoute(
                "/huge.xml",
                TestResponse(status: 200, body: [], fault: .declaredLength(75_000_001), compressible: false))
            do {
                _ = try await source.fetch(FeedRequest(url: server.url("/huge.xml"))) { _ in Enough() }
                Issue.record("a body announced over 75 MB was accepted")
            } catch let error as FeedFetchError {
                #expect(error.cause == .bodyOverLimit(limit: 75_000_000, announced: 75_000_001))
            }
        }
    }

    @Test func aFileOf75MBIsReadAndOneByteMoreIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-75-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let exact = directory.appendingPathComponent("exact.xml")
        let over = directory.appendingPathComponent("over.xml")
        for (url, size) in [(exact, 75_000_000), (over, 75_000_001)] {
            // Sparse files: no 75 MB written to the disk.
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
        }
        let source = FileFeedSource()
        let result = try await source.fetch(FeedRequest(url: exact)) { _ in Enough() }
        guard case .fetched(_, _, let count) = result else {
            Issue.record("not read")
            return
        }
        #expect(count == 75_000_000)
        do {
            _ = try await source.fetch(FeedRequest(url: over)) { _ in Enough() }
            Issue.record("a file over 75 MB was read")
        } catch let error as FeedFetchError {
            #expect(error.cause == .fileOverLimit(path: over.path, limit: 75_000_000))
        }
    }
}
