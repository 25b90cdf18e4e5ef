import ConsoleOutput
import FeedParsing
import Foundation
import Testing

/// A document that is not a usable feed carries facts (what it is, its root, libxml2's message, the line);
/// ConsoleOutput alone words them. These pin the wording of every reason.
struct FeedParseErrorTextTests {
    static let wordings: [(FeedParseError.Reason, String)] = [
        (.empty, "the document is empty"),
        (.json, "the document is JSON, not an XML feed"),
        (.binary, "the document is binary data, not an XML feed"),
        (.notXML(start: "Hello, world"), "the document is not XML (it starts with \"Hello, world\")"),
        (.htmlPage, "the document is an HTML page, not a feed"),
        (.subscriptionList, "the document is an OPML subscription list, not a feed"),
        (.rootNotAFeed(root: "svg"), "root element <svg> is not rss, rdf:RDF or an Atom feed"),
        (
            .redirectWithoutLocation,
            "the document is a <redirect> without a usable <newLocation> (the feed may be gone), not a feed"
        ),
        (.entityLoop(line: nil), "the document defines entities that expand without bound (an entity loop)"),
        (.entityLoop(line: 4), "the document defines entities that expand without bound (an entity loop) (line 4)"),
        (
            .notWellFormed(libxml2Message: "Start tag expected, '<' not found", line: 1),
            "the document is not well-formed XML: Start tag expected, '<' not found (line 1)"
        ),
        (.notWellFormed(libxml2Message: nil, line: nil), "the document is not well-formed XML"),
        (.alreadyFinished, "the parser was already finished (a podfresh bug)"),
        (.emptySubscriptionList, "the OPML file is empty"),
        (.subscriptionListNotXML, "the file is not XML, so not an OPML subscription list"),
        (.rootNotOPML(root: "rss"), "root element <rss> is not <opml>"),
        (
            .stored(kind: .notXML, message: "as an older podfresh said it", line: 2, isSubscriptionList: false),
            "as an older podfresh said it (line 2)"
        ),
    ]

    @Test(arguments: wordings)
    func eachReasonIsWordedOnce(reason: FeedParseError.Reason, line: String) {
        #expect(FeedParseErrorText.line(FeedParseError(reason)) == line)
    }

    @Test func theKindLineAndSubscriptionListFollowFromTheReason() {
        #expect(FeedParseError(.json).kind == .notXML)
        #expect(FeedParseError(.rootNotOPML(root: "rss")).kind == .notAFeed)
        #expect(FeedParseError(.entityLoop(line: 3)).kind == .entityExpansion)
        #expect(FeedParseError(.entityLoop(line: 3)).line == 3)
        #expect(FeedParseError(.notWellFormed(libxml2Message: nil, line: 7)).kind == .malformed)
        #expect(FeedParseError(.subscriptionList).isSubscriptionList)
        #expect(!FeedParseError(.htmlPage).isSubscriptionList)
    }

    @Test func anErrorAnOlderPodfreshStoredIsReadBackAsItsSentence() throws {
        let old =
            #"{"kind":"not-a-feed","message":"the document is an OPML subscription list, not a feed","isSubscriptionList":true}"#
        let error = try JSONDecoder().decode(FeedParseError.self, from: Data(old.utf8))
        #expect(error.kind == .notAFeed && error.isSubscriptionList)
        #expect(FeedParseErrorText.line(error) == "the document is an OPML subscription list, not a feed")
        let new = try JSONEncoder().encode(FeedParseError(.rootNotAFeed(root: "svg")))
        #expect(!String(decoding: new, as: UTF8.self).contains("is not rss"), "facts, not a sentence")
        #expect(try JSONDecoder().decode(FeedParseError.self, from: new) == FeedParseError(.rootNotAFeed(root: "svg")))
    }
}
