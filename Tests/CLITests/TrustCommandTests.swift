import FeedModels
import FeedStorage
import Foundation
import TestSupport
import Testing

/// What a new user met on real feeds, through the built binary: every feed checked, honest exit codes, moves that
/// can be undone, no flood of old episodes.
@Suite(.serialized)
struct TrustCommandTests {
    private func feed(_ title: String, items: [String], extra: String = "") -> String {
        let days = ["12", "11", "10", "09", "08", "07"]
        let entries = items.enumerated().map { index, item in
            "<item><title>\(item)</title><guid>\(item)</guid><pubDate>Tue, \(days[index % days.count]) Nov 2024 05:00:00 GMT</pubDate></item>"
        }
        return
            "<rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel><title>\(title)</title>\(extra)\(entries.joined())</channel></rss>"
    }

    @Test(.timeLimit(.minutes(2)))
    func feedsMovingToOtherHostsLeaveNoFeedUncheckedAndTheExitCodeSaysSo() async throws {
        try await withPodfreshAndServer { podfresh, server in
            var urls: [String] = []
            for index in 1...2 {
                let target = "http://localhost:\(server.port)/moved\(index).xml"
                server.serveFeed("/moved\(index).xml", feed("Moved \(index)", items: ["m\(index)"]))
                server.serveFeed(
                    "/mover\(index).xml",
                    feed(
                        "Mover \(index)", items: ["x\(index)"],
                        extra: "<itunes:new-feed-url>\(target)</itunes:new-feed-url>"))
                urls.append(server.url("/mover\(index).xml").absoluteString)
            }
            for index in 1...4 {
                server.serveFeed("/stay\(index).xml", feed("Stay \(index)", items: ["s\(index)"]))
                urls.append(server.url("/stay\(index).xml").absoluteString)
            }
            #expect(try await podfresh.run(["add", "--no-fetch"] + urls).status == 0)
            let result = try await podfresh.run(["refresh", "--json", "--per-host", "2"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stdout.contains("feed_cancelled"))
            #expect(result.stdoutLines.filter { $0.contains("\"event\":\"feed_refreshed\"") }.count == 6)
            #expect(result.stdout.contains("\"moved_to\":\"http://localhost:\(server.port)/moved1.xml\""))
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: [(SIGTERM, Int32(143), "SIGTERM"), (SIGINT, Int32(130), "SIGINT")])
    func aRefreshStoppedByASignalExitsWithItsCodeAndSaysWhatItDid(signal: Int32, code: Int32, name: String) async throws
    {
        try await withPodfreshAndServer { podfresh, server in
            var urls: [String] = []
            // Every answer is held until the signal is sent: the first fetch is in flight however long the test's own
            // tasks wait for a thread.
            let gate = TestGate()
            for index in 1...3 {
                let body = Array(feed("Slow \(index)", items: ["e\(index)"]).utf8)
                server.setRoute("/slow\(index).xml", TestResponse(status: 200, body: body, gate: gate))
                urls.append(server.url("/slow\(index).xml").absoluteString)
            }
            #expect(try await podfresh.run(["add", "--no-fetch"] + urls).status == 0)
            try await podfresh.withRunning(["refresh", "--jobs", "1"]) { refresh in
                while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
                refresh.send(signal)
                #expect(
                    await refresh.wait(for: .standardError, within: .seconds(20)) { $0.contains("stopping on") },
                    "the signal is answered: \(refresh.standardError)")
                gate.release()
                #expect(await refresh.exit(within: .seconds(20)) == .exited(code), "\(refresh.transcript)")
                #expect(
                    refresh.standardError.contains("stopped by \(name): 1 of 3 feeds checked"),
                    "\(refresh.standardError)")
            }
            #expect(server.requests.count == 1, "no new fetch starts after the signal")
            let store = try FeedStore(path: podfresh.databasePath)
            #expect(try await store.episodes(EpisodeQuery()).count == 1, "the fetch in flight was stored")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aSecondSignalStopsARefreshAtOnceWith128PlusThatSignal() async throws {
        try await withPodfreshAndServer { podfresh, server in
            // The server answers only after 30 s: a refresh that waited for it would not end within the 5 s below.
            let body = Array(feed("Stuck", items: ["s1"]).utf8)
            server.setRoute("/stuck.xml", TestResponse(status: 200, body: body, delay: .seconds(30)))
            #expect(try await podfresh.run(["add", "--no-fetch", server.url("/stuck.xml").absoluteString]).status == 0)
            try await podfresh.withRunning(["refresh"]) { refresh in
                while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
                refresh.send(SIGINT)
                #expect(
                    await refresh.wait(for: .standardError, within: .seconds(10)) {
                        $0.contains("stopping on SIGINT:")
                    }, "\(refresh.standardError)")
                refresh.send(SIGTERM)
                #expect(
                    await refresh.exit(within: .seconds(5)) == .exited(128 + SIGTERM),
                    "the second signal must not wait for the fetch in flight: \(refresh.standardError)")
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func watchSaysWhenItChecksNextAfterTheCyclesOwnEvents() async throws {
        try await withPodfreshAndServer { podfresh, server in
            server.serveFeed("/a.xml", feed("A", items: ["a1"]))
            #expect(try await podfresh.run(["add", "--no-fetch", server.url("/a.xml").absoluteString]).status == 0)
            try await podfresh.withRunning(["watch", "--json"]) { watch in
                #expect(
                    await watch.waitForLine(containing: "\"event\":\"idle\"", within: .seconds(30)),
                    "\(watch.transcript)")
                watch.terminate()
                #expect(await watch.exit(within: .seconds(30)) == .exited(0), "\(watch.standardError)")
                let events = watch.standardOutput.split(separator: "\n").compactMap { line -> String? in
                    guard let range = line.range(of: "\"event\":\"") else { return nil }
                    return String(line[range.upperBound...].prefix { $0 != "\"" })
                }
                let completed = try #require(events.firstIndex(of: "batch_completed"))
                let idle = try #require(events.firstIndex(of: "idle"))
                #expect(completed < idle, "\(events)")
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func addingAFeedAnnouncesItsNewestEpisodesAndRefusesAGoneOne() async throws {
        try await withPodfreshAndServer { podfresh, server in
            server.serveFeed("/big.xml", feed("Big", items: ["e5", "e4", "e3", "e2", "e1"]))
            server.serveFeed("/two.xml", feed("Two", items: ["t3", "t2", "t1"]))
            server.setRoute("/gone.xml", TestResponse(status: 410, text: "gone"))

            let added = try await podfresh.run(["add", server.url("/big.xml").absoluteString])
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout.contains("e5") && !added.stdout.contains("e4"), "\(added.stdout)")
            #expect(added.stdout.contains("4 older episodes stored"), "\(added.stdout)")
            let backlog = try await podfresh.run([
                "add", "--backlog", "2", "--json", server.url("/two.xml").absoluteString,
            ])
            #expect(
                backlog.stdoutLines.filter { $0.contains("\"event\":\"new_episode\"") }.count == 2, "\(backlog.stdout)")
            let stored = try await podfresh.run(["episodes", "--json"])
            #expect(stored.stdoutLines.count == 8, "\(stored.stdout)")

            let gone = try await podfresh.run(["add", server.url("/gone.xml").absoluteString])
            #expect(gone.status == 1)
            #expect(gone.stderr.contains("gone for good"), "\(gone.stderr)")
            let list = try await podfresh.run(["list", "--json"])
            #expect(!list.stdout.contains("/gone.xml"))
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func moveSetsAURLByHandOnlyWhenItIsAFeedAndUndoGoesBack() async throws {
        try await withPodfreshAndServer { podfresh, server in
            server.serveFeed("/old.xml", feed("Old", items: ["o1"]))
            server.serveFeed("/new.xml", feed("New", items: ["n1"]))
            server.setRoute(
                "/page.html",
                TestResponse(
                    status: 200, headers: [("Content-Type", "text/html")], text: "<html><body>no</body></html>"))
            let old = server.url("/old.xml").absoluteString
            #expect(try await podfresh.run(["add", old]).status == 0)

            let refused = try await podfresh.run(["move", "1", server.url("/page.html").absoluteString])
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "podfresh: not moved: \(server.url("/page.html").absoluteString) could not be read as a feed "
                    + "(the document is an HTML page, not a feed); the subscription stays at \(old) "
                    + "(--no-fetch moves it anyway)\n", "\(refused.stderr)")
            let moved = try await podfresh.run(["move", "1", server.url("/new.xml").absoluteString])
            #expect(moved.status == 0, "\(moved.stderr)")
            var store = try FeedStore(path: podfresh.databasePath)
            #expect(try await store.subscription(id: 1)?.url == server.url("/new.xml"))

            let undone = try await podfresh.run(["move", "1", "--undo"])
            #expect(undone.status == 0, "\(undone.stderr)")
            store = try FeedStore(path: podfresh.databasePath)
            #expect(try await store.subscription(id: 1)?.url.absoluteString == old)
            let nothingToUndo = try await podfresh.run(["move", "1", "--undo"])
            #expect(nothingToUndo.status == 64, "\(nothingToUndo.stderr)")
        }
    }

    /// A private database and a loopback test server for one test, both cleaned up after it.
    private func withPodfreshAndServer(_ body: (Podfresh, TestHTTPServer) async throws -> Void) async throws {
        let podfresh = try Podfresh()
        let server = try await TestHTTPServer.start()
        defer { podfresh.cleanUp() }
        do {
            try await body(podfresh, server)
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }
}
