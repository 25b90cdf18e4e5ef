import Foundation
import TestSupport
import Testing

/// What a user sees in an 80-column terminal, as tmux draws it: no stale progress line above a refresh, `add`'s lines
/// within the width, the last episode line apart from the "showing N of M" hint. Skipped, saying why, without tmux.
@Suite(.serialized, TmuxScreen.needsTmux)
struct TmuxScreenTests {
    /// A feed titled at length, with episodes titled at length, in the test's folder.
    static func longFeed(in podfresh: Podfresh) throws -> String {
        let path = podfresh.directory.appendingPathComponent("long.xml").path
        let items = (1...6).map { day in
            """
            <item><title>Episode \(day): a title long enough to be cut at eighty columns, and then some more words</title>
            <guid>long-\(day)</guid><pubDate>0\(day) Jan 2024 10:00:00 GMT</pubDate>
            <enclosure url="https://media.example/long-\(day).mp3" type="audio/mpeg" length="1"/></item>
            """
        }
        let feed = """
            <?xml version="1.0"?><rss version="2.0"><channel>
            <title>A Show Whose Title Alone Takes Up Most Of An Eighty Column Terminal Line</title>
            \(items.joined(separator: "\n"))
            </channel></rss>
            """
        try Data(feed.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// No line of `lines` is wider than 80 columns (tmux wrapped it otherwise; `-J` joined it again).
    static func expectFits(_ lines: [String], _ command: String) {
        let wide = lines.filter { TerminalSupport.columns($0) > 80 }
        #expect(wide.isEmpty, "\(command) at 80 columns:\n\(lines.joined(separator: "\n"))")
    }

    @Test(.timeLimit(.minutes(3)))
    func aRefreshAddAndEpisodesFitEightyColumnsWithNothingStaleLeftOnScreen() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let long = try Self.longFeed(in: podfresh)

        // `add`: its lines fit.
        let add = try await TmuxScreen.run(podfresh, ["add", "--backlog", "6", long])
        #expect(add.status == 0, "\(add.lines.joined(separator: "\n"))")
        #expect(add.lines.contains { $0.contains("Episode 6") }, "\(add.lines.joined(separator: "\n"))")
        Self.expectFits(add.lines, "add")

        // A refresh: its progress line is gone once it ends; every line fits.
        #expect(try await podfresh.run(["add", "--no-fetch"] + RefreshCommandTests.demoFeeds).status == 0)
        let refresh = try await TmuxScreen.run(podfresh, ["refresh"])
        let screen = refresh.lines.joined(separator: "\n")
        #expect(refresh.status == 0, "\(screen)")
        #expect(
            !refresh.lines.contains { $0.hasPrefix("[") && $0.contains(" new") }, "a stale progress line: \(screen)")
        #expect(refresh.lines.contains { $0.hasPrefix("  + ") }, "\(screen)")
        Self.expectFits(refresh.lines, "refresh")

        // `episodes` with more than it shows: the hint on a line of its own, after the last episode's.
        let episodes = try await TmuxScreen.run(podfresh, ["episodes", "--limit", "4"])
        let shown = episodes.lines.joined(separator: "\n")
        #expect(episodes.status == 0, "\(shown)")
        let hint = try #require(episodes.lines.firstIndex { $0.contains("showing 4 of ") }, "\(shown)")
        #expect(episodes.lines[hint].hasPrefix("podfresh: showing 4 of "), "\(shown)")
        #expect(episodes.lines[..<hint].filter { $0.hasPrefix("20") }.count == 4, "\(shown)")
        Self.expectFits(episodes.lines, "episodes")
    }
}
