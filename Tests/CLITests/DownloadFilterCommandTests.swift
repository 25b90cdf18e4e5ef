import Foundation
import TestSupport
import Testing

/// End-to-end: a feed's download filters (`podfresh set FEED --include/--exclude/--match/--min-duration`) decide what
/// `download` fetches and which files `--keep` considers, against a real HTTP server on 127.0.0.1.
@Suite(.serialized)
struct DownloadFilterCommandTests {
    /// One episode of a test feed, with a duration and a description.
    struct Item {
        var guid: String
        var title: String
        var day: Int
        var seconds: Int?
        var description = ""
    }

    /// An RSS feed titled `title` whose items' media are at `/m/GUID.mp3` on `server`.
    static func feed(_ title: String, _ items: [Item], server: TestHTTPServer) -> String {
        let entries = items.map { item in
            """
            <item><title>\(item.title)</title><guid>\(item.guid)</guid>
            <description>\(item.description)</description>
            \(item.seconds.map { "<itunes:duration>\($0)</itunes:duration>" } ?? "")
            <pubDate>\(String(format: "%02d", item.day)) Jan 2024 10:00:00 GMT</pubDate>
            <enclosure url="\(server.url("/m/\(item.guid).mp3").absoluteString)" type="audio/mpeg" length="0"/></item>
            """
        }
        return """
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel><title>\(title)</title>
            \(entries.joined(separator: "\n"))
            </channel></rss>
            """
    }

    /// Serves `items`' media and the feed at `/feed.xml`, subscribes and stores its episodes.
    func subscribed(
        _ items: [Item], title: String, server: TestHTTPServer
    ) async throws -> (Podfresh, URL) {
        let (podfresh, folder) = try DownloadCommandTests().podfresh()
        for (index, item) in items.enumerated() {
            server.serveMedia("/m/\(item.guid).mp3", DownloadCommandTests.media(40_000 + index, seed: UInt8(index)))
        }
        server.serveFeed("/feed.xml", Self.feed(title, items, server: server))
        try await DownloadCommandTests().subscribe(podfresh, server)
        return (podfresh, folder)
    }

    static let episodes = [
        Item(guid: "e6", title: "Full episode 6 with guests", day: 6, seconds: 3_600),
        Item(guid: "e5", title: "Full Episode 5 teaser", day: 5, seconds: 90),
        Item(guid: "e4", title: "Trailer for season 2", day: 4, seconds: 60),
        Item(guid: "e3", title: "FULL EPISODE 3 (rerun)", day: 3, seconds: 3_000),
        Item(guid: "e2", title: "Full episode 2", day: 2, seconds: nil),
        Item(guid: "e1", title: "Bonus clip", day: 1, seconds: 900, description: "Cut from the full episode."),
    ]

    @Test(.timeLimit(.minutes(3)))
    func aFilteredFeedDownloadsOnlyTheEpisodesItsFiltersLetThroughAndSaysHowManyItLeftOut() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try await subscribed(Self.episodes, title: "Filter Cast", server: server)
            defer { podfresh.cleanUp() }

            let set = try await podfresh.run([
                "set", "Filter Cast", "--download", "on", "--backlog", "all", "--include", "full episode", "--exclude",
                "rerun",
                "--exclude", "re-?run", "--min-duration", "10m",
            ])
            #expect(set.status == 0, "\(set.stderr)")
            #expect(
                set.stdout.contains(
                    #"filters include "full episode"; exclude "rerun", "re-?run"; matched against title; at least 10m, extras off"#
                ), "\(set.stdout)")

            let shown = try await podfresh.run(["set", "Filter Cast"])
            #expect(
                shown.stdout.hasPrefix("settings of 1 Filter Cast:")
                    && shown.stdout.contains("include \"full episode\""))
            let detail = try await podfresh.run(["list", "Filter Cast"])
            #expect(detail.status == 0, "\(detail.stderr)")
            #expect(detail.stdout.contains("downloads:    on, filters\n"), "\(detail.stdout)")
            #expect(
                detail.stdout.contains(
                    #"filters:      include "full episode"; exclude "rerun", "re-?run"; matched against title; at least 10m"#
                ), "\(detail.stdout)")
            let json = try await podfresh.run(["list", "--json"])
            let feeds = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            let filters = try #require(feeds.first?["filters"] as? [String: Any])
            #expect(filters["include"] as? [String] == ["full episode"])
            #expect(filters["min_duration_seconds"] as? Int == 600)

            let run = try await podfresh.run(["download"])
            #expect(run.status == 0, "\(run.stderr)")
            // e6 (long enough) and e2 (no duration given: kept); not the teaser, the trailer, the rerun or the clip.
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Filter Cast/2024-01-02 Full episode 2.mp3",
                    "Filter Cast/2024-01-06 Full episode 6 with guests.mp3",
                ])
            for left in ["e5", "e4", "e3", "e1"] {
                #expect(server.requests(to: "/m/\(left).mp3").isEmpty, "\(left) is never asked for")
            }
            #expect(
                run.stdout.contains(
                    "filtered   Filter Cast: 4 episodes left out by the feed's filters (2 match no --include, 1 match an --exclude, 1 shorter than --min-duration;"
                ), "\(run.stdout)")
            #expect(run.stdout.contains("downloads: 2 downloaded"), "\(run.stdout)")
            #expect(run.stdout.contains("4 left out by filters"), "\(run.stdout)")

            // JSON Lines says it too, typed.
            let again = try await podfresh.run(["download", "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            let events = again.stdoutLines.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let filtered = try #require(events.first { $0["event"] as? String == "download_filtered" })
            #expect(filtered["count"] as? Int == 4 && filtered["not_included"] as? Int == 2)
            #expect(filtered["excluded"] as? Int == 1 && filtered["too_short"] as? Int == 1)
            let summary = try #require(events.first { $0["event"] as? String == "downloads_completed" })
            #expect(summary["filtered_out"] as? Int == 4 && summary["downloaded"] as? Int == 0)

            // Matched against the description too: the clip whose notes name the full episode passes.
            let description = try await podfresh.run(["set", "1", "--match", "description"])
            #expect(description.status == 0, "\(description.stderr)")
            #expect(try await podfresh.run(["download", "--quiet"]).status == 0)
            #expect(server.requests(to: "/m/e1.mp3").count == 1, "the clip's description matches")
            #expect(server.requests(to: "/m/e4.mp3").isEmpty)

            // Cleared: everything is downloaded.
            let clear = try await podfresh.run(["set", "1", "--clear-filters"])
            #expect(clear.stdout.contains("filters none"), "\(clear.stdout)")
            #expect(try await podfresh.run(["download", "--quiet"]).status == 0)
            #expect(DownloadCommandTests.files(in: folder).count == 6)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aBadPatternOrDurationIsAUsageErrorThatNamesItAndChangesNothing() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch"] + [RefreshCommandTests.demoFeeds[0]]).status == 0)

        let bad = try await podfresh.run(["set", "1", "--include", "full episode", "--exclude", "(trailer"])
        #expect(bad.status == 64)
        #expect(
            bad.stderr.contains(#"--exclude "(trailer" is not a regular expression (expected ')')."#), "\(bad.stderr)")
        let short = try await podfresh.run(["set", "1", "--min-duration", "soon"])
        #expect(short.status == 64)
        #expect(short.stderr.contains(#"--min-duration takes a duration such as 10m"#), "\(short.stderr)")
        let shown = try await podfresh.run(["set", "1"])
        #expect(shown.stdout.contains("filters none, extras off"), "nothing was stored: \(shown.stdout)")
    }

    @Test(.timeLimit(.minutes(3)))
    func keepCountsOnlyTheEpisodesTheFiltersLetThroughAndAFilterNeverDeletesAFile() async throws {
        try await withTestHTTPServer { server in
            let items = [
                Item(guid: "e4", title: "Episode 4", day: 4, seconds: 3_000),
                Item(guid: "e3", title: "Trailer", day: 3, seconds: 3_000),
                Item(guid: "e2", title: "Episode 2", day: 2, seconds: 3_000),
                Item(guid: "e1", title: "Episode 1", day: 1, seconds: 3_000),
            ]
            let (podfresh, folder) = try await subscribed(items, title: "Keep Cast", server: server)
            defer { podfresh.cleanUp() }
            #expect(try await podfresh.run(["set", "1", "--download", "on", "--backlog", "all"]).status == 0)
            #expect(try await podfresh.run(["download", "--quiet"]).status == 0)
            #expect(DownloadCommandTests.files(in: folder).count == 4)

            // A filter added later, and keep 2: the trailer's file is neither counted nor deleted; of the episodes
            // the filter lets through, the newest two stay.
            #expect(try await podfresh.run(["set", "1", "--exclude", "trailer", "--keep", "2"]).status == 0)
            let run = try await podfresh.run(["download"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Keep Cast/2024-01-02 Episode 2.mp3", "Keep Cast/2024-01-03 Trailer.mp3",
                    "Keep Cast/2024-01-04 Episode 4.mp3",
                ], "\(run.stdout)")
            #expect(run.stdout.contains("removed    Keep Cast: \(folder.path)/Keep Cast/2024-01-01 Episode 1.mp3"))
        }
    }
}
