import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// `podfresh watch --metrics HOST:PORT`, driven through the built binary and scraped over real HTTP.
@Suite(.serialized)
struct WatchMetricsTests {
    func feed(_ title: String, items: [String]) -> String {
        let entries = items.map {
            "<item><title>\($0)</title><guid>\(title)-\($0)</guid><pubDate>Tue, 12 Nov 2024 05:00:00 GMT</pubDate></item>"
        }
        return "<rss version=\"2.0\"><channel><title>\(title)</title>\(entries.joined())</channel></rss>"
    }

    /// Scrapes `/metrics` once.
    func scrape(_ url: String) async throws -> PrometheusText {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        #expect(response.status.code == 200)
        let body = try await response.body.collect(upTo: 1 << 20)
        return try PrometheusText(String(decoding: body.readableBytesView, as: UTF8.self))
    }

    @Test(.timeLimit(.minutes(2)))
    func metricsCountWhatWatchCheckedAndStopWithIt() async throws {
        let podfresh = try Podfresh()
        try await withTestHTTPServer { server in
            defer { podfresh.cleanUp() }
            // Two feeds with 2 and 3 episodes, every one announced (--backlog 10), and one that answers 500.
            server.serveFeed("/two.xml", feed("Two", items: ["a", "b"]))
            server.serveFeed("/three.xml", feed("Three", items: ["a", "b", "c"]))
            server.setRoute("/broken.xml", TestResponse(status: 500, body: Array("down for maintenance".utf8)))
            for path in ["/two.xml", "/three.xml", "/broken.xml"] {
                let added = try await podfresh.run([
                    "add", "--no-fetch", "--backlog", "10", server.url(path).absoluteString,
                ])
                #expect(added.status == 0, "\(added.stderr)")
            }

            try await podfresh.withRunning(["watch", "--metrics", "127.0.0.1:0"]) { watch in
                // The one line that says where: with the port the system picked for port 0.
                let announced = #/podfresh: serving metrics at (http://127\.0\.0\.1:([0-9]+)/metrics)\n/#
                #expect(
                    await watch.wait(for: .standardError, within: .seconds(30)) { $0.contains(announced) },
                    "\(watch.standardError)")
                let match = try #require(watch.standardError.firstMatch(of: announced), "\(watch.standardError)")
                let url = String(match.output.1)
                let port = try #require(Int(match.output.2))
                #expect(port > 0, "port 0 is replaced by the port bound")

                // Scrape until the first cycle's three checks are counted.
                var text = try await scrape(url)
                let deadline = ContinuousClock.now + .seconds(30)
                while text.total("podfresh_feeds_checked_total") < 3 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(200))
                    text = try await scrape(url)
                }

                // What the server served: two feeds answered 200 once each, one answered 500 once.
                #expect(server.requests(to: "/two.xml").count == 1)
                #expect(server.requests(to: "/three.xml").count == 1)
                #expect(server.requests(to: "/broken.xml").count == 1)
                #expect(
                    text.value("podfresh_feeds_checked_total", ["result": "updated"]) == 2, "\(watch.standardError)")
                #expect(text.value("podfresh_feeds_checked_total", ["result": "failed"]) == 1)
                #expect(text.total("podfresh_feeds_checked_total") == 3)
                #expect(text.value("podfresh_new_episodes_total") == 5)
                #expect(try #require(text.value("podfresh_fetched_bytes_total")) > 0)
                #expect(text.value("podfresh_saved_bytes_total") == 0)
                #expect(text.value("podfresh_fetch_duration_seconds_count") == 3, "one observation per feed checked")
                let merged = try #require(text.value("podfresh_last_successful_merge_timestamp_seconds"))
                #expect(abs(merged - Date().timeIntervalSince1970) < 60)
                // After the cycle nothing is due (the failed feed backs off), nothing overdue, nothing in flight.
                #expect(text.value("podfresh_feeds_due") == 0)
                #expect(text.value("podfresh_feeds_overdue") == 0)
                #expect(text.value("podfresh_leases_held") == 0)

                watch.terminate()  // SIGTERM
                #expect(
                    await watch.exit(within: .seconds(10)) == .exited(0),
                    "watch must exit 0 within a few seconds of SIGTERM: \(watch.standardError)")
                #expect(
                    await !acceptsConnections(host: "127.0.0.1", port: port), "the metrics server stopped with watch")
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func twoWorkersOnPostgresCountEachFeedOnceBetweenThemAndShowTheFleetsGauges() async throws {
        var podfresh = try Podfresh()
        podfresh.environment["PODFRESH_DATABASE"] = try await TestPostgres.shared().makeDatabase(prefix: "metrics")
        try await withTestHTTPServer { server in
            defer { podfresh.cleanUp() }
            let paths = (1...10).map { "/fleet\($0).xml" }
            for path in paths {
                let body = Array(feed(path, items: ["a", "b"]).utf8)
                server.setRoute(path) { _ in
                    TestResponse(
                        status: 200, headers: [("Content-Type", "application/rss+xml")], body: body,
                        delay: .milliseconds(100))
                }
            }
            let added = try await podfresh.run(["add", "--no-fetch"] + paths.map { server.url($0).absoluteString })
            #expect(added.status == 0, "\(added.stderr)")

            let announced = #/podfresh: serving metrics at (http://127\.0\.0\.1:[0-9]+/metrics)\n/#
            let arguments = ["watch", "--jobs", "2", "--metrics", "127.0.0.1:0"]
            /// The metrics URL `worker` announces, once it has.
            func metricsURL(of worker: RunningProcess) async throws -> String {
                #expect(
                    await worker.wait(for: .standardError, within: .seconds(30)) { $0.contains(announced) },
                    "\(worker.standardError)")
                let match = try #require(worker.standardError.firstMatch(of: announced), "\(worker.standardError)")
                return String(match.output.1)
            }
            // The second worker starts once the first serves its metrics.
            try await podfresh.withRunning(arguments) { first in
                let firstURL = try await metricsURL(of: first)
                try await podfresh.withRunning(arguments) { second in
                    let urls = [firstURL, try await metricsURL(of: second)]

                    // Between them the workers check every feed once; each counts what it checked itself.
                    var scrapes: [PrometheusText] = []
                    let deadline = ContinuousClock.now + .seconds(60)
                    repeat {
                        try await Task.sleep(for: .milliseconds(200))
                        scrapes = []
                        for url in urls { scrapes.append(try await scrape(url)) }
                    } while scrapes.map { $0.total("podfresh_feeds_checked_total") }.reduce(0, +) < 10
                        && ContinuousClock.now < deadline
                    for path in paths { #expect(server.requests(to: path).count == 1, "\(path)") }
                    #expect(
                        scrapes.map { $0.value("podfresh_feeds_checked_total", ["result": "updated"]) ?? 0 }
                            .reduce(0, +) == 10)
                    #expect(scrapes.map { $0.value("podfresh_fetch_duration_seconds_count") ?? 0 }.reduce(0, +) == 10)
                    // The gauges are the database's, the same on every worker: nothing due, no lease left.
                    for text in scrapes {
                        #expect(text.value("podfresh_feeds_due") == 0)
                        #expect(text.value("podfresh_leases_held") == 0)
                    }
                    for worker in [first, second] {
                        worker.terminate()
                        #expect(await worker.exit(within: .seconds(30)) == .exited(0), "\(worker.standardError)")
                    }
                }
            }
        }
    }

    @Test func aMetricsValueThatIsNotHostAndPortIsAUsageErrorBeforeAnythingIsOpened() async throws {
        // Each wrong value is checked in process (ArgumentParsingTests); this checks the binary opens nothing.
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let result = try await podfresh.run(["watch", "--metrics", "127.0.0.1:70000"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--metrics \"127.0.0.1:70000\" is not HOST:PORT"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: podfresh.databasePath), "nothing is opened")
    }

    @Test(.timeLimit(.minutes(1)))
    func aPortAlreadyInUseIsNamedAndWatchExits70() async throws {
        let podfresh = try Podfresh()
        try await withTestHTTPServer { taken in
            defer { podfresh.cleanUp() }
            let result = try await podfresh.run(["watch", "--metrics", "127.0.0.1:\(taken.port)"], timeout: 30)
            #expect(result.status == 70)
            #expect(
                result.stderr.contains(
                    "podfresh: cannot serve metrics on 127.0.0.1:\(taken.port): Address already in use; watch did not start"
                ),
                "\(result.stderr)")
            #expect(taken.requests.isEmpty)
        }
    }
}
