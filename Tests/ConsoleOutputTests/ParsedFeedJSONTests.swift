import ConsoleOutput
import FeedParsing
import Foundation
import Testing

/// The `podfresh parse --json` document: its schema lives in ConsoleOutput.
struct ParsedFeedJSONTests {
    /// A parser fixture's bytes (they live with the parser's tests).
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FeedParsingTests/Fixtures/" + name)
        return Array(try Data(contentsOf: url))
    }

    @Test func theJSONDocumentHasEveryKeyAndParsesBack() throws {
        let feed = try FeedParser.parse(try Self.fixture("rss2-full.xml"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(feed.jsonDocument().utf8)) as? [String: Any])
        #expect(
            object.keys.sorted() == [
                "author", "categories", "complete", "description", "episodes", "explicit", "format", "funding", "image",
                "language",
                "license", "link", "locations", "locked", "medium", "new_feed_url", "next_page", "podcast_guid",
                "podroll", "title",
                "trailers", "txt", "type", "update_frequency", "value", "warnings",
            ])
        let episode = try #require((object["episodes"] as? [[String: Any]])?.first)
        #expect(
            episode.keys.sorted() == [
                "alternate_enclosures", "chapters", "chosen_enclosure", "description", "duration", "enclosures",
                "episode",
                "episode_type",
                "explicit",
                "guid", "id", "image", "license", "link", "locations", "persons", "published", "season",
                "simple_chapters",
                "soundbites", "summary", "title", "transcripts", "txt", "value",
            ])
        #expect(episode["published"] as? String == "2024-11-12T05:00:00Z")
        #expect(episode["duration"] as? Int == 3723)
        #expect(feed.jsonDocument().hasPrefix("{\"format\":\"rss2\",\"title\":\"Full Show\""))
    }

    @Test func theJSONDocumentCarriesTheNewKeys() throws {
        let feed = try FeedParser.parse(try Self.fixture("podcast-namespace-more.xml"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(feed.jsonDocument().utf8)) as? [String: Any])
        #expect((object["update_frequency"] as? [String: Any])?["dtstart"] as? String == "2023-08-28T00:00:00Z")
        #expect(
            (object["podroll"] as? [[String: Any]])?.first?["feed_url"] as? String
                == "https://feeds.example.org/other.xml")
        #expect(
            ((object["value"] as? [[String: Any]])?.first?["recipients"] as? [[String: Any]])?.last?["custom_key"]
                as? String == "696969")
        #expect((object["trailers"] as? [[String: Any]])?.first?["published"] as? String == "2021-04-01T13:00:00Z")
        let episode = try #require((object["episodes"] as? [[String: Any]])?.first)
        let alternate = try #require((episode["alternate_enclosures"] as? [[String: Any]])?.first)
        #expect(
            (alternate["sources"] as? [[String: Any]])?.map { $0["uri"] as? String } == [
                "https://cdn.example.com/p1.opus", "https://cdn.example.com/p1.torrent",
            ])
        #expect((episode["simple_chapters"] as? [[String: Any]])?.map { $0["start"] as? Double } == [0, 90.5, 3723])
        #expect((episode["soundbites"] as? [[String: Any]])?.first?["start"] as? Int == 73)
        // The keys that were there before keep their order: the new ones come after them.
        let document = feed.jsonDocument()
        #expect(document.range(of: "\"next_page\"")!.lowerBound < document.range(of: "\"medium\"")!.lowerBound)
        #expect(document.range(of: "\"persons\"")!.lowerBound < document.range(of: "\"simple_chapters\"")!.lowerBound)
    }

    @Test func theChosenEnclosureSaysWhichWhereAndWhy() throws {
        let feed = try FeedParser.parse(try Self.fixture("enclosure-choice.xml"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(feed.jsonDocument().utf8)) as? [String: Any])
        let episodes = try #require(object["episodes"] as? [[String: Any]])
        let first = try #require(episodes.first?["chosen_enclosure"] as? [String: Any])
        #expect(first["url"] as? String == "https://cdn.example.com/1.mp3")
        #expect(first["from"] as? String == "enclosures[1]")
        #expect(first["kind"] as? String == "audio")
        #expect(first["why"] as? String == "the first audio file (by its type audio/mpeg)")
        let passed = try #require((first["passed_over"] as? [[String: Any]])?.first)
        #expect(passed["url"] as? String == "https://cdn.example.com/1.mp4")
        #expect(passed["why"] as? String == "audio is preferred to video, and either to a file of unknown kind")
        let alternate = try #require(episodes[4]["chosen_enclosure"] as? [String: Any])
        #expect(alternate["from"] as? String == "alternate_enclosures[0].sources[0]")
        #expect(episodes[5]["chosen_enclosure"] is NSNull, "an image is never the episode")
    }
}
