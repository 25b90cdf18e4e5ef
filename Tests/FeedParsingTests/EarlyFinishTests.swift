import FeedParsing
import Foundation
import Testing

/// Stopping a parse once the caller has read enough (issue #36's short reads).
struct EarlyFinishTests {
    private let document = """
        <?xml version="1.0"?><rss version="2.0"><channel><title>Show</title>
        <item><guid>one</guid><title>One</title></item>
        <item><guid>two</guid><title>Two</title></item>
        <item><guid>three</guid><title>Thr
        """

    @Test func theEpisodesReadToTheirEndAreSeenBetweenPushes() throws {
        let parser = FeedParser()
        try Array(document.utf8).withUnsafeBytes { try parser.parse($0) }
        #expect(parser.completedEpisodeCount == 2)
        #expect(parser.completedEpisode(at: 1).id == "two")
        #expect(parser.episodesEndedInOrder)
    }

    @Test func finishingEarlyKeepsTheChannelAndTheWholeEpisodesAndLeavesOutTheOpenOne() throws {
        let parser = FeedParser()
        try Array(document.utf8).withUnsafeBytes { try parser.parse($0) }
        let feed = try parser.finishEarly()
        #expect(feed.title == "Show")
        #expect(feed.episodes.map(\.id) == ["one", "two"], "the open item's fields are incomplete: left out")
        #expect(feed.warnings.isEmpty, "nothing is said of what was not read")
    }

    @Test func finishingAsUsualKeepsTheOpenItemOfATruncatedDocument() throws {
        let parser = FeedParser()
        try Array(document.utf8).withUnsafeBytes { try parser.parse($0) }
        #expect(try parser.finish().episodes.count == 3)
    }
}
