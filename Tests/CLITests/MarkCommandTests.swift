import Foundation
import TestSupport
import Testing

/// End-to-end: `podfresh mark played|unplayed` by the ids `episodes --json` prints or by feed, what `episodes` then
/// says of each episode, and with sync the mark reaching the server as a `play` to the end or `new`.
@Suite(.serialized)
struct MarkCommandTests {
    static func items(_ server: TestHTTPServer) -> String {
        DownloadCommandTests.feed(
            "Mark Cast",
            (1...3).reversed().map {
                DownloadCommandTests.Item(guid: "e\($0)", title: "Ep \($0)", day: $0, path: "/m/\($0).mp3")
            }, server: server)
    }

    @Test(.timeLimit(.minutes(2)))
    func markPlayedAndUnplayedByIdOrFeedAndEpisodesSaysNewDownloadedAndPlayed() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/3.mp3", DownloadCommandTests.media(5_000, seed: 3))
            server.serveFeed("/feed.xml", Self.items(server))
            #expect(try await podfresh.run(["add", server.url("/feed.xml").absoluteString]).status == 0)
            #expect(try await podfresh.run(["download", "1"]).status == 0)
            #expect(DownloadCommandTests.files(in: folder).count == 1)

            // The add's check announced the newest: new; its file is on disk: downloaded.
            var listed = try await podfresh.run(["episodes"])
            #expect(
                listed.stdoutLines == [
                    "2024-01-03  Mark Cast: Ep 3  [new, downloaded]", "2024-01-02  Mark Cast: Ep 2",
                    "2024-01-01  Mark Cast: Ep 1",
                ], "\(listed.stdout)")

            // By the id `episodes --json` prints.
            let ids = EpisodeActionCommandTests.jsonLines(try await podfresh.run(["episodes", "--json"]).stdout)
            #expect(ids.map { $0["id"] as? String } == ["e3", "e2", "e1"])
            #expect(ids.map { $0["new"] as? Bool } == [true, false, false])
            let marked = try await podfresh.run(["mark", "played", "e3", "e1"])
            #expect(marked.status == 0, "\(marked.stderr)")
            #expect(
                marked.stdoutLines == [
                    "played     Mark Cast: Ep 3", "played     Mark Cast: Ep 1", "marked 2 episodes played",
                ], "\(marked.stdout)")
            listed = try await podfresh.run(["episodes", "--wide"])
            #expect(listed.stdoutLines.first == "2024-01-03  Mark Cast: Ep 3  [new, downloaded, played]")
            #expect(listed.stdoutLines.last == "2024-01-01  Mark Cast: Ep 1  [played]")
            let unplayed = try await podfresh.run(["episodes", "--unplayed"])
            #expect(unplayed.stdoutLines == ["2024-01-02  Mark Cast: Ep 2"], "\(unplayed.stdout)")
            let json = EpisodeActionCommandTests.jsonLines(try await podfresh.run(["episodes", "--json"]).stdout)
            #expect(json.map { $0["played"] as? Bool } == [true, false, true])

            // Played episodes are not downloaded unless asked, and say why.
            let download = try await podfresh.run(["download", "1", "--latest", "3"])
            #expect(download.stdout.contains("Ep 1: marked played (`podfresh mark`"), "\(download.stdout)")

            // A feed marks all its episodes; those already so are counted.
            let feed = try await podfresh.run(["mark", "unplayed", "Mark Cast"])
            #expect(feed.status == 0, "\(feed.stderr)")
            #expect(
                feed.stdoutLines == [
                    "unplayed   Mark Cast: all 3 episodes", "marked 2 episodes unplayed (1 already unplayed)",
                ], "\(feed.stdout)")
            #expect(try await podfresh.run(["episodes", "--unplayed"]).stdoutLines.count == 3)

            // An id that matches nothing is a usage error, and nothing is marked.
            let wrong = try await podfresh.run(["mark", "played", "e2", "no-such-episode"])
            #expect(wrong.status == 64)
            #expect(wrong.stderr.contains("no episode or feed matches \"no-such-episode\""), "\(wrong.stderr)")
            #expect(try await podfresh.run(["episodes", "--unplayed"]).stdoutLines.count == 3)
        }
    }

    @Test(
        .timeLimit(.minutes(4)),
        .enabled("needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI) and python3") {
            await SyncTestServer.gpodderAvailable()
        },
        arguments: SyncTestServer.Kind.allCases)
    func aMarkIsSentToTheServerAsAPlayToTheEndOrNew(_ kind: SyncTestServer.Kind) async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_SYNC_PASSWORD"] = EpisodeActionCommandTests.password
        try await withTestHTTPServer { web in
            web.serveFeed("/feed.xml", Self.items(web))
            try await withSyncTestServer(
                kind, directory: podfresh.directory, password: EpisodeActionCommandTests.password
            ) { server in
                try await server.registerPhone()
                var setup = [
                    "sync", "setup", "--server", server.url.absoluteString, "--user", server.user, "--device", "box",
                    "--api", kind.rawValue,
                ]
                if kind == .gpodder { setup += ["--sync-with", "phone"] }
                #expect(try await podfresh.run(setup).status == 0)
                #expect(try await podfresh.run(["add", web.url("/feed.xml").absoluteString]).status == 0)
                let marked = try await podfresh.run(["mark", "played", "e2"])
                #expect(marked.status == 0, "\(marked.stderr)")
                #expect(marked.stdout.contains("the next sync sends a play to the end to the server"))
                #expect(try await podfresh.run(["sync"]).status == 0)
                let plays = try await server.serverActions().filter {
                    ($0["action"] as? String)?.lowercased() == "play"
                }
                #expect(plays.count == 1, "\(plays)")
                let play = try #require(plays.first)
                #expect(play["episode"] as? String == web.url("/m/2.mp3").absoluteString)
                #expect(play["position"] as? Int != nil && play["position"] as? Int == play["total"] as? Int)

                #expect(try await podfresh.run(["mark", "unplayed", "e2"]).status == 0)
                #expect(try await podfresh.run(["sync"]).status == 0)
                let all = try await server.serverActions()
                let news = all.filter { ($0["action"] as? String)?.lowercased() == "new" }
                #expect(news.count == 1, "\(all)")
            }
        }
    }
}
