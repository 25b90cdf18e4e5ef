import Foundation
import TestSupport
import Testing

@testable import HTTPTransport

/// How much of an HTTP/2 body the client lets a server send before the body is read, measured by a real NIO HTTP/2
/// server with TLS on 127.0.0.1 (``TestHTTP2Server``'s `/large/` path: the credit the client granted, settled by rounds
/// of `PING`).
@Suite(.timeLimit(.minutes(1)))
struct HTTP2StreamWindowTests {
    private static let bodySize = 4 * 1024 * 1024

    /// Asks for a large body under a profile with `window`, reads none of it until the server has settled the credit
    /// the client granted, then reads it all: the credit and the bytes read.
    private func creditBeforeReading(window: Int?) async throws -> (credit: Int, received: Int) {
        try await withTestHTTP2Server { server in
            let network = try HTTPNetwork(trustingPEM: server.certificatePEM)
            return try await withClosing(network, close: { await $0.shutdown() }) { network in
                let profile = HTTPNetwork.Profile(
                    decompressionRatioLimit: nil, connectTimeout: .seconds(5), readTimeout: .seconds(50),
                    allowsHTTP2: true, streamWindow: window)
                let path = "/large/\(Self.bodySize)"
                let exchange = try await network.execute(
                    HTTPNetwork.Request(url: server.url(path)), profile: profile, maxRedirects: 0,
                    deadline: .now + .seconds(50))
                #expect(await waitUntil { server.credit(for: path) != nil })
                let credit = try #require(server.credit(for: path))
                var received = 0
                for try await chunk in exchange.response.body { received += chunk.count }
                return (credit, received)
            }
        }
    }

    @Test func aStreamWhoseBodyIsNotReadIsSentNoMoreThanItsWindowAndTheBodyStillArrivesWhole() async throws {
        let window = 256 * 1024
        let (credit, received) = try await creditBeforeReading(window: window)
        #expect(received == Self.bodySize)
        // What waits in the stream (the window) and one read's worth already handed to AsyncHTTPClient.
        #expect(credit <= 2 * window + 64 * 1024, "the server was let send \(credit) bytes")
    }

    @Test func withoutTheBoundAsyncHTTPClientLetsAServerSendTheWholeBodyUnread() async throws {
        let (credit, received) = try await creditBeforeReading(window: nil)
        #expect(received == Self.bodySize)
        #expect(credit >= Self.bodySize, "the server was let send \(credit) bytes")
    }

    @Test func aHostIsKnownToMultiplexOnlyOnceAnAnswerCameOverHTTP2() async throws {
        let profile = HTTPNetwork.Profile(
            decompressionRatioLimit: nil, connectTimeout: .seconds(5), readTimeout: .seconds(10),
            streamWindow: 256 * 1024)
        try await withTestHTTP2Server { server in
            let network = try HTTPNetwork(trustingPEM: server.certificatePEM)
            try await withClosing(network, close: { await $0.shutdown() }) { network in
                #expect(network.multiplexedStreams(host: "127.0.0.1") == nil)
                let exchange = try await network.execute(
                    HTTPNetwork.Request(url: server.url("/feed/one")), profile: profile, maxRedirects: 0,
                    deadline: .now + .seconds(10))
                await HTTPNetwork.discard(exchange.response.body)
                #expect(network.multiplexedStreams(host: "127.0.0.1") == HTTPNetwork.assumedStreamLimit)
            }
        }
        // A host that offers HTTP/1.1 only (plain http here) keeps the per-host limit of connections.
        try await withTestHTTPServer { server in
            server.setRoute("/feed", TestResponse(status: 200, text: "<rss/>"))
            try await HTTPNetwork.withNetwork { network in
                let exchange = try await network.execute(
                    HTTPNetwork.Request(url: server.url("/feed")), profile: profile, maxRedirects: 0,
                    deadline: .now + .seconds(10))
                await HTTPNetwork.discard(exchange.response.body)
                #expect(network.multiplexedStreams(host: "127.0.0.1") == nil)
            }
        }
    }
}
