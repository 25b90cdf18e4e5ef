import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import TestSupport
import Testing

@Suite(.serialized)
struct WatchCommandTests {
    func feed(items: [String]) -> String {
        let entries = items.map {
            "<item><title>\($0)</title><guid>\($0)</guid><pubDate>Tue, 12 Nov 2024 05:00:00 GMT</pubDate></item>"
        }
        return "<rss version=\"2.0\"><channel><title>Watched</title>\(entries.joined())</channel></rss>"
    }

    @Test(.timeLimit(.minutes(2)))
    func watchReportsANewEpisodeAndStopsCleanlyOnSIGTERM() async throws {
        let podfresh = try Podfresh()
        try await withTestHTTPServer { server in
            defer { podfresh.cleanUp() }
            server.serveFeed("/watched.xml", feed(items: ["first"]))
            #expect(
                try await podfresh.run(["add", "--no-fetch", server.url("/watched.xml").absoluteString]).status == 0)

            try await podfresh.withRunning(["watch", "--interval", "1s"]) { watch in
                #expect(
                    await watch.waitForLine(containing: "first", within: .seconds(30)),
                    "first cycle: \(watch.transcript)")
                // The feed gains an episode.
                server.serveFeed(
                    "/watched.xml", feed(items: ["second", "first"]), lastModified: "Wed, 13 Nov 2024 05:00:00 GMT")
                #expect(
                    await watch.waitForLine(containing: "second", within: .seconds(30)),
                    "new episode: \(watch.transcript)")

                // A second refresh on the same database is refused while watch holds the lock.
                let concurrent = try await podfresh.run(["refresh"])
                #expect(concurrent.status == 75)

                watch.terminate()  // SIGTERM
                #expect(
                    await watch.exit(within: .seconds(10)) == .exited(0),
                    "watch must exit 0 within a few seconds of SIGTERM: \(watch.transcript)")
            }

            let store = try FeedStore(path: podfresh.databasePath)
            let titles = try await store.episodes(EpisodeQuery()).compactMap(\.episode.title)
            #expect(Set(titles) == ["first", "second"])
            #expect(titles.filter { $0 == "second" }.count == 1, "the episode is stored once")
            #expect(server.requests(to: "/watched.xml").count >= 2)
            #expect(try await store.integrityCheck() == "ok")
        }
    }

    /// Runs `body` with `watch` started on one subscribed feed whose answer the server holds back (until `gate` is
    /// released, if given, else for `delay`), once the fetch is in flight.
    private func withWatchFetchInFlight(
        _ podfresh: Podfresh, _ server: TestHTTPServer, delay: Duration? = nil, gate: TestGate? = nil,
        _ body: (RunningProcess) async throws -> Void
    ) async throws {
        server.setRoute(
            "/slow.xml", TestResponse(status: 200, body: Array(feed(items: ["slow"]).utf8), delay: delay, gate: gate))
        #expect(try await podfresh.run(["add", "--no-fetch", server.url("/slow.xml").absoluteString]).status == 0)
        try await podfresh.withRunning(["watch", "--interval", "1s"]) { watch in
            let deadline = ContinuousClock.now + .seconds(30)
            while server.requests.isEmpty && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(server.requests.count == 1, "the fetch is in flight: \(watch.standardError)")
            try await body(watch)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func sigtermLetsTheFetchInFlightCommitAndWatchExitsZero() async throws {
        let podfresh = try Podfresh()
        try await withTestHTTPServer { server in
            defer { podfresh.cleanUp() }
            // The answer is held until the signal is sent, however long the test's own tasks wait for a thread.
            let gate = TestGate()
            try await withWatchFetchInFlight(podfresh, server, gate: gate) { watch in
                watch.terminate()  // SIGTERM while the feed is being fetched
                #expect(
                    await watch.wait(for: .standardError, within: .seconds(20)) { $0.contains("stopping:") },
                    "the signal is answered: \(watch.standardError)")
                gate.release()
                #expect(
                    await watch.exit(within: .seconds(15)) == .exited(0),
                    "watch must exit 0 once the fetch in flight is stored: \(watch.standardError)")
                #expect(
                    watch.standardError.contains(
                        "stopping: letting feeds in flight finish (signal again to quit now)"),
                    "\(watch.standardError)")
            }
            let store = try FeedStore(path: podfresh.databasePath)
            #expect(
                try await store.episodes(EpisodeQuery()).compactMap(\.episode.title) == ["slow"],
                "the merge in flight committed")
            #expect(server.requests.count == 1, "no new fetch starts after the signal")
            #expect(try await store.integrityCheck() == "ok")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aSecondSignalStopsWatchAtOnceWith128PlusThatSignal() async throws {
        let podfresh = try Podfresh()
        try await withTestHTTPServer { server in
            defer { podfresh.cleanUp() }
            // The server answers only after 30 s: a watch that waited for it would not end within the 5 s below.
            try await withWatchFetchInFlight(podfresh, server, delay: .seconds(30)) { watch in
                watch.send(SIGTERM)
                #expect(
                    await watch.wait(for: .standardError, within: .seconds(10)) { $0.contains("stopping:") },
                    "the first signal is answered: \(watch.standardError)")
                watch.send(SIGINT)
                #expect(
                    await watch.exit(within: .seconds(5)) == .exited(128 + SIGINT),
                    "the second signal must not wait for the fetch in flight: \(watch.standardError)")
            }
            let store = try FeedStore(path: podfresh.databasePath)
            #expect(try await store.episodes(EpisodeQuery()).isEmpty, "the fetch in flight was abandoned")
            #expect(try await store.integrityCheck() == "ok")
        }
    }

    // MARK: - The first line

    /// Watch's first line says what it checks now, or when it checks next, on a pipe and in JSON; after a cycle it
    /// says when the next check is.
    @Test(.timeLimit(.minutes(2)))
    func watchsFirstLineSaysWhatItChecksNowOrWhenItChecksNext() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch"] + RefreshCommandTests.demoFeeds).status == 0)
        // Three feeds never checked: due now.
        try await podfresh.withRunning(["watch"]) { watch in
            #expect(
                await watch.waitForLine(containing: "next check at", within: .seconds(30)), "\(watch.transcript)")
            let lines = watch.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.first == "checking 3 feeds now", "\(watch.transcript)")
            watch.terminate()
            #expect(await watch.exit(within: .seconds(10)) == .exited(0))
        }
        // Now nothing is due for 15 minutes: the first line says when the next check is, at once.
        try await podfresh.withRunning(["watch"]) { watch in
            #expect(await watch.waitForLine(containing: "next check at", within: .seconds(30)))
            let first = watch.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first.hasPrefix("next check at "), "\(watch.transcript)")
            #expect(first.contains(" (in "), "\(first)")
            watch.terminate()
            #expect(await watch.exit(within: .seconds(10)) == .exited(0))
        }
        try await podfresh.withRunning(["watch", "--json"]) { watch in
            #expect(await watch.waitForLine(containing: "\"idle\"", within: .seconds(30)), "\(watch.transcript)")
            let first = watch.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
            let object = try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]
            #expect(object?["event"] as? String == "idle", "\(first)")
            #expect(object?["next_check"] is String, "\(first)")
            watch.terminate()
            #expect(await watch.exit(within: .seconds(10)) == .exited(0))
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func anIntervalBelowTheMinimumIsSaidOnceAtTheStart() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await podfresh.withRunning(["watch", "--interval", "10s"]) { watch in
            #expect(
                await watch.waitForLine(
                    containing: "--interval 10s is shorter than --min-interval 5m", in: .standardError,
                    within: .seconds(30)), "\(watch.transcript)")
            // Stopped once it is watching (its signal handling is set up by then).
            #expect(await watch.waitForLine(containing: "next check", within: .seconds(30)), "\(watch.transcript)")
            watch.terminate()
            #expect(await watch.exit(within: .seconds(10)) == .exited(0))
        }
        try await podfresh.withRunning(["watch", "--interval", "10s", "--min-interval", "10s"]) { watch in
            #expect(await watch.waitForLine(containing: "next check", within: .seconds(30)), "\(watch.transcript)")
            #expect(!watch.standardError.contains("shorter than"), "\(watch.transcript)")
            watch.terminate()
            #expect(await watch.exit(within: .seconds(10)) == .exited(0))
        }
    }
}
