import FeedParsing
import Foundation
import Testing

/// `podcast:liveItem`: read as an episode marked live, with its status, start, end, enclosure and content links.
struct LiveItemTests {
    static let feed = """
        <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel>
        <title>Live Cast</title>
        <podcast:liveItem status="LIVE" start="2024-01-05T18:00:00.000-05:00" end="2024-01-05T19:00:00Z">
          <title>Q&amp;A</title><guid>live-1</guid>
          <enclosure url="/stream.mp3" type="audio/mpeg" length="0"/>
          <podcast:contentLink href="https://video.example/live-1">Watch on Video</podcast:contentLink>
        </podcast:liveItem>
        <podcast:liveItem><title>Someday</title><guid>live-2</guid></podcast:liveItem>
        <item><title>Episode 1</title><guid>e1</guid><enclosure url="https://cdn.example/e1.mp3" type="audio/mpeg"/></item>
        </channel></rss>
        """

    @Test func aLiveItemIsAnEpisodeWithItsStatusTimesEnclosureAndContentLinks() throws {
        let parsed = try parse(Self.feed)
        #expect(parsed.episodes.map(\.title) == ["Q&A", "Someday", "Episode 1"])
        let live = try #require(parsed.episodes[0].live)
        #expect(live.status == .live)
        #expect(live.start == Date(timeIntervalSince1970: 1_704_495_600))  // 23:00Z
        #expect(live.end == Date(timeIntervalSince1970: 1_704_481_200))
        #expect(live.contentLinks.map(\.hrefString) == ["https://video.example/live-1"])
        #expect(live.contentLinks.first?.text == "Watch on Video")
        #expect(parsed.episodes[0].guid == "live-1")
        #expect(parsed.episodes[0].enclosures.map(\.urlString) == ["https://feeds.example.com/stream.mp3"])
        #expect(parsed.episodes[1].live == LiveItem(status: .pending), "no status: pending")
        #expect(parsed.episodes[2].live == nil, "an ordinary item")
    }

    @Test func aLiveItemInsideAnItemIsNotAnotherEpisode() throws {
        let parsed = try parse(
            """
            <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>T</title>
            <item><title>E</title><guid>e</guid><podcast:liveItem status="live"><title>X</title></podcast:liveItem></item>
            </channel></rss>
            """)
        #expect(parsed.episodes.map(\.title) == ["E"])
        #expect(parsed.episodes[0].live == nil)
    }
}
