import FeedParsing
import Foundation
import Testing

/// The zone a date was written in is kept beside the instant: the scheduler learns a publisher's local time from it.
struct WrittenOffsetTests {
    private func offset(of date: String) throws -> Int? {
        let xml = """
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>T</title>
            <item><guid>a</guid><pubDate>\(date)</pubDate></item></channel></rss>
            """
        let feed = try FeedParser.parse(Array(xml.utf8))
        let episode = try #require(feed.episodes.first)
        #expect(episode.published != nil, "\(date) is a date")
        return episode.publishedOffset
    }

    @Test(arguments: [
        ("Tue, 10 Jun 2025 06:00:00 -0400", -14_400), ("Tue, 10 Jun 2025 06:00:00 +0530", 19_800),
        ("2025-06-10T06:00:00+02:00", 7200), ("2025-06-10T06:00:00-03:00", -10_800),
        ("Tue, 10 Jun 2025 06:00:00 GMT", 0), ("2025-06-10T06:00:00Z", 0),
        ("Tue, 10 Jun 2025 06:00:00 PDT", -25_200), ("Tue, 10 Jun 2025 06:00:00 -0400 (EDT)", -14_400),
    ])
    func aDateKeepsTheOffsetItWasWrittenIn(date: String, expected: Int) throws {
        #expect(try offset(of: date) == expected)
    }

    @Test(arguments: ["2025-06-10", "Tue, 10 Jun 2025 06:00:00"])
    func aDateThatNamesNoZoneHasNone(date: String) throws {
        #expect(try offset(of: date) == nil)
    }
}
