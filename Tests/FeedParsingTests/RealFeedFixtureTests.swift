import FeedParsing
import Foundation
import Testing

/// What one real feed of `Fixtures/real` parses to (the files and their licences: `Fixtures/real/SOURCES.tsv`).
struct RealFeed: Sendable, CustomTestStringConvertible {
    var file: String
    var format: String
    var title: String
    var episodes: Int
    /// The first episode listed: its identity key, title, duration in seconds and first enclosure.
    var firstKey: String
    var firstTitle: String
    var firstDuration: Double?
    var firstEnclosure: String?
    /// The first episode's publication date, in Unix seconds.
    var firstPublished: Double?
    /// Whether the parse recovered from a broken document or noted something it left out.
    var warns: Bool = false

    var testDescription: String { file }
}

/// A small slice of the real corpus, kept in the repository (MIT, Apache-2.0 and CC0 sources) so that a fresh clone
/// tests real-world parsing without `../shared`.
let realFeeds: [RealFeed] = [
    RealFeed(
        file: "feed-rs__rss_2.0_spreaker.xml", format: "rss2", title: "Lwowska Fala | Radio Katowice", episodes: 1,
        firstKey: "https://api.spreaker.com/episode/46395247",
        firstTitle: "Lwowska Fala odc. 78 Wrzesień 1939 | Radio Katowice", firstDuration: 3079,
        firstEnclosure: "https://api.spreaker.com/download/episode/46395247/09_05_dopo_8_10_lwowska_fala.mp3",
        firstPublished: 1_630_915_891),
    RealFeed(
        // windows-1251 declared: Cyrillic text decoded; enclosures are images, and no item has a guid.
        file: "node-feedparser__iconv.xml", format: "rss2", title: "Новости Оренбурга и области / Раздел Новости",
        episodes: 10, firstKey: "http://www.oren.ru/upload/iblock/be8/stroitelstvo_krany.jpg",
        firstTitle: "В Бузулуке главные стройплощадки – детсад и Ледовый дворец", firstDuration: nil,
        firstEnclosure: "http://www.oren.ru/upload/iblock/be8/stroitelstvo_krany.jpg", firstPublished: nil),
    RealFeed(
        file: "node-podcast-parser__apple-example.xml", format: "rss2", title: "All About Everything", episodes: 3,
        firstKey: "http://example.com/podcasts/archive/aae20140615.m4a", firstTitle: "Shake Shake Shake Your Spices",
        firstDuration: 424, firstEnclosure: "http://example.com/podcasts/everything/AllAboutEverythingEpisode3.m4a",
        firstPublished: 1_402_858_800),
    RealFeed(
        file: "pickup__atom-podlove.xml", format: "atom", title: "Podlove Podcast", episodes: 1,
        firstKey: "urn:uuid:3241ace2-ca21-dd12-2341-1412ce31fad2", firstTitle: "Fiat Lux", firstDuration: nil,
        firstEnclosure: "http://podlove.org/files/fiatlux.mp3", firstPublished: 1_332_804_319),
    RealFeed(
        file: "podcast-namespace__example.xml", format: "rss2", title: "Podcasting 2.0 Namespace Example",
        episodes: 3, firstKey: "https://example.com/ep0003", firstTitle: "Episode 3 - The Future", firstDuration: nil,
        firstEnclosure: "https://example.com/file-03.mp3", firstPublished: 1_602_217_838, warns: true),
    RealFeed(
        // itunes:duration with fractional seconds in the second episode.
        file: "rome__rsr.xml", format: "rss2", title: "La Capsule multimédia - La 1ère - RSR", episodes: 15,
        firstKey: "http://podcast.rsr.ch/media/capsule/20061211-la-wii.mp3", firstTitle: "La Wii", firstDuration: 289,
        firstEnclosure: "http://podcast.rsr.ch/media/capsule/20061211-la-wii.mp3", firstPublished: 1_165_818_000),
    RealFeed(
        // Not well-formed (an XML declaration not at the start): recovered, with a warning.
        file: "rss-parser-kt__feed-test-malformed.xml", format: "rss2", title: "Android Authority", episodes: 1,
        firstKey: "https://www.androidauthority.com/?p=986823",
        firstTitle: "Japan’s plans for 5G include 10 billion 14-digit phone numbers", firstDuration: nil,
        firstEnclosure: nil, firstPublished: 1_557_953_282, warns: true),
]

/// Real feeds from the repository's own fixtures: what each parses to, whole and in chunks.
struct RealFeedFixtureTests {
    @Test func everyRealFixtureIsListedWithWhatItParsesTo() throws {
        let folder = try #require(Bundle.module.url(forResource: "Fixtures/real", withExtension: nil))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".xml") }

        #expect(files.sorted() == realFeeds.map(\.file).sorted())
    }

    @Test(arguments: realFeeds)
    func aRealFeedParsesToItsKnownShape(_ expected: RealFeed) throws {
        let bytes = try TestFiles.fixture("real/" + expected.file)

        let feed = try FeedParser.parse(bytes, baseURL: URL(string: "https://feeds.example.com/\(expected.file)"))

        #expect(feed.format.rawValue == expected.format)
        #expect(feed.title == expected.title)
        // Its `<item>`s; a `podcast:liveItem` is read as an episode too, marked live, and left out here.
        let items = feed.episodes.filter { $0.live == nil }
        #expect(items.count == expected.episodes)
        #expect(feed.warnings.isEmpty == !expected.warns, "\(feed.warnings)")
        let first = try #require(items.first)
        #expect(first.id == expected.firstKey)
        #expect(first.title == expected.firstTitle)
        #expect(first.duration == expected.firstDuration)
        #expect(first.enclosures.first?.url.absoluteString == expected.firstEnclosure)
        #expect(first.published?.timeIntervalSince1970 == expected.firstPublished)
    }

    @Test(arguments: realFeeds)
    func aRealFeedParsesTheSameInChunks(_ expected: RealFeed) throws {
        let bytes = try TestFiles.fixture("real/" + expected.file)
        let whole = try parseInChunks(bytes, size: .max)

        for size in [1, 7, 4096] {
            #expect(try parseInChunks(bytes, size: size) == whole, "\(size)-byte chunks")
        }
    }
}
