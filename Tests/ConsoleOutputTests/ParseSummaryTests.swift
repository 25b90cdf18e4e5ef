import ConsoleOutput
import FeedParsing
import Foundation
import Testing

struct ParseSummaryTests {
    let day: TimeInterval = 86_400
    let start = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14

    func episode(_ title: String, daysAfterStart: Double?, duration: Double? = nil) -> ParsedEpisode {
        ParsedEpisode(
            id: title, title: title, published: daysAfterStart.map { start.addingTimeInterval($0 * day) },
            duration: duration)
    }

    @Test func theFirstLineNamesTheFeedItsFormatAndItsEpisodeCount() {
        let one = ParseSummary(
            feed: ParsedFeed(format: .rss2, title: "Solo", episodes: [episode("a", daysAfterStart: 0)]),
            source: "x.xml", newest: 5)
        #expect(one.lines()[0] == "Solo  [rss2, 1 episode]")
        let none = ParseSummary(feed: ParsedFeed(format: .atom), source: "x.xml", newest: 5)
        #expect(none.lines()[0] == "—  [atom, 0 episodes]", "an untitled feed shows a dash")
        #expect(none.lines()[1] == "  source:   x.xml")
        #expect(none.lines().count == 2, "nothing else when the feed has nothing else")
    }

    @Test func channelFieldsAppearOnlyWhenTheFeedHasThem() {
        let feed = ParsedFeed(
            format: .rss2, title: "Full", link: URL(string: "https://show.example/")!, language: "en",
            author: "Someone", categories: ["Technology", "News"], newFeedURL: URL(string: "https://new.example/feed")!,
            complete: true)
        let lines = ParseSummary(feed: feed, source: "in.xml", newest: 5).lines()
        #expect(lines.contains("  link:     https://show.example/"))
        #expect(lines.contains("  author:   Someone"))
        #expect(lines.contains("  language: en"))
        #expect(lines.contains("  categories: Technology, News"))
        #expect(lines.contains("  moved to: https://new.example/feed (itunes:new-feed-url)"))
        #expect(lines.contains("  complete: no more episodes will be published"))
        #expect(!lines.contains { $0.hasPrefix("  next page:") })
    }

    @Test func aWarningAboutTheWholeDocumentNamesNoLineAndOneAboutAPlaceNamesItsLine() {
        var feed = ParsedFeed(format: .rss2, title: "Show")
        feed.warnings = [
            ParseWarning(line: 0, .controlCharactersRemoved(count: 2)),
            ParseWarning(line: 12, .xml(libxml2Message: "Entity 'nbsp' not defined")),
        ]
        let lines = ParseSummary(feed: feed, source: "s", newest: 5).lines()
        #expect(
            lines.suffix(3) == [
                "  warnings (2):", "    2 control character(s) that XML forbids were removed",
                "    line 12: Entity 'nbsp' not defined",
            ])
    }

    @Test func theNewestEpisodesComeFirstUndatedLastUpToTheLimit() {
        let feed = ParsedFeed(
            format: .rss2, title: "Show",
            episodes: [
                episode("old", daysAfterStart: 0), episode("undated", daysAfterStart: nil),
                episode("newest", daysAfterStart: 2),
                episode("middle", daysAfterStart: 1),
            ])
        let all = ParseSummary(feed: feed, source: "s", newest: 10).lines()
        let listed = all.drop { $0 != "  newest episodes:" }.dropFirst()
        #expect(
            listed.map { $0.split(separator: " ").last.map(String.init) ?? "" } == [
                "newest", "middle", "old", "undated",
            ])
        #expect(listed.first == "    2023-11-16  newest")
        #expect(listed.last == "    no date     undated", "an undated episode keeps the columns aligned")
        let two = ParseSummary(feed: feed, source: "s", newest: 2).lines()
        #expect(two.suffix(2) == ["    2023-11-16  newest", "    2023-11-15  middle"])
    }

    @Test(arguments: [
        (0.0, "0:00"), (61.4, "1:01"), (245, "4:05"), (3599.6, "1:00:00"), (3723, "1:02:03"), (36_000, "10:00:00"),
    ])
    func durationsReadAsAClock(seconds: Double, clock: String) {
        #expect(ParseSummary.clock(seconds) == clock)
    }

    @Test func anEpisodeLineShowsItsDuration() {
        let feed = ParsedFeed(format: .rss2, episodes: [episode("talk", daysAfterStart: 0, duration: 3723)])
        #expect(ParseSummary(feed: feed, source: "s", newest: 1).lines().last == "    2023-11-14  talk  [1:02:03]")
    }

    @Test func textFromTheFeedIsSafeToPrintAndLongTitlesAreCut() {
        let hostile = "Evil \u{1B}]0;title\u{07}\u{1B}[31mred\u{202E}\u{9B}x"
        let feed = ParsedFeed(
            format: .rss2, title: hostile, author: "\u{1B}[2J",
            episodes: [episode(String(repeating: "long ", count: 30), daysAfterStart: 0)],
            warnings: [ParseWarning(line: 3, .xml(libxml2Message: "bad \u{1B}[1mthing"))])
        let summary = ParseSummary(feed: feed, source: "path\u{1B}[0m.xml", newest: 5)
        let text = summary.text
        #expect(
            !text.unicodeScalars.contains {
                ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E
            })
        #expect(summary.lines()[0].hasPrefix("Evil red"))
        let episodeLine = summary.lines().first { $0.hasPrefix("    2023") } ?? ""
        #expect(episodeLine.count == 4 + 10 + 2 + 70 && episodeLine.hasSuffix("…"))
    }

    @Test func warningsAreListedUpToTenThenCounted() {
        let warnings = (1...12).map { ParseWarning(line: $0, .xml(libxml2Message: "problem \($0)")) }
        let lines = ParseSummary(feed: ParsedFeed(format: .rss2, warnings: warnings), source: "s", newest: 5).lines()
        #expect(lines.contains("  warnings (12):"))
        #expect(lines.filter { $0.hasPrefix("    line ") }.count == 10)
        #expect(lines.contains("    line 1: problem 1") && !lines.contains("    line 11: problem 11"))
        #expect(lines.last == "    … and 2 more (see --json)")
        let ten = ParseSummary(
            feed: ParsedFeed(format: .rss2, warnings: Array(warnings.prefix(10))), source: "s", newest: 5
        ).lines()
        #expect(ten.last == "    line 10: problem 10")
    }

    @Test func textIsTheLinesJoined() {
        let summary = ParseSummary(
            feed: ParsedFeed(format: .rss2, title: "T", episodes: [episode("e", daysAfterStart: 0)]), source: "s",
            newest: 5)
        #expect(summary.text == summary.lines().joined(separator: "\n"))
        #expect(!summary.text.hasSuffix("\n"))
    }
}
