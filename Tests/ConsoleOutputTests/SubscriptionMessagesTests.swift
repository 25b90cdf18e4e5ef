import ConsoleOutput
import FeedFetching
import FeedModels
import FeedParsing
import Foundation
import RefreshEngine
import Testing

struct SubscriptionMessagesTests {
    let url = URL(string: "https://a.example/feed.xml")!
    var feed: FeedTarget { FeedTarget(id: 9, url: url, title: "Show") }

    @Test func importCountsFeedsWithTheRightPluralAndOnlyMentionsWhatWasSkipped() {
        #expect(SubscriptionMessages.imported(added: 1, duplicates: 0, invalid: 0) == "imported 1 feed")
        #expect(SubscriptionMessages.imported(added: 0, duplicates: 0, invalid: 0) == "imported 0 feeds")
        let both = SubscriptionMessages.imported(added: 3, duplicates: 2, invalid: 1)
        #expect(both.hasPrefix("imported 3 feeds, "))
        #expect(both.contains("skipped 2 already subscribed") && both.contains("ignored 1 without"))
        #expect(!SubscriptionMessages.imported(added: 3, duplicates: 2, invalid: 0).contains("ignored"))
    }

    @Test func aFirstCheckThatFoundAFeedKeepsIt() {
        for result: RefreshResult in [.updated(newEpisodes: [], updatedCount: 0), .notModified, .offline, .removed] {
            #expect(SubscriptionMessages.notSubscribed(RefreshOutcome(feed: feed, result: result)) == nil, "\(result)")
        }
    }

    @Test func aFirstCheckThatFailedSaysWhyTheFeedIsNotKept() throws {
        let failed = try #require(
            SubscriptionMessages.notSubscribed(
                RefreshOutcome(
                    feed: feed,
                    result: .failed(RefreshFailure(.parse(FeedParseError(.rootNotAFeed(root: "nothing")))))))
        )
        #expect(failed.hasPrefix("not subscribed to \(url.absoluteString): "))
        #expect(failed.contains("root element <nothing> is not rss, rdf:RDF or an Atom feed"))
        let gone = try #require(
            SubscriptionMessages.notSubscribed(RefreshOutcome(feed: feed, result: .gone(FeedFetchError(.gone)))))
        #expect(gone.contains("gone") && gone.contains("HTTP 410"))
        #expect(
            SubscriptionMessages.notSubscribed(RefreshOutcome(feed: feed, result: .cancelled))?.contains("stopped")
                == true)
    }

    @Test func removedNamesTheFeedSafely() {
        let titled = Subscription(id: 4, url: url, title: "Evil\u{1B}[2J\u{202E}Show", addedAt: Date())
        #expect(SubscriptionMessages.removed(titled) == "removed 4 EvilShow")
        let untitled = Subscription(id: 5, url: url, addedAt: Date())
        #expect(SubscriptionMessages.removed(untitled) == "removed 5 \(url.absoluteString)")
    }

    @Test func aMoveSaysHowToUndoIt() {
        let moved = Subscription(id: 7, url: URL(string: "https://new.example/feed")!, addedAt: Date())
        let line = SubscriptionMessages.moved(moved, from: url)
        #expect(line.contains(url.absoluteString) && line.contains("https://new.example/feed"))
        #expect(line.contains("`podfresh move 7 --undo`"))
        let back = SubscriptionMessages.movedBack(moved, undoing: url)
        #expect(back.hasPrefix("moved 7 back to https://new.example/feed"))
        #expect(back.contains("\(url.absoluteString) will not be followed again"))
    }

    @Test func exportIsOPMLThatImportsBackTheSameFeeds() throws {
        let subscriptions = [
            Subscription(
                id: 1, url: url, title: "Tom & Jerry <live>", link: URL(string: "https://a.example/")!, addedAt: Date()),
            Subscription(id: 2, url: URL(string: "https://b.example/rss?a=1&b=2")!, addedAt: Date()),
        ]
        let document = SubscriptionExport.opml(subscriptions)
        #expect(document.hasSuffix("\n"))
        let outlines = try OPML.parse(Array(document.utf8))
        #expect(outlines.map(\.xmlURL) == subscriptions.map(\.url))
        #expect(outlines.first?.title == "Tom & Jerry <live>")
        #expect(outlines.first?.htmlURL == URL(string: "https://a.example/")!)
    }

    @Test func aFeedArgumentThatMatchesNothingOrSeveralSaysWhatToGiveInstead() throws {
        #expect(
            SubscriptionMessages.noMatch("nope")
                == "no subscription matches \"nope\"; `podfresh list` shows ids, URLs and titles")
        let url = try #require(URL(string: "https://a.example/feed"))
        let several = [
            Subscription(id: 2, url: url, title: "Daily\u{1B}[2J News", addedAt: Date()),
            Subscription(id: 9, url: url, addedAt: Date()),
        ]
        #expect(
            SubscriptionMessages.severalMatch("news", several)
                == "\"news\" matches 2 subscriptions; give one of these ids (or a URL):\n"
                + "  2  Daily News  https://a.example/feed\n  9  (untitled)  https://a.example/feed")
    }
}
