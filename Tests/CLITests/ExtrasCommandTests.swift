import Foundation
import TestSupport
import Testing

/// End-to-end (issue #37): a feed set to `--include 'full episode' --extras on` downloads just those episodes, each
/// with its transcript, chapters and artwork beside it; a broken extra never fails its episode, is said, waits like a
/// broken link and is tried again; extras go with their episode. A real HTTP server on 127.0.0.1, the built binary.
@Suite(.serialized)
struct ExtrasCommandTests {
    static let chapters = #"{"version":"1.2.0","chapters":[{"startTime":0,"title":"Intro"}]}"#
    static let vtt = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello.\n"
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 3_000)
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 300)

    /// An episode with a transcript, chapters and an image at `/x/GUID.*`, and media at `/m/GUID.mp3`.
    static func item(_ guid: String, _ title: String, day: Int, server: TestHTTPServer) -> String {
        """
        <item><title>\(title)</title><guid>\(guid)</guid>
        <pubDate>\(String(format: "%02d", day)) Jan 2024 10:00:00 GMT</pubDate>
        <enclosure url="\(server.url("/m/\(guid).mp3").absoluteString)" type="audio/mpeg" length="0"/>
        <podcast:transcript url="\(server.url("/x/\(guid).vtt").absoluteString)" type="text/vtt" language="en"/>
        <podcast:chapters url="\(server.url("/x/\(guid).json").absoluteString)" type="application/json+chapters"/>
        <itunes:image href="\(server.url("/x/\(guid).jpg").absoluteString)"/>
        </item>
        """
    }

    static func feed(_ items: [String], server: TestHTTPServer) -> String {
        """
        <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
          xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Extra Cast</title>
        <itunes:image href="\(server.url("/x/show.png").absoluteString)"/>
        \(items.joined(separator: "\n"))
        </channel></rss>
        """
    }

    /// Serves an episode's media and extras.
    static func serve(_ guid: String, on server: TestHTTPServer, seed: UInt8) {
        server.serveMedia("/m/\(guid).mp3", DownloadCommandTests.media(30_000, seed: seed))
        server.setRoute("/x/\(guid).vtt", TestResponse(headers: [("Content-Type", "text/vtt")], text: vtt))
        server.setRoute(
            "/x/\(guid).json", TestResponse(headers: [("Content-Type", "application/json")], text: chapters))
        server.setRoute("/x/\(guid).jpg", TestResponse(headers: [("Content-Type", "image/jpeg")], body: jpeg))
    }

    @Test(.timeLimit(.minutes(3)))
    func includeFullEpisodeWithExtrasDownloadsJustThoseEachWithItsFilesBeside() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            for (index, guid) in ["e1", "e2", "e3"].enumerated() { Self.serve(guid, on: server, seed: UInt8(index)) }
            server.serveFeed(
                "/feed.xml",
                Self.feed(
                    [
                        Self.item("e3", "Full episode 3", day: 3, server: server),
                        Self.item("e2", "Trailer", day: 2, server: server),
                        Self.item("e1", "Full Episode 1", day: 1, server: server),
                    ], server: server))
            try await DownloadCommandTests().subscribe(podfresh, server)

            let set = try await podfresh.run([
                "set", "Extra Cast", "--download", "on", "--backlog", "all", "--include", "full episode", "--extras",
                "on",
            ])
            #expect(set.status == 0, "\(set.stderr)")
            #expect(set.stdout.contains("extras on"), "\(set.stdout)")
            let detail = try await podfresh.run(["list", "Extra Cast"])
            #expect(detail.stdout.contains("extras:       on"), "\(detail.stdout)")

            let run = try await podfresh.run(["download"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Extra Cast/2024-01-01 Full Episode 1.chapters.json", "Extra Cast/2024-01-01 Full Episode 1.jpg",
                    "Extra Cast/2024-01-01 Full Episode 1.mp3", "Extra Cast/2024-01-01 Full Episode 1.vtt",
                    "Extra Cast/2024-01-03 Full episode 3.chapters.json", "Extra Cast/2024-01-03 Full episode 3.jpg",
                    "Extra Cast/2024-01-03 Full episode 3.mp3", "Extra Cast/2024-01-03 Full episode 3.vtt",
                ], "\(run.stdout)\(run.stderr)")
            #expect(server.requests(to: "/x/e2.vtt").isEmpty && server.requests(to: "/m/e2.mp3").isEmpty)
            let chapters = folder.appendingPathComponent("Extra Cast/2024-01-03 Full episode 3.chapters.json")
            #expect((try? String(contentsOf: chapters, encoding: .utf8)) == Self.chapters)
            #expect(
                run.stdout.contains(
                    "saved      Extra Cast: Full episode 3: transcript → \(folder.path)/Extra Cast/2024-01-03 Full episode 3.vtt"
                ),
                "\(run.stdout)")
            #expect(run.stdout.contains("downloads: 2 downloaded"), "\(run.stdout)")
            #expect(run.stdout.contains("6 extras saved"), "\(run.stdout)")

            // Nothing is fetched again.
            let again = try await podfresh.run(["download", "--quiet"])
            #expect(again.status == 0 && again.stdout.isEmpty && again.stderr.isEmpty, "\(again.stdout)\(again.stderr)")
            #expect(server.requests(to: "/x/e3.vtt").count == 1)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aBrokenExtraNeverFailsItsEpisodeIsSaidWaitsAndIsTriedAgain() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            Self.serve("e1", on: server, seed: 1)
            // The chapters are an error page; the image is missing; the feed's own artwork stands in for none.
            server.setRoute(
                "/x/e1.json",
                TestResponse(
                    headers: [("Content-Type", "text/html")], text: "<!DOCTYPE html><html><body>Error</body></html>"))
            server.setRoute("/x/e1.jpg", TestResponse(status: 404, text: "no"))
            server.serveFeed(
                "/feed.xml", Self.feed([Self.item("e1", "Full episode 1", day: 1, server: server)], server: server))
            try await DownloadCommandTests().subscribe(podfresh, server)
            #expect(try await podfresh.run(["set", "1", "--download", "on", "--extras", "on"]).status == 0)

            let run = try await podfresh.run(["download"])
            #expect(run.status == 0, "an extra's failure does not fail the run: \(run.stderr)")
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Extra Cast/2024-01-01 Full episode 1.mp3", "Extra Cast/2024-01-01 Full episode 1.vtt",
                ])
            #expect(
                run.stderr.contains(
                    "Extra Cast: Full episode 1: chapters not saved: \(server.url("/x/e1.json").absoluteString): not chapters JSON"
                ),
                "\(run.stderr)")
            #expect(
                run.stderr.contains("artwork not saved: \(server.url("/x/e1.jpg").absoluteString): HTTP 404"),
                "\(run.stderr)")
            #expect(run.stderr.contains("`podfresh download --retry` tries it now"))
            #expect(run.stdout.contains("1 downloaded") && run.stdout.contains("2 extras not saved"), "\(run.stdout)")

            // The next run waits, as for a broken link; JSON Lines says nothing was tried.
            let waiting = try await podfresh.run(["download", "--json"])
            #expect(waiting.status == 0)
            #expect(server.requests(to: "/x/e1.json").count == 1 && server.requests(to: "/x/e1.jpg").count == 1)

            // Fixed on the server: --retry tries now, and the files appear; the media is not fetched again.
            server.setRoute(
                "/x/e1.json", TestResponse(headers: [("Content-Type", "application/json")], text: Self.chapters))
            server.setRoute("/x/e1.jpg", TestResponse(headers: [("Content-Type", "image/jpeg")], body: Self.jpeg))
            let retry = try await podfresh.run(["download", "--retry", "--json"])
            #expect(retry.status == 0, "\(retry.stderr)")
            let events = retry.stdoutLines.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(events.filter { $0["event"] as? String == "extra_saved" }.count == 2, "\(retry.stdout)")
            #expect(DownloadCommandTests.files(in: folder).count == 4)
            #expect(server.requests(to: "/m/e1.mp3").count == 1)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func extrasGoWithTheirEpisodeWhenKeepRemovesIt() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            Self.serve("e1", on: server, seed: 1)
            Self.serve("e2", on: server, seed: 2)
            server.serveFeed(
                "/feed.xml",
                Self.feed(
                    [
                        Self.item("e2", "Full episode 2", day: 2, server: server),
                        Self.item("e1", "Full episode 1", day: 1, server: server),
                    ], server: server))
            try await DownloadCommandTests().subscribe(podfresh, server)
            #expect(
                try await podfresh.run(["set", "1", "--download", "on", "--backlog", "all", "--extras", "on"]).status
                    == 0)
            #expect(try await podfresh.run(["download", "--quiet"]).status == 0)
            #expect(DownloadCommandTests.files(in: folder).count == 8)
            // A file of the user's beside them stays.
            let mine = folder.appendingPathComponent("Extra Cast/2024-01-01 Full episode 1.notes.txt")
            try Data("mine".utf8).write(to: mine)

            #expect(try await podfresh.run(["set", "1", "--keep", "1"]).status == 0)
            #expect(try await podfresh.run(["download", "--quiet"]).status == 0)
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Extra Cast/2024-01-01 Full episode 1.notes.txt",
                    "Extra Cast/2024-01-02 Full episode 2.chapters.json", "Extra Cast/2024-01-02 Full episode 2.jpg",
                    "Extra Cast/2024-01-02 Full episode 2.mp3", "Extra Cast/2024-01-02 Full episode 2.vtt",
                ])
        }
    }
}
