import Foundation
import TestSupport
import Testing

/// End-to-end: a feed's `podcast:liveItem` shows in `episodes` as upcoming, live or ended, is never downloaded,
/// `refresh` says when the show goes live, and once the recording is published as an ordinary item with the same guid
/// it is that same episode, not announced again, and downloaded as any other. A real HTTP server on 127.0.0.1, the
/// built binary.
@Suite(.serialized)
struct LiveItemCommandTests {
    static func feed(
        live status: String?, recording: Bool, server: TestHTTPServer, title: String = "Q&amp;A live"
    ) -> String {
        let liveItem =
            status.map {
                """
                <podcast:liveItem status="\($0)" start="2024-01-05T18:00:00Z" end="2024-01-05T19:00:00Z">
                <title>\(title)</title><guid>live-1</guid><link>https://live.example/watch</link>
                <enclosure url="\(server.url("/stream").absoluteString)" type="audio/mpeg" length="0"/>
                <podcast:contentLink href="https://video.example/live-1">Watch on Video</podcast:contentLink>
                </podcast:liveItem>
                """
            } ?? ""
        let recorded =
            recording
            ? """
            <item><title>Q&amp;A live</title><guid>live-1</guid><pubDate>05 Jan 2024 12:00:00 GMT</pubDate>
            <enclosure url="\(server.url("/m/live-1.mp3").absoluteString)" type="audio/mpeg" length="0"/></item>
            """ : ""
        return """
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel>
            <title>Live Cast</title>
            \(liveItem)
            \(recorded)
            <item><title>Episode 1</title><guid>e1</guid><pubDate>01 Jan 2024 10:00:00 GMT</pubDate>
            <enclosure url="\(server.url("/m/e1.mp3").absoluteString)" type="audio/mpeg" length="0"/></item>
            </channel></rss>
            """
    }

    static func objects(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test(.timeLimit(.minutes(3)))
    func aLiveItemIsShownNeverDownloadedSaidWhenLiveAndItsRecordingIsNotAnnouncedTwice() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/stream", DownloadCommandTests.media(20_000, seed: 9))
            server.serveMedia("/m/e1.mp3", DownloadCommandTests.media(8_000, seed: 1))
            server.serveMedia("/m/live-1.mp3", DownloadCommandTests.media(9_000, seed: 2))
            server.serveFeed("/feed.xml", Self.feed(live: "pending", recording: false, server: server))
            #expect(
                try await podfresh.run(["add", server.url("/feed.xml").absoluteString, "--backlog", "5"]).status == 0)
            let first = try await podfresh.run(["refresh"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(!first.stdout.contains("live now"), "pending is not live: \(first.stdout)")

            // Upcoming, in text and JSON.
            let listed = try await podfresh.run(["episodes", "--wide"])
            #expect(listed.stdout.contains("Live Cast: Q&A live  [upcoming "), "\(listed.stdout)")
            let json = Self.objects(try await podfresh.run(["episodes", "--json"]).stdoutLines)
            let live = json.first { $0["title"] as? String == "Q&A live" }?["live"] as? [String: Any]
            #expect(live?["status"] as? String == "upcoming")
            #expect(live?["start"] as? String == "2024-01-05T18:00:00Z")
            let links = live?["content_links"] as? [[String: Any]]
            #expect(links?.first?["href"] as? String == "https://video.example/live-1")
            #expect(links?.first?["text"] as? String == "Watch on Video")
            #expect(json.first { $0["title"] as? String == "Episode 1" }?["live"] is NSNull)

            // It goes live: refresh says so, once.
            server.serveFeed("/feed.xml", Self.feed(live: "live", recording: false, server: server))
            let wentLive = try await podfresh.run(["refresh", "--force"])
            #expect(wentLive.status == 0, "\(wentLive.stderr)")
            #expect(
                wentLive.stdout.contains("live now  Live Cast: Q&A live https://live.example/watch"),
                "\(wentLive.stdout)")
            let again = try await podfresh.run(["refresh", "--force", "--json"])
            #expect(!again.stdout.contains("went_live"), "unchanged: not said again: \(again.stdout)")
            #expect(try await podfresh.run(["episodes", "--wide"]).stdout.contains("Q&A live  [live"))

            // Never downloaded, whatever the settings.
            #expect(try await podfresh.run(["set", "1", "--download", "on", "--backlog", "all"]).status == 0)
            let download = try await podfresh.run(["download"])
            #expect(download.status == 0, "\(download.stderr)")
            #expect(server.requests(to: "/stream").isEmpty, "the stream is never fetched")
            #expect(
                DownloadCommandTests.files(in: folder) == ["Live Cast/2024-01-01 Episode 1.mp3"], "\(download.stdout)")

            // It ends, and the recording is published as an ordinary item: the same episode, not new again.
            server.serveFeed("/feed.xml", Self.feed(live: nil, recording: true, server: server))
            let recorded = try await podfresh.run(["refresh", "--force", "--json"])
            #expect(recorded.status == 0, "\(recorded.stderr)")
            let events = Self.objects(recorded.stdoutLines)
            #expect(
                !events.contains { $0["event"] as? String == "new_episode" }, "not announced twice: \(recorded.stdout)")
            let after = Self.objects(try await podfresh.run(["episodes", "--json"]).stdoutLines)
            #expect(after.filter { $0["title"] as? String == "Q&A live" }.count == 1)
            #expect(after.first { $0["title"] as? String == "Q&A live" }?["live"] is NSNull)
            let fetched = try await podfresh.run(["download"])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Live Cast/2024-01-01 Episode 1.mp3", "Live Cast/2024-01-05 Q&A live.mp3",
                ], "\(fetched.stdout)")
            #expect(server.requests(to: "/stream").isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aStreamIsSaidToGoLiveOnceEvenWhenItsTitleChangesWhileLive() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, _) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/e1.mp3", DownloadCommandTests.media(8_000, seed: 1))
            server.serveFeed("/feed.xml", Self.feed(live: "pending", recording: false, server: server))
            #expect(try await podfresh.run(["add", server.url("/feed.xml").absoluteString]).status == 0)
            let pending = try await podfresh.run(["refresh"])
            #expect(pending.status == 0, "\(pending.stderr)")
            #expect(!pending.stdout.contains("live now"), "\(pending.stdout)")

            server.serveFeed("/feed.xml", Self.feed(live: "live", recording: false, server: server))
            let live = try await podfresh.run(["refresh", "--force"])
            #expect(live.stdout.components(separatedBy: "live now").count - 1 == 1, "said once: \(live.stdout)")

            // The host retitles the stream while it is live: a changed episode, not a new stream.
            server.serveFeed(
                "/feed.xml",
                Self.feed(live: "live", recording: false, server: server, title: "Q&amp;A live, with a guest"))
            let retitled = try await podfresh.run(["refresh", "--force", "--json"])
            #expect(retitled.status == 0, "\(retitled.stderr)")
            #expect(!retitled.stdout.contains("went_live"), "retitled while live: not said again: \(retitled.stdout)")
            let listed = try await podfresh.run(["episodes", "--wide"])
            #expect(listed.stdout.contains("Q&A live, with a guest  [live"), "the change is stored: \(listed.stdout)")
            let text = try await podfresh.run(["refresh", "--force"])
            #expect(!text.stdout.contains("live now"), "\(text.stdout)")

            // It ends, then goes live again (a second stream under the same item): said again, once.
            server.serveFeed("/feed.xml", Self.feed(live: "ended", recording: false, server: server))
            #expect(!(try await podfresh.run(["refresh", "--force"]).stdout.contains("live now")))
            server.serveFeed("/feed.xml", Self.feed(live: "live", recording: false, server: server))
            let relive = try await podfresh.run(["refresh", "--force"])
            #expect(relive.stdout.components(separatedBy: "live now").count - 1 == 1, "\(relive.stdout)")
        }
    }
}
