import Foundation
import TestSupport
import Testing

@testable import HTTPTransport

private let profile = HTTPNetwork.Profile(
    decompressionRatioLimit: 100, connectTimeout: .seconds(2), readTimeout: .seconds(10))

private func get(_ network: HTTPNetwork, _ url: URL, maxRedirects: Int = 5) async throws -> HTTPNetwork.Exchange {
    try await network.execute(
        HTTPNetwork.Request(url: url), profile: profile, maxRedirects: maxRedirects, deadline: .now + .seconds(10))
}

/// The network layer against a real HTTP server on 127.0.0.1.
@Suite(.timeLimit(.minutes(1)))
struct HTTPNetworkTests {
    @Test func requestsToOneHostReuseOneConnectionWhenTheirBodiesAreRead() async throws {
        try await withTestHTTPServer { server in
            server.setRoute("/feed", TestResponse(status: 200, text: "<rss/>"))
            server.setRoute("/unchanged", TestResponse(status: 304, body: []))
            server.setRoute("/missing", TestResponse(status: 404, text: "not here"))
            try await HTTPNetwork.withNetwork { network in
                for path in ["/feed", "/unchanged", "/missing", "/feed", "/unchanged"] {
                    let exchange = try await get(network, server.url(path))
                    await HTTPNetwork.discard(exchange.response.body)
                }
                #expect(network.poolCount == 1)
            }
            #expect(server.requests.count == 5)
            #expect(server.openedConnections == 1, "\(server.openedConnections) connections for 5 requests")
        }
    }

    @Test func aConnectionLeftIdleLongerThanTheProfileAllowsIsClosedAndTheNextRequestOpensAnother() async throws {
        let shortIdle = HTTPNetwork.Profile(
            decompressionRatioLimit: 100, connectTimeout: .seconds(2), readTimeout: .seconds(10),
            idleTimeout: .milliseconds(200))
        try await withTestHTTPServer { server in
            server.setRoute("/feed", TestResponse(status: 200, text: "<rss/>"))
            try await HTTPNetwork.withNetwork { network in
                func fetch() async throws {
                    let exchange = try await network.execute(
                        HTTPNetwork.Request(url: server.url("/feed")), profile: shortIdle, maxRedirects: 0,
                        deadline: .now + .seconds(10))
                    await HTTPNetwork.discard(exchange.response.body)
                }
                try await fetch()
                // The client closes it: poll rather than assume how soon (the machine may be busy).
                let deadline = ContinuousClock.now + .seconds(20)
                while server.closedConnections == 0 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(server.closedConnections == 1, "the idle connection was closed")
                try await fetch()
            }
            #expect(server.openedConnections == 2, "\(server.openedConnections) connections")
        }
    }

    @Test func redirectsAreFollowedHopByHopAndRecorded() async throws {
        try await withTestHTTPServer { server in
            server.setRoute("/old", .redirect(301, to: "/middle"))
            server.setRoute("/middle", .redirect(302, to: server.url("/new").absoluteString))
            server.setRoute("/new", TestResponse(status: 200, text: "<rss/>"))
            try await HTTPNetwork.withNetwork { network in
                let exchange = try await get(network, server.url("/old"))
                await HTTPNetwork.discard(exchange.response.body)
                #expect(exchange.hops.map(\.status) == [301, 302, 200])
                #expect(exchange.hops.map(\.url.path) == ["/old", "/middle", "/new"])
                #expect(exchange.url == server.url("/new"))
            }
            #expect(server.openedConnections == 1)
        }
    }

    @Test func redirectLoopsAndLongChainsAreRefused() async throws {
        try await withTestHTTPServer { server in
            server.setRoute("/a", .redirect(302, to: "/b"))
            server.setRoute("/b", .redirect(302, to: "/a"))
            for hop in 0..<4 { server.setRoute("/chain\(hop)", .redirect(307, to: "/chain\(hop + 1)")) }
            try await HTTPNetwork.withNetwork { network in
                await #expect(throws: HTTPNetwork.RedirectError.cycle) { try await get(network, server.url("/a")) }
                await #expect(throws: HTTPNetwork.RedirectError.tooMany(2)) {
                    try await get(network, server.url("/chain0"), maxRedirects: 2)
                }
            }
        }
    }

    @Test func aNameGoesThroughTheResolverOnceForManyRequests() async throws {
        try await withTestHTTPServer { server in
            server.setRoute("/feed", TestResponse(status: 200, text: "<rss/>"))
            let resolver = HostResolver()
            try await HTTPNetwork.withNetwork(resolver: resolver) { network in
                var components = URLComponents(url: server.url("/feed"), resolvingAgainstBaseURL: false)!
                components.host = "localhost"
                let url = try #require(components.url)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<10 {
                        group.addTask {
                            let exchange = try await get(network, url)
                            await HTTPNetwork.discard(exchange.response.body)
                        }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(resolver.statistics.lookups == 1)
            #expect(server.requests.count == 10)
        }
    }

    @Test func aHostWhoseFirstAddressRefusesIsReachedThroughTheNextAndRemembered() async throws {
        try await withTestHTTPServer { server in
            server.setRoute("/feed", TestResponse(status: 200, text: "<rss/>"))
            // The server listens on 127.0.0.1 only: 127.0.0.2 refuses. A fake resolver, only to name two addresses.
            let resolver = HostResolver(policy: HostResolver.Policy()) { _, done in
                done(
                    .success([
                        ResolvedAddress(ip: "127.0.0.2", isIPv6: false),
                        ResolvedAddress(ip: "127.0.0.1", isIPv6: false),
                    ]))
            }
            try await HTTPNetwork.withNetwork(resolver: resolver) { network in
                var components = URLComponents(url: server.url("/feed"), resolvingAgainstBaseURL: false)!
                components.host = "two-addresses.test"
                let url = try #require(components.url)
                for _ in 0..<3 {
                    let exchange = try await get(network, url)
                    #expect(exchange.response.status == 200)
                    await HTTPNetwork.discard(exchange.response.body)
                }
                // One pool for the refusing address, one for the one that answered; later requests went straight
                // to the second.
                #expect(network.poolCount == 2)
            }
            #expect(server.requests.count == 3)
            #expect(server.requests.first?.headers["host"]?.hasPrefix("two-addresses.test") == true)
            #expect(server.openedConnections == 1)
        }
    }
}
