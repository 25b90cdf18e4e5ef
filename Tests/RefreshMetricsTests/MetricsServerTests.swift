import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RefreshMetrics
import TestSupport
import Testing

@Suite struct MetricsAddressTests {
    @Test(arguments: [
        ("127.0.0.1:9464", "127.0.0.1", 9464),
        ("localhost:0", "localhost", 0),
        ("0.0.0.0:65535", "0.0.0.0", 65535),
        ("[::1]:9464", "::1", 9464),
        ("metrics-host.example:80", "metrics-host.example", 80),
    ])
    func aHostAndAPortAreRead(text: String, host: String, port: Int) throws {
        let address = try MetricsAddress(parsing: text)
        #expect(address == MetricsAddress(host: host, port: port))
        #expect(address.description == text)
    }

    @Test(arguments: [
        ("9464", MetricsAddressError.Reason.noPort),
        ("127.0.0.1", .noPort),
        (":9464", .noHost),
        ("127.0.0.1:", .badPort("")),
        ("127.0.0.1:65536", .badPort("65536")),
        ("127.0.0.1:-1", .badPort("-1")),
        ("127.0.0.1:94x", .badPort("94x")),
        ("127.0.0.1:000009464", .badPort("000009464")),
        ("::1:9464", .ipv6WithoutBrackets),
        ("[::1:9464", .unclosedBracket),
        ("[::1]9464", .noPort),
        ("exa mple:80", .notAHost("exa mple")),
        ("", .noPort),
    ])
    func anythingElseIsRefusedWithTheReason(text: String, reason: MetricsAddressError.Reason) {
        #expect(throws: MetricsAddressError(reason)) {
            try MetricsAddress(parsing: text)
        }
    }
}

@Suite(.serialized) struct MetricsServerTests {
    func get(_ url: String, method: HTTPMethod = .GET) async throws -> (status: UInt, type: String?, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, response.headers.first(name: "Content-Type"), String(buffer: body))
    }

    @Test(.timeLimit(.minutes(1)))
    func servesTheExpositionAtSlashMetricsOnlyAndStopsWithItsBody() async throws {
        let scrapes = ScrapeCounter()
        let port = try await MetricsServer.serve(
            at: MetricsAddress(host: "127.0.0.1", port: 0),
            exposition: { Array("podfresh_scrapes_total \(scrapes.next())\n".utf8) }
        ) { server in
            #expect(server.address.host == "127.0.0.1")
            #expect(server.address.port > 0, "port 0 is replaced by the port bound")
            #expect(server.url == "http://127.0.0.1:\(server.address.port)/metrics")

            let first = try await get(server.url)
            #expect(first.status == 200)
            #expect(first.type == "text/plain; version=0.0.4; charset=utf-8")
            #expect(first.body == "podfresh_scrapes_total 1\n")
            #expect(try await get(server.url + "?name=x").body == "podfresh_scrapes_total 2\n", "each scrape is new")

            #expect(try await get("http://127.0.0.1:\(server.address.port)/").status == 404)
            #expect(try await get(server.url, method: .POST).status == 405)
            return server.address.port
        }

        // Once the body has returned, nothing listens there any more.
        #expect(await !acceptsConnections(host: "127.0.0.1", port: port))
    }

    @Test(.timeLimit(.minutes(1)))
    func aPortInUseIsAnErrorNamingTheAddressAndTheCause() async throws {
        try await MetricsServer.serve(at: MetricsAddress(host: "127.0.0.1", port: 0), exposition: { [] }) { taken in
            let error = await #expect(throws: MetricsServerError.self) {
                try await MetricsServer.serve(at: taken.address, exposition: { [] }) { _ in
                    Issue.record("the body never runs without a server")
                }
            }
            #expect(error?.address == taken.address)
            #expect(error?.reason == .system(errno: EADDRINUSE))
        }
    }
}

/// Counts scrapes. The lock guards `count`, its only state, so it is `@unchecked Sendable`.
final class ScrapeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
