public import FeedParsing

/// How a document that is not a usable feed reads: the one place each ``FeedParseError/Reason`` is worded.
public enum FeedParseErrorText {
    /// The reason on one line, with the line of the document where it was found: `the document is not well-formed
    /// XML: Opening and ending tag mismatch: item line 3 and channel (line 9)`.
    public static func line(_ error: FeedParseError) -> String {
        let text = reason(error.reason)
        return error.line.map { "\(text) (line \($0))" } ?? text
    }

    /// The reason, without the line.
    static func reason(_ reason: FeedParseError.Reason) -> String {
        switch reason {
        case .empty: "the document is empty"
        case .json: "the document is JSON, not an XML feed"
        case .binary: "the document is binary data, not an XML feed"
        case .notXML(let start): "the document is not XML (it starts with \"\(start)\")"
        case .htmlPage: "the document is an HTML page, not a feed"
        case .subscriptionList: "the document is an OPML subscription list, not a feed"
        case .rootNotAFeed(let root): "root element <\(root)> is not rss, rdf:RDF or an Atom feed"
        case .redirectWithoutLocation:
            "the document is a <redirect> without a usable <newLocation> (the feed may be gone), not a feed"
        case .entityLoop: "the document defines entities that expand without bound (an entity loop)"
        case .notWellFormed(let message, _): "the document is not well-formed XML" + (message.map { ": " + $0 } ?? "")
        case .alreadyFinished: "the parser was already finished (a podfresh bug)"
        case .emptySubscriptionList: "the OPML file is empty"
        case .subscriptionListNotXML: "the file is not XML, so not an OPML subscription list"
        case .rootNotOPML(let root): "root element <\(root)> is not <opml>"
        case .stored(_, let message, _, _): message
        }
    }
}
