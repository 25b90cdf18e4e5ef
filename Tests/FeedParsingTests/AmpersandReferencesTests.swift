import Foundation
import Testing

@testable import FeedParsing

/// libxml2 (without entity substitution) hands `&amp;` in attributes over as `&#38;`; ``AmpersandReferences`` undoes
/// it once, for feed attributes, URLs and OPML alike.
struct AmpersandReferencesTests {
    /// What libxml2 does to an attribute value: every `&` of the decoded text arrives as `&#38;`.
    static func asLibXML2HandsItOver(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "&" { out.append(contentsOf: "&#38;".unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }

    static func undoBytes(_ text: String) -> String {
        Array(text.utf8).withUnsafeBufferPointer { AmpersandReferences.undo($0) }
    }

    @Test func everyReferenceIsUndoneOnceFromTheLeft() {
        let text = Self.asLibXML2HandsItOver("a=1&b=2&&c=&amp;&#38;")
        #expect(text != "a=1&b=2&&c=&amp;&#38;")
        #expect(AmpersandReferences.undo(text) == "a=1&b=2&&c=&amp;&#38;")
        #expect(Self.undoBytes(text) == "a=1&b=2&&c=&amp;&#38;")
    }

    @Test func whatLibXML2HandsOverComesBackExactlyAndBothFormsAgree() {
        let pieces = ["&", "#", "38", ";", "a", " ", "é", "\u{301}", "\u{37E}", "&#38;", "&#38", "東", "🎙️", "%26"]
        var generator = SplitMix(seed: 38)
        for _ in 0..<5_000 {
            var original = ""
            for _ in 0..<Int(generator.next() % 9) { original += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let handedOver = Self.asLibXML2HandsItOver(original)
            #expect(AmpersandReferences.undo(handedOver) == original, "\(handedOver.debugDescription)")
            #expect(Self.undoBytes(handedOver) == original, "\(handedOver.debugDescription)")
            #expect(AmpersandReferences.undo(original) == Self.undoBytes(original), "\(original.debugDescription)")
        }
    }

    @Test func textWithoutAReferenceIsReturnedAsIs() {
        for text in ["", "plain", "a & b", "&#39;", "&#38", "&#3 8;", "&amp;"] {
            #expect(AmpersandReferences.undo(text) == text)
            #expect(Self.undoBytes(text) == text)
        }
    }

    @Test func aReferenceBeforeACombiningMarkIsUndoneToo() {
        // Byte by byte, not by grapheme: `&#38;` followed by U+0301 is still libxml2's `&`.
        #expect(AmpersandReferences.undo("Rock &#38;\u{301} Roll") == "Rock &\u{301} Roll")
    }

    @Test func feedAttributesAndURLsArriveWithTheirAmpersands() throws {
        let feed = try parse(
            """
            <?xml version="1.0"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel><title>Amps</title>
            <itunes:category text="Kids &amp; Family"/>
            <itunes:image href="https://cdn.example.com/art.jpg?w=1&amp;h=2"/>
            <item><guid>one</guid><title>One</title>
            <enclosure url="https://cdn.example.com/one.mp3?a=1&amp;b=2&amp;amp;c" length="1" type="audio/mpeg"/>
            </item></channel></rss>
            """)
        #expect(feed.categories == ["Kids & Family"])
        #expect(feed.image?.absoluteString == "https://cdn.example.com/art.jpg?w=1&h=2")
        #expect(feed.episodes.first?.enclosures.map(\.urlString) == ["https://cdn.example.com/one.mp3?a=1&b=2&amp;c"])
    }

    @Test func opmlOutlinesArriveWithTheirAmpersands() throws {
        let text = """
            <?xml version="1.0"?>
            <opml version="2.0"><head><title>x</title></head><body>
            <outline text="Tom &amp; Jerry &amp;amp; co" xmlUrl="https://a.example/f?x=1&amp;y=2"/>
            </body></opml>
            """
        let outlines = try OPML.parse(Array(text.utf8))
        #expect(outlines.map(\.title) == ["Tom & Jerry &amp; co"])
        #expect(outlines.map(\.xmlURL?.absoluteString) == ["https://a.example/f?x=1&y=2"])
    }
}
