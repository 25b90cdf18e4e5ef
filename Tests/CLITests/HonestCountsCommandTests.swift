import Foundation
import Testing

/// What `refresh`, `list` and `status` say happened: nothing due and how to check anyway, "updated" only where
/// something was stored, a document cut off named as such.
@Suite(.serialized)
struct HonestCountsCommandTests {
    static let demoFeeds = RefreshCommandTests.demoFeeds

    func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func nothingDueNamesHowToCheckAnywayAndAnUnchangedRunCountsNothingUpdated() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch"] + Self.demoFeeds).status == 0)
        let first = try await podfresh.run(["refresh"])
        #expect(first.stdoutLines.last?.hasPrefix("3 feeds: 3 updated;") == true, "\(first.stdout)")

        let nothing = try await podfresh.run(["refresh"])
        #expect(nothing.status == 0)
        let line = try #require(nothing.stdoutLines.last)
        #expect(line.hasPrefix("nothing due: the next feed is due at "), "\(line)")
        #expect(line.contains("to check anyway: `podfresh refresh --all`, or name a feed"), "\(line)")

        // Every feed fetched again, read and merged whole, nothing in them changed: none of them is "updated".
        let forced = try await podfresh.run(["refresh", "--force", "--full"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdoutLines.last?.hasPrefix("3 feeds: 3 unchanged; 0 new episodes") == true, "\(forced.stdout)")
        #expect(!forced.stdout.contains("updated"), "\(forced.stdout)")
        let json = try jsonLines(try await podfresh.run(["refresh", "--force", "--full", "--json"]).stdout)
        let summary = try #require(json.last { $0["event"] as? String == "batch_completed" })
        #expect(summary["changed"] as? Int == 0)
        #expect(summary["unchanged"] as? Int == 3)
        #expect(summary["read_short"] is Int)
        #expect(summary["updated"] as? Int == 3, "the raw count of merged bodies stays")
        let feeds = json.filter { $0["event"] as? String == "feed_refreshed" }
        #expect(feeds.count == 3)
        #expect(feeds.allSatisfy { $0["stored_changes"] as? Bool == false }, "\(feeds)")
    }

    @Test(.timeLimit(.minutes(2)))
    func aDocumentThatEndsEarlyIsReportedAndWhatCameBeforeIsKept() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let path = podfresh.directory.appendingPathComponent("cut.xml")
        let document = """
            <?xml version="1.0"?>
            <rss version="2.0"><channel><title>Cut Off</title>
            <item><title>Before the break</title><guid>one</guid></item>
            <item><title>Half an ep
            """
        try Data(document.utf8).write(to: path)
        let add = try await podfresh.run(["add", path.path])
        #expect(add.status == 0, "\(add.stderr)")

        let list = try await podfresh.run(["list"])
        #expect(list.stdout.contains("ended early"), "\(list.stdout)")
        #expect(!list.stdout.contains(" ok"), "\(list.stdout)")
        let listJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(try await podfresh.run(["list", "--json"]).stdout.utf8))
                as? [[String: Any]])
        #expect(listJSON.first?["ended_early"] as? Bool == true)
        let status = try await podfresh.run(["status"])
        #expect(status.stdout.contains("ended early  1 Cut Off: its last document breaks off"), "\(status.stdout)")

        let refresh = try await podfresh.run(["refresh", "--force", "--full"])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(
            refresh.stdout.contains("warning: the document ends early, before its closing </rss>"), "\(refresh.stdout)")
        #expect(refresh.stdoutLines.last?.contains("1 ended early (cut off)") == true, "\(refresh.stdout)")
        let json = try jsonLines(try await podfresh.run(["refresh", "--force", "--full", "--json"]).stdout)
        let feed = try #require(json.first { $0["event"] as? String == "feed_refreshed" })
        #expect(feed["ended_early"] as? Bool == true)

        // What came before the break is stored.
        let episodes = try await podfresh.run(["episodes", "--json"])
        #expect(episodes.stdout.contains("Before the break"), "\(episodes.stdout)")

        // The whole document again: ok once more.
        try Data((document + "isode</title><guid>two</guid></item></channel></rss>\n").utf8).write(to: path)
        #expect(try await podfresh.run(["refresh", "--force", "--full"]).status == 0)
        let after = try await podfresh.run(["list"])
        #expect(!after.stdout.contains("ended early"), "\(after.stdout)")
    }

    /// `episodes` in a pipe (and so in a file, and with `--wide`) prints every feed title whole.
    @Test(.timeLimit(.minutes(2)))
    func episodesInAPipeGiveWholeFeedTitles() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let title = "Machine Learning Street Talk With A Title Longer Than Thirty"
        let path = podfresh.directory.appendingPathComponent("long.xml")
        try Data(
            """
            <rss version="2.0"><channel><title>\(title)</title>
            <item><title>Episode one</title><guid>one</guid><pubDate>Tue, 12 Nov 2024 05:00:00 GMT</pubDate></item>
            </channel></rss>
            """.utf8
        ).write(to: path)
        #expect(try await podfresh.run(["add", path.path]).status == 0)
        // `episodes FEED` works as `list FEED` does.
        for arguments in [["episodes"], ["episodes", "--wide"], ["episodes", "Street Talk"], ["episodes", "1"]] {
            let episodes = try await podfresh.run(arguments)
            // The add's check announced it: new.
            #expect(
                episodes.stdoutLines == ["2024-11-12  \(title): Episode one  [new]"], "\(arguments): \(episodes.stdout)"
            )
        }
        let none = try await podfresh.run(["episodes", "no such feed"])
        #expect(none.status == 64, "\(none.stderr)")
        #expect(none.stderr.contains("no subscription matches"), "\(none.stderr)")
    }
}
