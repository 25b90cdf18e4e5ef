import FeedModels
import FeedStorage
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: the built binary whose standard output cannot be written (a closed pipe, `/dev/full`) or is closed. No
/// command crashes; `refresh`, `watch` and `download` stop as on SIGTERM (the work in flight is kept) and every command
/// exits 141 for a closed pipe and 74 for a full disk, with the database intact and a next run completing the rest.
@Suite(.serialized)
struct BrokenOutputCommandTests {
    static let feedCount = 30
    static let episodesPerFeed = 4

    /// Serves `feedCount` feeds of `episodesPerFeed` episodes each, every answer held back `delay`, and subscribes to
    /// them with every episode announced (`--backlog`), so that a refresh prints a line per episode.
    func subscribe(
        _ podfresh: Podfresh, _ server: TestHTTPServer, delay: Duration = .milliseconds(150)
    ) async throws {
        var urls: [String] = []
        for feed in 0..<Self.feedCount {
            let items = (0..<Self.episodesPerFeed).map { episode in
                """
                <item><title>Episode \(episode) of a show with a fairly long title, number \(feed)</title>
                <guid>feed-\(feed)-episode-\(episode)</guid><pubDate>0\(episode + 1) Jan 2024 10:00:00 GMT</pubDate>
                <enclosure url="https://media.example/show-\(feed)/episode-\(episode).mp3" type="audio/mpeg"/></item>
                """
            }
            let body = """
                <?xml version="1.0"?><rss version="2.0"><channel><title>Show \(feed)</title>
                \(items.joined(separator: "\n"))</channel></rss>
                """
            server.setRoute(
                "/feed-\(feed).xml",
                TestResponse(headers: [("Content-Type", "application/rss+xml")], text: body, delay: delay))
            urls.append(server.url("/feed-\(feed).xml").absoluteString)
        }
        let added = try await podfresh.run(["add", "--no-fetch", "--backlog", "100"] + urls)
        #expect(added.status == 0, "\(added.stderr)")
    }

    /// The episodes stored, by the store's own reading of the file.
    func storedEpisodes(_ podfresh: Podfresh) async throws -> Int {
        let store = try FeedStore(path: podfresh.databasePath)
        return try await store.episodes(EpisodeQuery(limit: 100_000)).count
    }

    func integrity(_ podfresh: Podfresh) async throws -> String {
        try await FeedStore(path: podfresh.databasePath).integrityCheck()
    }

    /// What a run whose output broke must show: no trap, the documented status, a reason only for a full disk.
    func expectStoppedForItsOutput(_ result: BrokenOutputResult, _ output: BrokenStandardOutput) {
        #expect(!result.signaled, "no crash: \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
        switch output {
        case .full:
            #expect(result.status == 74, "\(result.stderr)")
            #expect(
                result.stderr.hasSuffix("podfresh: cannot write standard output: No space left on device\n"),
                "one line says why: \(result.stderr)")
        case .pipeClosedAtOnce, .pipeClosedAfterFirstLine:
            #expect(result.status == 141, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "a reader that left asked for nothing more: \(result.stderr)")
        case .closed:
            Issue.record("a closed standard output is not a failure")
        }
    }

    static let broken: [BrokenStandardOutput] = [.pipeClosedAtOnce, .pipeClosedAfterFirstLine, .full]

    @Test(.timeLimit(.minutes(3)), arguments: [[], ["--json"]], broken)
    func refreshStopsAsOnSIGTERMAndTheNextRefreshChecksTheRest(
        style: [String], output: BrokenStandardOutput
    ) async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            try await subscribe(podfresh, server)
            let first = try await podfresh.run(["refresh"] + style, standardOutput: output)
            expectStoppedForItsOutput(first, output)
            if output == .pipeClosedAfterFirstLine { #expect(first.firstLine?.isEmpty == false) }
            #expect(try await integrity(podfresh) == "ok")
            let total = Self.feedCount * Self.episodesPerFeed
            let storedFirst = try await storedEpisodes(podfresh)
            #expect(storedFirst < total, "no new fetch started once the output broke")
            #expect(storedFirst % Self.episodesPerFeed == 0, "a feed in flight was stored whole or not at all")

            let second = try await podfresh.run(["refresh", "--quiet"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(
                second.stdoutLines.count == total - storedFirst,
                "the second run announces exactly what the first did not check: \(second.stdout)")
            #expect(try await storedEpisodes(podfresh) == total)
            #expect(try await integrity(podfresh) == "ok")
        }
    }

    @Test(.timeLimit(.minutes(3)), arguments: broken)
    func watchStopsAsOnSIGTERMWithTheOutputsStatus(output: BrokenStandardOutput) async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            try await subscribe(podfresh, server)
            let watch = try await podfresh.run(
                ["watch", "--interval", "1h"], standardOutput: output, timeout: .seconds(60))
            expectStoppedForItsOutput(watch, output)
            #expect(try await integrity(podfresh) == "ok")
            let second = try await podfresh.run(["refresh", "--quiet"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(try await storedEpisodes(podfresh) == Self.feedCount * Self.episodesPerFeed)
        }
    }

    @Test(
        .timeLimit(.minutes(3)),
        arguments: [
            (["list"], BrokenStandardOutput.pipeClosedAtOnce), (["list"], .full),
            (["list", "--json"], .pipeClosedAtOnce),
            (["episodes", "--limit", "1000"], .pipeClosedAtOnce),
            (["episodes", "--limit", "1000"], .pipeClosedAfterFirstLine), (["episodes", "--limit", "1000"], .full),
            (["episodes", "--json", "--limit", "1000"], .pipeClosedAfterFirstLine),
            (["status"], .pipeClosedAtOnce), (["status"], .full), (["status", "--json"], .full),
            (["export"], .pipeClosedAtOnce), (["export"], .full),
            (["parse", "Feeds/night-shift-radio.xml"], .pipeClosedAtOnce),
            (["parse", "Feeds/night-shift-radio.xml"], .full),
        ])
    func aOneShotCommandStopsWithTheOutputsStatus(_ command: [String], output: BrokenStandardOutput) async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            try await subscribe(podfresh, server, delay: .zero)
            #expect(try await podfresh.run(["refresh", "--quiet"]).status == 0)
            let arguments = command.map {
                $0.hasPrefix("Feeds/") ? Podfresh.packageRoot.appendingPathComponent($0).path : $0
            }
            let result = try await podfresh.run(arguments, standardOutput: output, timeout: .seconds(60))
            expectStoppedForItsOutput(result, output)
            if output == .pipeClosedAfterFirstLine { #expect(result.firstLine?.isEmpty == false) }
            #expect(try await integrity(podfresh) == "ok")
            #expect(try await podfresh.run(["refresh", "--all", "--quiet"]).status == 0)
        }
    }

    @Test(.timeLimit(.minutes(3)), arguments: [BrokenStandardOutput.pipeClosedAtOnce, .full])
    func downloadStopsAsOnSIGTERMAndTheNextDownloadCompletesTheRest(output: BrokenStandardOutput) async throws {
        var podfresh = try Podfresh()
        let folder = podfresh.directory.appendingPathComponent("episodes")
        podfresh.environment["PODFRESH_DOWNLOADS"] = folder.path
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            let count = 8
            var items: [DownloadCommandTests.Item] = []
            for index in 0..<count {
                let path = "/m/\(index).mp3"
                // About 0.4 s each, two at a time: the first line comes while the others still wait.
                server.serveMedia(
                    path, DownloadCommandTests.media(200_000, seed: UInt8(index)),
                    fault: .trickle(bytes: 25_000, delay: .milliseconds(50)))
                items.append(.init(guid: "e\(index)", title: "Part \(index)", day: index + 1, path: path))
            }
            server.serveFeed("/feed.xml", DownloadCommandTests.feed("Test Cast", items, server: server))
            #expect(try await podfresh.run(["add", server.url("/feed.xml").absoluteString]).status == 0)
            #expect(try await podfresh.run(["refresh", "--quiet"]).status == 0)

            let first = try await podfresh.run(
                ["download", "Test Cast", "--latest", "\(count)"], standardOutput: output, timeout: .seconds(60))
            expectStoppedForItsOutput(first, output)
            let downloaded = DownloadCommandTests.files(in: folder).filter { $0.hasSuffix(".mp3") }
            #expect(downloaded.count < count, "no new download started once the output broke: \(downloaded)")
            #expect(try await integrity(podfresh) == "ok")

            let second = try await podfresh.run(["download", "Test Cast", "--latest", "\(count)", "--quiet"])
            #expect(second.status == 0, "\(second.stderr)")
            let all = DownloadCommandTests.files(in: folder).filter { $0.hasSuffix(".mp3") }
            #expect(all.count == count, "\(all)")
            for index in 0..<count {
                let file = folder.appendingPathComponent("Test Cast/2024-01-0\(index + 1) Part \(index).mp3")
                #expect(
                    DownloadCommandTests.bytes(file) == DownloadCommandTests.media(200_000, seed: UInt8(index)),
                    "\(file.lastPathComponent) is whole")
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aClosedStandardOutputIsDevNullAndARefreshRunsAsUsual() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            try await subscribe(podfresh, server, delay: .zero)
            // The hook, a child of podfresh, reads what podfresh's descriptor 1 is.
            let seen = podfresh.directory.appendingPathComponent("descriptor-1").path
            let hook = "readlink /proc/$PPID/fd/1 > '\(seen)'"
            let result = try await podfresh.run(["refresh", "--exec", hook], standardOutput: .closed)
            #expect(!result.signaled)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            let target = try String(contentsOfFile: seen, encoding: .utf8)
            #expect(target == "/dev/null\n", "no file podfresh opened took descriptor 1")
            #expect(try await storedEpisodes(podfresh) == Self.feedCount * Self.episodesPerFeed)
            #expect(try await integrity(podfresh) == "ok")

            for command in [["list"], ["episodes"], ["status"], ["refresh", "--all", "--json"]] {
                let run = try await podfresh.run(command, standardOutput: .closed)
                #expect(!run.signaled && run.status == 0, "\(command): \(run.status) \(run.stderr)")
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func watchWithAClosedStandardOutputRunsUntilItsSignal() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            try await subscribe(podfresh, server, delay: .zero)
            podfresh.launcher = ["/bin/sh", "-c", "exec \"$@\" >&-", "sh"]
            try await podfresh.withRunning(["watch", "--interval", "1h"]) { watch in
                let deadline = ContinuousClock.now + .seconds(60)
                while try await storedEpisodes(podfresh) < Self.feedCount * Self.episodesPerFeed,
                    ContinuousClock.now < deadline
                {
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(watch.status == nil, "watch keeps going: \(watch.transcript)")
                watch.terminate()
                #expect(await watch.exit(within: .seconds(15)) == .exited(0), "\(watch.transcript)")
            }
            #expect(try await storedEpisodes(podfresh) == Self.feedCount * Self.episodesPerFeed)
            #expect(try await integrity(podfresh) == "ok")
        }
    }
}
