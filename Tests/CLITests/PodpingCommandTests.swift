import FeedModels
import FeedStorage
import Foundation
import Synchronization
import TestSupport
import Testing

/// `refresh --podping` and `watch --podping` against a Hive chain served as JSON-RPC nodes on 127.0.0.1, with real
/// feeds on the same test server, driving the built binary.
@Suite(.serialized)
struct PodpingCommandTests {
    func feed(_ title: String, items: [String]) -> String {
        let entries = items.map {
            "<item><title>\($0)</title><guid>\($0)</guid><pubDate>Tue, 12 Nov 2024 05:00:00 GMT</pubDate></item>"
        }
        return "<rss version=\"2.0\"><channel><title>\(title)</title>\(entries.joined())</channel></rss>"
    }

    /// Runs `body` while `podfresh watch --podping` reads the chain at `node`, with `arguments`.
    func withPodpingWatch(
        _ podfresh: Podfresh, node: String, _ arguments: [String], _ body: (RunningProcess) async throws -> Void
    ) async throws {
        try await podfresh.withRunning(["watch", "--podping", "--podping-node", node] + arguments, body)
    }

    /// Two subscribed feeds, each polled once (so neither is due for at least the minimum interval), and a chain.
    func withSubscribedFeeds(
        _ body: (Podfresh, TestHTTPServer, FakeHiveChain, _ a: URL, _ b: URL) async throws -> Void
    ) async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            let chain = FakeHiveChain(server: server)
            server.serveFeed("/a.xml", feed("Show A", items: ["a-one"]))
            server.serveFeed("/b.xml", feed("Show B", items: ["b-one"]))
            let a = server.url("/a.xml")
            let b = server.url("/b.xml")
            for url in [a, b] {
                #expect(try await podfresh.run(["add", "--no-fetch", url.absoluteString]).status == 0)
            }
            #expect(try await podfresh.run(["refresh"]).status == 0)
            try await body(podfresh, server, chain, a, b)
        }
    }

    func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func refreshChecksTheFeedsAPingNamesAndResumesFromItsCursor() async throws {
        try await withSubscribedFeeds { podfresh, server, chain, a, b in
            let node = chain.node("/hive").absoluteString
            let first = try await podfresh.run(["refresh", "--podping", "--podping-node", node, "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(jsonLines(first.stdout).contains { $0["event"] as? String == "podping_started" })

            // Feed A gains an episode and its host pings; the same block carries what must not count.
            server.serveFeed(
                "/a.xml", feed("Show A", items: ["a-two", "a-one"]), lastModified: "Wed, 13 Nov 2024 05:00:00 GMT")
            let many = (0..<2000).map { "https://spam.example/\($0).xml" }
            chain.produce([
                [.podping([a.absoluteString.uppercased().replacingOccurrences(of: "/A.XML", with: "/a.xml")])],
                [
                    .customJSON(
                        id: "pp_podcast_update", json: "{\"iris\":[\"\(b.absoluteString)\"", senders: ["podping.aaa"])
                ],
                [.podping(many)],
                [.podping([b.absoluteString], id: "podping-livetest")],
                [.customJSON(id: "follow", json: "[\"follow\",{}]", senders: ["alice"])],
                [.podping([b.absoluteString], sender: "mallory")],
            ])
            chain.produce()
            // Polled a moment ago: without a cooldown, the ping is fetched at once.
            let second = try await podfresh.run([
                "refresh", "--podping", "--podping-node", node, "--podping-cooldown", "0s", "--json",
            ])
            #expect(second.status == 0, "\(second.stderr)")
            let events = jsonLines(second.stdout)
            let blocks = try #require(events.first { $0["event"] as? String == "podping_blocks" })
            #expect(blocks["count"] as? Int == 2)
            #expect(blocks["notices"] as? Int == 2, "A's ping and mallory's")
            #expect(blocks["tests"] as? Int == 1)
            #expect(blocks["refused"] as? Int == 2, "a cut-off payload and one naming 2000 feeds")
            let received = events.filter { $0["event"] as? String == "podping_received" }
            #expect(received.count == 2)
            #expect(received.last?["untrusted"] as? Int == 1, "mallory is not a podping writer")
            let matched = events.filter { $0["event"] as? String == "podping_matched" }
            #expect(matched.count == 1)
            #expect(matched.first?["url"] as? String == a.absoluteString)
            #expect(matched.first?["block"] as? Int == Int(chain.head - 1))
            #expect(events.contains { $0["event"] as? String == "new_episode" && $0["title"] as? String == "a-two" })
            #expect(server.requests(to: "/a.xml").count == 2)
            #expect(
                server.requests(to: "/b.xml").count == 1, "B was named only by a test, a refused and an untrusted ping")

            let store = try await FeedStore.open(path: podfresh.databasePath)
            #expect(try await store.podpingCursor()?.block == chain.head)
            #expect(try await store.podpingCursor()?.holder == nil, "refresh gives the lease back")

            // Nothing new on the chain: nothing is fetched.
            let third = try await podfresh.run(["refresh", "--podping", "--podping-node", node])
            #expect(third.status == 0)
            #expect(server.requests(to: "/a.xml").count == 2)

            // What list --json and status show.
            let list = try await podfresh.run(["list", "--json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            let rowA = try #require(rows.first { $0["url"] as? String == a.absoluteString })
            #expect(rowA["host_pings"] as? Bool == true)
            #expect(rowA["last_ping_block"] as? Int == Int(chain.head - 1))
            #expect(rowA["last_ping_at"] is String)
            let rowB = try #require(rows.first { $0["url"] as? String == b.absoluteString })
            #expect(rowB["host_pings"] as? Bool == false)
            let episodes = jsonLines(try await podfresh.run(["episodes", "--json"]).stdout)
            let aTwo = try #require(episodes.first { $0["title"] as? String == "a-two" })
            #expect(aTwo["feed_host_pings"] as? Bool == true)
            #expect(aTwo["feed_last_ping_at"] is String)
            #expect(episodes.first { $0["title"] as? String == "b-one" }?["feed_host_pings"] as? Bool == false)
            let status = try await podfresh.run(["status"])
            #expect(status.stdout.contains("podping"), "\(status.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aCursorFurtherBehindThanTheCatchUpLimitSkipsAheadAndSaysSo() async throws {
        try await withSubscribedFeeds { podfresh, _, chain, _, _ in
            let node = chain.node("/hive").absoluteString
            #expect(try await podfresh.run(["refresh", "--podping", "--podping-node", node]).status == 0)
            let cursor = chain.head
            chain.produceEmpty(40)
            let result = try await podfresh.run([
                "refresh", "--podping", "--podping-node", node, "--podping-catch-up", "30s", "--quiet",
            ])
            #expect(result.status == 0)
            #expect(result.stderr.contains("podping: 30 blocks behind the chain"), "\(result.stderr)")
            #expect(result.stderr.contains("skipped ahead to block \(cursor + 30)"))
            let store = try await FeedStore.open(path: podfresh.databasePath)
            #expect(try await store.podpingCursor()?.block == chain.head, "then it read the last 10 blocks")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func whenNoNodeAnswersTheRefreshSaysWhyAndPollsAsAlways() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            let chain = FakeHiveChain(server: server)
            server.serveFeed("/c.xml", feed("Show C", items: ["c-one"]))
            #expect(try await podfresh.run(["add", "--no-fetch", server.url("/c.xml").absoluteString]).status == 0)
            let down = chain.node("/down", fault: .rpcError(code: -32003, message: "Unable to acquire database lock"))
            let limited = chain.node("/limited", fault: .rateLimited)
            let result = try await podfresh.run([
                "refresh", "--podping", "--podping-node", down.absoluteString, "--podping-node",
                limited.absoluteString,
            ])
            #expect(result.status == 0, "a missed ping costs latency, not the run")
            #expect(result.stderr.contains("JSON-RPC error -32003 Unable to acquire database lock"), "\(result.stderr)")
            #expect(result.stderr.contains("HTTP 429"))
            #expect(result.stdout.contains("c-one"), "the due feed was polled")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func watchFetchesAPingedFeedAsSoonAsItsBlockIsRead() async throws {
        try await withSubscribedFeeds { podfresh, server, chain, a, b in
            let node = chain.node("/hive").absoluteString
            try await withPodpingWatch(podfresh, node: node, ["--podping-cooldown", "0s"]) { watch in
                #expect(
                    await watch.waitForLine(containing: "reading the chain from its head", within: .seconds(30)),
                    "\(watch.transcript)")

                server.serveFeed(
                    "/a.xml", feed("Show A", items: ["a-two", "a-one"]), lastModified: "Wed, 13 Nov 2024 05:00:00 GMT")
                chain.produce([[.podping([a.absoluteString])]])
                #expect(
                    await watch.waitForLine(containing: "a-two", within: .seconds(30)),
                    "pinged episode: \(watch.transcript)")
                #expect(watch.standardOutput.contains("podping: Show A: update in block \(chain.head)"))

                watch.terminate()
                #expect(await watch.exit(within: .seconds(15)) == .exited(0), "\(watch.standardError)")
            }
            #expect(server.requests(to: "/b.xml").count == 1, "B was not pinged and is not due")
            let store = try await FeedStore.open(path: podfresh.databasePath)
            #expect(try await store.podpingCursor()?.block == chain.head)
            _ = b
        }
    }

    /// Polls `condition` every 100 ms for up to `timeout` seconds.
    func eventually(timeout: Double, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }

    @Test(.timeLimit(.minutes(3)))
    func aPingThatArrivesWhileItsFeedIsFetchedIsNotLost() async throws {
        try await withSubscribedFeeds { podfresh, server, chain, a, _ in
            let node = chain.node("/hive").absoluteString
            // The host's first answer is held until the test lets it go, and is from before its change; every later
            // one has the episode.
            let published = Mutex(false)
            let held = Mutex(false)
            let gate = TestGate()
            let old = feed("Show A", items: ["a-one"])
            let new = feed("Show A", items: ["a-two", "a-one"])
            server.setRoute("/a.xml") { _ in
                let headers = [("Content-Type", "application/rss+xml")]
                if held.withLock({ holding in
                    defer { holding = true }
                    return !holding
                }) {
                    return TestResponse(headers: headers, body: Array(old.utf8), gate: gate)
                }
                return TestResponse(headers: headers, text: published.withLock { $0 } ? new : old)
            }
            try await withPodpingWatch(podfresh, node: node, ["--podping-cooldown", "2s"]) { watch in
                #expect(
                    await watch.waitForLine(containing: "reading the chain from its head", within: .seconds(30)),
                    "\(watch.transcript)")

                // A first ping (an earlier edit) starts a fetch; while its answer is held, the episode is published
                // and pinged, and the fetch goes on only once watch has read that second ping.
                chain.produce([[.podping([a.absoluteString])]])
                #expect(
                    try await eventually(timeout: 30) { server.requests(to: "/a.xml").count == 2 },
                    "\(watch.standardError)")
                published.withLock { $0 = true }
                chain.produce([[.podping([a.absoluteString], sender: "podping.bbb")]])
                #expect(
                    await watch.wait(within: .seconds(30)) {
                        $0.components(separatedBy: "podping: Show A:").count == 3
                    },
                    "both pings read: \(watch.transcript)")
                #expect(server.requests(to: "/a.xml").count == 2, "the first fetch is still held")
                gate.release()

                // No third ping: the feed is fetched again once the held fetch has ended and its cooldown passed.
                #expect(
                    await watch.waitForLine(containing: "a-two", within: .seconds(30)),
                    "the pinged episode: \(watch.transcript)")
                try await Task.sleep(for: .seconds(3))
                #expect(server.requests(to: "/a.xml").count == 3, "one more fetch for the ping during the first")
                watch.terminate()
                #expect(await watch.exit(within: .seconds(15)) == .exited(0), "\(watch.standardError)")
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func withAFixedIntervalAPingedFeedIsFetchedWithinSecondsNotAtTheNextCycle() async throws {
        try await withSubscribedFeeds { podfresh, server, chain, a, _ in
            let node = chain.node("/hive").absoluteString
            try await withPodpingWatch(podfresh, node: node, ["--podping-cooldown", "0s", "--interval", "1h"]) {
                watch in
                // The first cycle checks both feeds; the next is an hour away.
                #expect(
                    await watch.wait(within: .seconds(30)) {
                        $0.contains("reading the chain from its head") && $0.contains("next check at")
                    }, "\(watch.transcript)")
                #expect(server.requests(to: "/a.xml").count == 2 && server.requests(to: "/b.xml").count == 2)

                server.serveFeed(
                    "/a.xml", feed("Show A", items: ["a-two", "a-one"]), lastModified: "Wed, 13 Nov 2024 05:00:00 GMT")
                chain.produce([[.podping([a.absoluteString])]])
                #expect(
                    await watch.waitForLine(containing: "a-two", within: .seconds(20)),
                    "pinged episode: \(watch.transcript)")
                watch.terminate()
                #expect(await watch.exit(within: .seconds(15)) == .exited(0), "\(watch.standardError)")
            }
            #expect(server.requests(to: "/a.xml").count == 3)
            #expect(server.requests(to: "/b.xml").count == 2, "B waits for the next cycle")
        }
    }
}
