import FeedParsing
import Foundation
import Testing

/// Every real feed in `../shared/corpus/real`: no crash, the manifest's item count, quirks handled, chunk-invariant.
struct CorpusTests {
    @Test func theCorpusIsPresentOrSkippedWithAReason() {
        if TestFiles.corpus == nil {
            print("skipping the real-feed corpus sweep: ../shared/corpus/real is absent")
        } else {
            #expect(TestFiles.corpusFiles.count > 100)
        }
    }

    @Test(arguments: TestFiles.corpusFiles)
    func everyRealFeedParsesWithTheManifestsItemCount(file: TestFiles.CorpusFile) throws {
        let bytes = try TestFiles.corpusBytes(file)
        let base = URL(string: "https://feeds.example.com/\(file.name)")
        if file.quirks.contains("OPML") {
            #expect(throws: FeedParseError.self) { _ = try FeedParser.parse(bytes, baseURL: base) }
            return
        }
        let feed = try FeedParser.parse(bytes, baseURL: base)
        // The manifest files RSS 0.9x as "other"; podfresh reads them as RSS.
        #expect(feed.format.rawValue == (file.format == "other" ? "rss2" : file.format), "format of \(file.name)")
        if file.quirks.contains("not well-formed") {
            #expect(feed.episodes.count >= min(1, file.items), "a broken feed still yields its good items")
            #expect(!feed.warnings.isEmpty, "a recovered parse says so")
        } else {
            // The manifest counts `<item>`s; a `podcast:liveItem` is read as an episode too, marked live.
            #expect(feed.episodes.filter { $0.live == nil }.count == file.items, "items in \(file.name)")
        }
        #expect(feed.title != nil || file.quirks.contains("title-less"), "title of \(file.name)")
        for episode in feed.episodes {
            for text in [episode.title, episode.description, episode.summary].compactMap({ $0 }) {
                #expect(
                    !text.unicodeScalars.contains {
                        $0.value < 0x09 || (0x0E..<0x20).contains($0.value) || (0x7F...0x9F).contains($0.value)
                    })
            }
            for enclosure in episode.enclosures {
                #expect(["http", "https"].contains(enclosure.url.scheme ?? ""))
                #expect(!enclosure.url.absoluteString.contains("&#38;"))
            }
        }
    }

    @Test(arguments: TestFiles.corpusFiles.filter { !$0.quirks.contains("OPML") })
    func realFeedsParseTheSameWhateverTheChunking(file: TestFiles.CorpusFile) throws {
        let bytes = try TestFiles.corpusBytes(file)
        let whole = try parseInChunks(bytes, size: .max)
        var sizes = [7, 4096]
        if bytes.count < 100_000 { sizes.append(1) }
        for size in sizes {
            let chunked = try parseInChunks(bytes, size: size)
            #expect(chunked == whole, "\(file.name) split into \(size)-byte chunks")
        }
    }
}
