import AsyncHTTPClient
import FeedFetching
import Foundation
import HTTPTransport
import Measures
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A source whose connect timeout (10 minutes) and clock (a manual one that never moves) are out of reach of the
/// tests' one-minute limit: a failure these tests expect "at once" can only come before that limit if nothing waited
/// for a timeout. No wall time is judged.
private func withRealisticSource<R>(
    maxBodyBytes: Int = 1_000_000,
    totalTimeout: Duration = .seconds(30),
    decompressionRatioLimit: Int = 1000,
    _ body: (HTTPFeedSource) async throws -> R
) async throws -> R {
    var configuration = FetchConfiguration(
        connectTimeout: .seconds(600),
        totalTimeout: totalTimeout,
        maxBodyBytes: maxBodyBytes,
        maxRedirects: 5,
        decompressionRatioLimit: decompressionRatioLimit,
        userAgent: "podfresh/test"
    )
    configuration.clock = .manual(ManualClock())
    let client = HTTPFeedSource.makeNetwork(configuration: configuration)
    do {
        let result = try await body(HTTPFeedSource(network: client, configuration: configuration))
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}

/// Runs `body` with the network of a feed source for `configuration`, shut down before returning.
private func withNetwork<R>(
    configuration: FetchConfiguration, _ body: (HTTPNetwork) async throws -> R
) async throws -> R {
    try await withClosing(
        HTTPFeedSource.makeNetwork(configuration: configuration), close: { await $0.shutdown() }, body)
}

/// The error a fetch ends with, and how long it took.
private func timedFailure(_ source: HTTPFeedSource, _ url: URL) async -> (error: FeedFetchError?, seconds: Double) {
    let clock = ContinuousClock()
    let start = clock.now
    var failure: FeedFetchError?
    do {
        _ = try await source.fetch(FeedRequest(url: url)) { _ in Collect() }
    } catch {
        failure = error as? FeedFetchError
    }
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let kind = failure?.kind.rawValue ?? "ok"
    print(
        "fetch-figure: \(url.host ?? "") \(kind) in \(String(format: "%.3f", seconds)) s: \(failure.map { "\($0.cause)" } ?? "")"
    )
    return (failure, seconds)
}

/// A port on 127.0.0.1 that nothing listens on (bound, then released).
private func closedPort() async throws -> Int {
    let server = try await TestHTTPServer.start()
    let port = server.port
    try await server.shutdown()
    return port
}

/// Connection failures that say nothing about this machine's network are final and fast: they are reported on the
/// first attempt, never retried, and never taken for "offline".
@Suite(.timeLimit(.minutes(1)))
struct NetworkFailureTests {
    @Test func aRefusedConnectionIsReportedAtOnceAsRefusedAndIsFinal() async throws {
        let port = try await closedPort()
        try await withRealisticSource { source in
            let (error, _) = await timedFailure(source, URL(string: "http://127.0.0.1:\(port)/feed.xml")!)
            let failure = try #require(error)
            #expect(failure.kind == .connectionRefused)
            #expect(!failure.isTransient)
            #expect(failure.cause == .transport(.connectionRefused(host: "127.0.0.1", port: port)))
        }
    }

    @Test func anUnknownHostIsReportedQuicklyAsUnknownAndIsFinal() async throws {
        let host = "podfresh-test-\(UUID().uuidString.prefix(8).lowercased()).invalid"
        // `.invalid` never resolves; a machine whose resolver cannot be reached at all answers EAI_AGAIN instead of
        // "no such name", and that is rightly a sign of a network problem.
        var info: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host, "80", nil, &info)
        if let info { freeaddrinfo(info) }
        try await withRealisticSource { source in
            let (error, _) = await timedFailure(source, URL(string: "http://\(host)/feed.xml")!)
            let failure = try #require(error)
            if lookup == EAI_AGAIN {
                #expect(failure.kind == .unreachable)
            } else {
                #expect(failure.kind == .unknownHost)
                #expect(!failure.isTransient)
                #expect(failure.cause == .transport(.noSuchHost(host: host)))
            }
        }
    }

    @Test func anUntrustedCertificateFailsOnceAtOnceInWordsForPeople() async throws {
        try await withTestTLSServer { server in
            try await withRealisticSource { source in
                let (error, _) = await timedFailure(source, server.url("/feed.xml"))
                let failure = try #require(error)
                #expect(failure.kind == .tls)
                #expect(!failure.isTransient)
                #expect(failure.cause == .transport(.certificateNotTrusted(host: "127.0.0.1")))
                #expect(server.connectionCount == 1, "handshakes: \(server.connectionCount)")
            }
        }
    }

    @Test func aCorruptGzipBodyIsReportedAsCorruptNotAsABomb() async throws {
        try await withTestHTTPServer { server in
            let notGzip = Array("<rss><channel><title>plain text, not gzip</title></channel></rss>".utf8)
            server.setRoute(
                "/feed.xml", TestResponse(status: 200, headers: [("Content-Encoding", "gzip")], body: notGzip))
            try await withRealisticSource { source in
                let failure = try #require(await timedFailure(source, server.url("/feed.xml")).error)
                #expect(failure.kind == .corruptBody)
                #expect(failure.cause == .transport(.corruptBody))
            }
        }
    }

    @Test func aRealGzipBombStillStopsAtTheRatioLimit() async throws {
        let bomb = try await gzippedZeros(level: 9, megabytes: 20)
        try await withTestHTTPServer { server in
            server.setRoute("/feed.xml", TestResponse(status: 200, headers: [("Content-Encoding", "gzip")], body: bomb))
            try await withRealisticSource(maxBodyBytes: 100_000_000, decompressionRatioLimit: 100) { source in
                let failure = try #require(await timedFailure(source, server.url("/feed.xml")).error)
                #expect(failure.kind == .tooLarge)
                #expect(failure.cause == .transport(.expandsTooMuch(ratio: 100)))
            }
        }
    }

    @Test func aContentLengthOverTheLimitIsRefusedFromTheHeader() async throws {
        try await withTestHTTPServer { server in
            // 5 GB announced, 16 bytes sent, then the connection is held open: only the header can end this quickly.
            server.setRoute(
                "/feed.xml",
                TestResponse(status: 200, body: Array("<rss><channel>..".utf8), fault: .declaredLength(5_000_000_000))
            )
            try await withRealisticSource(maxBodyBytes: 1_000_000, totalTimeout: .seconds(20)) { source in
                let (error, _) = await timedFailure(source, server.url("/feed.xml"))
                let failure = try #require(error)
                #expect(failure.kind == .tooLarge)
                #expect(failure.cause == .bodyOverLimit(limit: 1_000_000, announced: 5_000_000_000))
                #expect(failure.maxBodyBytes == 1_000_000)
                // The client closed the connection instead of waiting for the body (while it is still running).
                let deadline = Date().addingTimeInterval(20)
                while server.closedConnections == 0 && Date() < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(server.closedConnections == 1)
            }
        }
    }
}

/// Connecting that times out points at the network, not at the feed.
@Suite(.timeLimit(.minutes(1)))
struct ConnectTimeoutTests {
    @Test func aConnectTimeoutIsUnreachableAndEndsTheFetchAtTheConnectLimit() async throws {
        let unanswered = try UnansweredPort()
        defer { unanswered.close() }
        let configuration = FetchConfiguration(
            connectTimeout: .seconds(5),
            totalTimeout: .seconds(30),
            userAgent: "podfresh/test"
        )
        try await withNetwork(configuration: configuration) { client in
            let (error, seconds) = await timedFailure(
                HTTPFeedSource(network: client, configuration: configuration),
                unanswered.url("/feed.xml")
            )
            let failure = try #require(error)
            #expect(failure.kind == .unreachable)
            #expect(failure.cause == .transport(.connectTimedOut(host: "127.0.0.1", after: .seconds(5))))
            #expect(failure.limit == .connect)
            // The connect limit struck (the cause says so), not before it; the total limit (30 s) never came into it.
            // How much later than 5 s it ended depends on the machine's load, and is not judged here.
            #expect(seconds >= 4.9, "took \(seconds) s")
        }
    }
}

/// An https URL on a port that speaks plain HTTP.
@Suite(.timeLimit(.minutes(1)))
struct TLSProtocolMismatchTests {
    @Test func anHTTPSURLOnAPlainHTTPServerIsAFinalTLSFailure() async throws {
        try await withTestHTTPServer { server in
            try await withRealisticSource { source in
                let (error, _) = await timedFailure(
                    source, URL(string: "https://127.0.0.1:\(server.port)/feed.xml")!)
                let failure = try #require(error)
                #expect(failure.kind == .tls)
                #expect(failure.cause == .transport(.handshakeFailed(host: "127.0.0.1", port: server.port)))
            }
        }
    }
}
