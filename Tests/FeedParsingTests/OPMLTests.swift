import FeedParsing
import Foundation
import Testing

struct OPMLTests {
    static let realOPML: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.deletingLastPathComponent().appendingPathComponent(
            "shared/corpus/real/picofeed__subscriptionList.opml")
    }()

    @Test(.enabled(if: FileManager.default.fileExists(atPath: realOPML.path), "../shared/corpus/real is absent"))
    func aRealSubscriptionListYieldsEveryFeed() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.realOPML.path))
        let outlines = try OPML.parse(Array(data))
        #expect(outlines.count == 14)
        #expect(outlines.allSatisfy { $0.xmlURL?.scheme?.hasPrefix("http") == true })
        #expect(outlines.allSatisfy { $0.title?.isEmpty == false })
    }

    @Test func nestedOutlinesAreFlattenedAndAttributeCaseIgnored() throws {
        let text = """
            <?xml version="1.0"?>
            <opml version="1.0"><head><title>x</title></head><body>
              <outline text="Folder">
                <outline text="One" xmlUrl="https://a.example/feed?x=1&amp;y=2" htmlUrl="https://a.example/"/>
                <outline text="Folder 2"><outline title="Two" XMLURL="https://b.example/rss"/></outline>
              </outline>
              <outline text="no feed here"/>
            </body></opml>
            """
        let outlines = try OPML.parse(Array(text.utf8))
        #expect(outlines.map(\.title) == ["One", "Two"])
        #expect(outlines.first?.xmlURL?.absoluteString == "https://a.example/feed?x=1&y=2")
        #expect(outlines.first?.htmlURL?.absoluteString == "https://a.example/")
    }

    @Test func aWrittenDocumentReadsBackTheSame() throws {
        let outlines = [
            OPMLOutline(
                title: "Tom & Jerry <live> \"quoted\"", xmlURL: URL(string: "https://a.example/f?a=1&b=2"), htmlURL: nil
            ),
            OPMLOutline(
                title: nil, xmlURL: URL(string: "file:///tmp/local.xml"), htmlURL: URL(string: "https://c.example/")),
        ]
        let back = try OPML.parse(Array(OPML.document(title: "mine", outlines: outlines).utf8))
        #expect(back.map(\.xmlURL) == outlines.map(\.xmlURL))
        #expect(back[0].title == "Tom & Jerry <live> \"quoted\"")
        #expect(back[1].title == "file:///tmp/local.xml")
        #expect(back[1].htmlURL == outlines[1].htmlURL)
    }

    @Test func theNameIsTextAsOPML2RequiresWithTitleAsTheFallback() throws {
        let text = """
            <opml version="2.0"><body>
              <outline text="The Show" title="the-show (exported by some app)" xmlUrl="https://a.example/feed"/>
              <outline title="Only a title" xmlUrl="https://b.example/feed"/>
              <outline text="  " title="Blank text" xmlUrl="https://c.example/feed"/>
              <outline text="" xmlUrl="https://d.example/feed"/>
            </body></opml>
            """
        #expect(try OPML.parse(Array(text.utf8)).map(\.title) == ["The Show", "Only a title", "Blank text", nil])
    }

    @Test func aFeedIsNotAnOPMLFile() {
        #expect(throws: FeedParseError.self) { try OPML.parse(Array("<rss version=\"2.0\"><channel/></rss>".utf8)) }
        #expect(throws: FeedParseError.self) { try OPML.parse(Array("{\"json\": true}".utf8)) }
        #expect(throws: FeedParseError.self) { try OPML.parse([]) }
    }
}
