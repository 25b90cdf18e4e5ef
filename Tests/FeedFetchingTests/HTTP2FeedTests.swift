import FeedFetching
import Foundation
import HTTPTransport
import TestSupport
import Testing

/// Runs `body` with a feed source whose network trusts `server`'s certificate, shut down before returning.
private func withSource<R>(
    trusting server: TestHTTP2Server, _ body: (HTTPFeedSource, HTTPNetwork) async throws -> R
) async throws -> R {
    var configuration = FetchConfiguration(
        connectTimeout: .seconds(10), totalTimeout: .seconds(30), maxBodyBytes: 10_000_000, userAgent: "podfresh/test")
    // The tests count connections: the one connection must outlast a stalled moment of a loaded machine.
    configuration.idleConnectionTimeout = .seconds(600)
    let network = try HTTPNetwork(
        resolver: HostResolver(policy: configuration.resolverPolicy), trustingPEM: server.certificatePEM)
    return try await withClosing(network, close: { await $0.shutdown() }) { network in
        try await body(HTTPFeedSource(network: network, configuration: configuration), network)
    }
}

/// The body of the feed at `path`, as text.
private func fetchText(_ source: HTTPFeedSource, _ url: URL) async throws -> String {
    guard case .fetched(_, let body, _) = try await source.fetch(FeedRequest(url: url), consumer: { _ in Collect() })
    else { return "" }
    return String(decoding: body.bytes, as: UTF8.self)
}

/// What `body` returned or threw.
private func outcome(_ body: () async throws -> String) async -> Result<String, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// Feeds from a host that offers HTTP/2 (a real NIO HTTP/2 server with TLS and ALPN on 127.0.0.1).
@Suite struct HTTP2FeedTests {
    @Test func severalFeedsOfAHostGoSideBySideOverOneConnection() async throws {
        // The server answers none of the 8 `/gather/` feeds until all 8 are open at once.
        try await withTestHTTP2Server(gather: 8) { server in
            try await withSource(trusting: server) { source, network in
                #expect(network.multiplexedStreams(host: "127.0.0.1") == nil, "nothing is known before an answer")
                #expect(try await fetchText(source, server.url("/feed/first")).contains("<title>first</title>"))
                #expect(network.multiplexedStreams(host: "127.0.0.1") == HTTPNetwork.assumedStreamLimit)

                let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                    for index in 1...8 {
                        group.addTask { try await fetchText(source, server.url("/gather/feed\(index)")) }
                    }
                    return try await group.reduce(into: [String]()) { $0.append($1) }
                }
                #expect(bodies.count == 8)
                for index in 1...8 { #expect(bodies.contains { $0.contains("<title>feed\(index)</title>") }) }
                #expect(server.connectionCount == 1, "connections: \(server.connectionCount)")
                #expect(server.streamCount == 9)
                #expect(server.mostStreamsAtOnce >= 8)
            }
        }
    }

    @Test func aResetStreamCostsOnlyItsOwnFeed() async throws {
        try await withTestHTTP2Server { server in
            try await withSource(trusting: server) { source, _ in
                _ = try await fetchText(source, server.url("/feed/first"))
                async let before = fetchText(source, server.url("/feed/before"))
                async let reset = outcome { try await fetchText(source, server.url("/reset/broken")) }
                async let after = fetchText(source, server.url("/feed/after"))

                #expect(try await before.contains("<title>before</title>"))
                #expect(try await after.contains("<title>after</title>"))
                let failure = await reset
                let error = try #require(throws: FeedFetchError.self) { try failure.get() }
                #expect(error.cause == .transport(.streamReset(host: "127.0.0.1", code: 2)))
                #expect(error.kind == .transport)
                #expect(server.connectionCount == 1, "the reset closed no connection")
            }
        }
    }
}
