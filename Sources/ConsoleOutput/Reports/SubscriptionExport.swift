public import FeedModels
import FeedParsing

/// What `podfresh export` prints: every subscription as an OPML 2.0 document.
public enum SubscriptionExport {
    /// The OPML document's title.
    static let title = "podfresh subscriptions"

    /// An OPML 2.0 document with one outline per subscription (title, feed URL, website), ending in a newline.
    public static func opml(_ subscriptions: [Subscription]) -> String {
        let outlines = subscriptions.map { OPMLOutline(title: $0.title, xmlURL: $0.url, htmlURL: $0.link) }
        return OPML.document(title: title, outlines: outlines)
    }
}
