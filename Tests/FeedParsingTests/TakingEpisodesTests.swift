import FeedParsing
import Foundation
import Testing

/// Taking a long feed's episodes out of the parser as they end (issue #36: a big feed is stored as it is read).
struct TakingEpisodesTests {
    private func parse(_ parser: FeedParser, _ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { try parser.parse($0) }
    }

    @Test func episodesTakenOutAreHandedOnOnceInDocumentOrderAndTheRestComesAtTheEnd() throws {
        let parser = FeedParser()
        try parse(
            parser,
            """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Show</title>
            <item><guid>one</guid></item><item><guid>two</guid></item><item><guid>thr
            """)
        #expect(parser.takeCompletedEpisodes().map(\.id) == ["one", "two"])
        #expect(parser.takeCompletedEpisodes().isEmpty, "nothing is handed on twice")
        try parse(parser, "ee</guid></item><item><guid>four</guid></item></channel></rss>")
        let feed = try parser.finish()
        #expect(feed.episodes.map(\.id) == ["three", "four"])
        #expect(feed.title == "Show")
    }

    @Test func aLaterListingOfAKeyTakenOutIsLeftOutWithTheUsualWarning() throws {
        let parser = FeedParser()
        try parse(
            parser,
            """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Show</title>
            <item><guid>one</guid><title>First</title></item><item><guid>two</guid></item>
            <item><guid>one</guid><title>Again</title></item>
            """)
        #expect(parser.takeCompletedEpisodes().map(\.id) == ["one", "two"])
        try parse(parser, "<item><guid>two</guid></item><item><guid>three</guid></item></channel></rss>")
        let feed = try parser.finish()
        #expect(feed.episodes.map(\.id) == ["three"])
        let shared = feed.warnings.compactMap { warning -> [Int]? in
            if case .sharedEpisodeID(let first, let second, _) = warning.reason { return [first, second] }
            return nil
        }
        #expect(shared == [[1, 3], [2, 4]], "positions count every listing, taken out or not")
    }

    @Test func anItemThatEndedInsideAnOpenOneStaysUntilItCanBePlaced() throws {
        let parser = FeedParser()
        try parse(
            parser,
            """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Show</title>
            <item><guid>one</guid></item><item><guid>outer</guid><item><guid>inner</guid></item>
            """)
        #expect(parser.takeCompletedEpisodes().map(\.id) == ["one"], "inner comes after outer in the document")
        try parse(parser, "</item></channel></rss>")
        #expect(try parser.finish().episodes.map(\.id) == ["outer", "inner"])
    }
}
