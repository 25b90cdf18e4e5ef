import FeedParsing
import Foundation
import Testing

/// The feeds a web page links with `<link rel="alternate" type="application/rss+xml|atom+xml">`.
struct FeedDiscoveryTests {
    let page = URL(string: "https://show.example/episodes/index.html")!

    @Test func aLinkedFeedIsFoundInAnyAttributeOrderAndResolvedAgainstThePage() {
        let html = """
            <!DOCTYPE html><html><head><title>Show</title>
            <!-- <link rel="alternate" type="application/rss+xml" href="/commented.xml"> -->
            <LINK TYPE='application/rss+xml; charset=utf-8' HREF=../feed.xml?a=1&amp;b=2 Rel="Alternate nofollow" title=" The Show ">
            <link rel="stylesheet" type="text/css" href="/style.css">
            <link rel="alternate" type="text/html" hreflang="de" href="/de/">
            </head><body><link rel="alternate" type="application/rss+xml" href="/in-body.xml"></body></html>
            """
        let feeds = FeedDiscovery.linkedFeeds(in: html, page: page)
        #expect(feeds == [.init(url: URL(string: "https://show.example/feed.xml?a=1&b=2")!, title: "The Show")])
    }

    @Test func severalFeedsAreListedOnceEachInThePagesOrder() {
        let html = """
            <head><base href="https://cdn.show.example/">
            <link rel="alternate" type="application/atom+xml" href="atom.xml" />
            <link rel="alternate" type="application/rss+xml" href="https://show.example/mp3.xml" title="MP3">
            <link rel="alternate" type="application/rss+xml" href="https://show.example/mp3.xml">
            <link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
            </head>
            """
        #expect(
            FeedDiscovery.linkedFeeds(in: html, page: page).map(\.url.absoluteString) == [
                "https://cdn.show.example/atom.xml", "https://show.example/mp3.xml",
            ])
    }

    @Test func aPageWithoutFeedLinksHasNone() {
        #expect(FeedDiscovery.linkedFeeds(in: "<html><head><title>x</title></head></html>", page: page).isEmpty)
        #expect(FeedDiscovery.linkedFeeds(in: "<link rel=alternate", page: page).isEmpty, "a cut tag")
    }
}
