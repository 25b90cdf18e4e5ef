import Foundation
import Testing

@testable import FeedParsing

/// A feed that wraps a title in CDATA still writes its special characters as HTML does (`&#8364;`, `&eacute;`): in
/// CDATA libxml2 hands them over as literal text, so one-line text decodes them; escaped text outside CDATA is left
/// as the feed meant it.
struct CDATAEntityTests {
    static func feed(channelTitle: String, itemTitle: String, description: String = "d") throws -> ParsedFeed {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>\(channelTitle)</title>
            <item><guid>1</guid><title>\(itemTitle)</title><description>\(description)</description></item>
            </channel></rss>
            """
        return try FeedParser.parse(Array(xml.utf8))
    }

    @Test func numericAndNamedReferencesInACDATATitleAreDecoded() throws {
        let feed = try Self.feed(
            channelTitle: "<![CDATA[Caf&eacute; &amp; Co]]>", itemTitle: "<![CDATA[Costs 5&#8364; &#x2013; &euro;5]]>")
        #expect(feed.title == "Café & Co")
        #expect(feed.episodes.first?.title == "Costs 5€ – €5")
    }

    @Test func textOutsideCDATAKeepsWhatItsEscapingMeant() throws {
        let feed = try Self.feed(channelTitle: "Writing &amp;#8364; in HTML", itemTitle: "A &lt;b&gt; tag")
        #expect(feed.title == "Writing &#8364; in HTML")
        #expect(feed.episodes.first?.title == "A <b> tag")
    }

    @Test func unknownOrForbiddenReferencesStayAsWritten() throws {
        let feed = try Self.feed(
            channelTitle: "<![CDATA[R&D &bogus; &#0; & more]]>", itemTitle: "<![CDATA[fish &amp chips]]>")
        #expect(feed.title == "R&D &bogus; &#0; & more")
        #expect(feed.episodes.first?.title == "fish &amp chips")
    }

    @Test func showNotesInCDATAStayHTML() throws {
        let feed = try Self.feed(
            channelTitle: "t", itemTitle: "i", description: "<![CDATA[<p>5&#8364; &lt;script&gt;</p>]]>")
        #expect(feed.episodes.first?.description == "<p>5&#8364; &lt;script&gt;</p>")
    }

    @Test func everyLatin1LetterHasItsName() {
        #expect(TextCleaning.decodeEntity("Agrave") == "À")
        #expect(TextCleaning.decodeEntity("times") == "×")
        #expect(TextCleaning.decodeEntity("szlig") == "ß")
        #expect(TextCleaning.decodeEntity("divide") == "÷")
        #expect(TextCleaning.decodeEntity("yuml") == "ÿ")
    }
}
