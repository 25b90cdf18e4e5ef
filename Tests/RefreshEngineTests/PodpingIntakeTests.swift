import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import NIOConcurrencyHelpers
import Podping
import RefreshEngine
import Testing

/// Blocks read from the chain become "due now" for the subscriptions they name, as trust allows.
struct PodpingIntakeTests {
    let now = Date(timeIntervalSince1970: 1_732_581_663)

    final class Events: Sendable {
        private let box = NIOLockedValueBox<[PodpingEvent]>([])
        func add(_ event: PodpingEvent) {
            box.withLockedValue { $0.append(event) }
        }
        var matched: [PodpingMatch] {
            box.withLockedValue { $0 }.compactMap { if case .matched(let m) = $0 { m } else { nil } }
        }
        var received: [PodpingReceipt] {
            box.withLockedValue { $0 }.compactMap { if case .received(let r) = $0 { r } else { nil } }
        }
    }

    /// A store with three feeds, all checked an hour ago and next due in a day.
    func store() async throws -> (FeedStore, [Subscription]) {
        let store = try FeedStore.inMemory()
        var feeds: [Subscription] = []
        for url in ["https://feeds.example.org/one.xml", "https://feeds.example.org/two.xml", "https://x.example/3"] {
            let feed = try await store.addSubscription(url: URL(string: url)!, title: nil, at: now, backlog: nil)
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: now.addingTimeInterval(-3600), status: 304,
                    result: .notModified, nextCheckAt: now.addingTimeInterval(86_400),
                    nextCheckReason: .cadence(interval: .seconds(86_400), basis: .noRhythmYet)))
            feeds.append(feed)
        }
        return (store, feeds)
    }

    /// The feed's body says what it says of podping, stored as a check of the body would store it (checked an hour
    /// ago, not due for a day, as ``store()`` leaves every feed).
    func declare(_ declaration: PodpingDeclaration, of feed: Subscription, in store: FeedStore) async throws {
        var parsed = ParsedFeed(format: .rss2)
        parsed.podping = declaration
        _ = try await store.apply(
            FeedCheck(
                subscriptionID: feed.id, checkedAt: now.addingTimeInterval(-3600), status: 200,
                result: .fetched(parsed, etag: nil, lastModified: nil, unconditional: true),
                nextCheckAt: now.addingTimeInterval(86_400),
                nextCheckReason: .cadence(interval: .seconds(86_400), basis: .noRhythmYet)))
    }

    func batch(_ notices: [PodpingNotice]) -> PodpingBatch {
        PodpingBatch(
            blocks: [HiveBlock(number: 100, time: now.addingTimeInterval(-2), notices: notices)], cursor: 100, head: 100
        )
    }

    func notice(_ iris: [String], sender: String = "podping.aaa") -> PodpingNotice {
        PodpingNotice(
            blockNumber: 100, blockTime: now.addingTimeInterval(-2), operationID: "pp_podcast_update",
            senders: [sender], iris: iris)
    }

    @Test func aPingNamingAFeedByAnotherSpellingOfItsURLMakesItDueNow() async throws {
        let (store, feeds) = try await store()
        let events = Events()
        let intake = PodpingIntake(
            store: store, subscriptions: store, trust: PodpingTrust(), now: { [now] in now }, publish: events.add)
        let due = try await intake.take(
            batch([notice(["HTTPS://Feeds.Example.ORG/one.xml#latest", "https://unsubscribed.example/rss"])]))
        #expect(due == [feeds[0].id: now])
        #expect(try await store.dueSubscriptions(at: now).map(\.id) == [feeds[0].id])
        #expect(try await store.subscription(id: feeds[0].id)?.nextCheckReason == .podping)
        #expect(events.matched.map(\.feed.id) == [feeds[0].id])
        #expect(events.received.first?.iris == 2)
        #expect(events.received.first?.matched == 1)
        let state = try #require(try await store.podpingStates()[feeds[0].id])
        #expect(state.lastPingAt == now.addingTimeInterval(-2))
        #expect(state.lastPingBlock == 100)
        #expect(state.pingCount == 1)
        #expect(state.hostPings)
    }

    @Test func aFeedIsFoundByTheURLItMovedFrom() async throws {
        let (store, feeds) = try await store()
        _ = try await store.moveSubscription(id: feeds[1].id, to: URL(string: "https://new.example.org/two.xml")!)
        _ = try await store.apply(
            FeedCheck(
                subscriptionID: feeds[1].id, checkedAt: now.addingTimeInterval(-600), status: 304,
                result: .notModified, nextCheckAt: now.addingTimeInterval(86_400)))
        let intake = PodpingIntake(
            store: store, subscriptions: store, trust: PodpingTrust(), now: { [now] in now }, publish: { _ in })
        let due = try await intake.take(batch([notice(["https://feeds.example.org/two.xml"])]))
        #expect(due.keys.contains(feeds[1].id))
    }

    @Test func anUnknownSenderIsNotBelievedUnlessTheFeedNamesIt() async throws {
        let (store, feeds) = try await store()
        let events = Events()
        let intake = PodpingIntake(
            store: store, subscriptions: store, trust: PodpingTrust(), now: { [now] in now }, publish: events.add)
        let urls = [feeds[0].url.absoluteString, feeds[1].url.absoluteString]
        #expect(try await intake.take(batch([notice(urls, sender: "mallory")])).isEmpty)
        #expect(events.received.first?.untrusted == 2)
        try await declare(PodpingDeclaration(usesPodping: true, hiveAccounts: ["Mallory"]), of: feeds[1], in: store)
        #expect(try await intake.take(batch([notice(urls, sender: "mallory")])).keys.sorted() == [feeds[1].id])
    }

    @Test func aFeedThatOptedOutIsNeverMadeDueByAPing() async throws {
        let (store, feeds) = try await store()
        try await declare(PodpingDeclaration(usesPodping: false), of: feeds[0], in: store)
        let intake = PodpingIntake(
            store: store, subscriptions: store, trust: PodpingTrust(senders: nil), now: { [now] in now },
            publish: { _ in })
        #expect(try await intake.take(batch([notice([feeds[0].url.absoluteString])])).isEmpty)
        #expect(try await store.podpingStates()[feeds[0].id]?.hostPings == false)
    }

    @Test func aBurstOfPingsForOneFeedIsOneFetch() async throws {
        let (store, feeds) = try await store()
        let events = Events()
        let intake = PodpingIntake(
            store: store, subscriptions: store, trust: PodpingTrust(), now: { [now] in now }, publish: events.add)
        let url = feeds[2].url.absoluteString
        let due = try await intake.take(
            batch([notice([url]), notice([url], sender: "podping.bbb"), notice([url, url])]))
        #expect(due == [feeds[2].id: now])
        #expect(events.matched.count == 1, "one feed, one match, however many pings")
        #expect(try await store.podpingStates()[feeds[2].id]?.pingCount == 4)
    }

    @Test func theAddressIndexIsBuiltAgainOnlyWhenTheSubscriptionsChangeOrItGrowsOld() async throws {
        let (store, feeds) = try await store()
        let events = Events()
        let clock = NIOLockedValueBox(now)
        let intake = PodpingIntake(
            store: store, subscriptions: store, trust: PodpingTrust(), indexMaxAge: 60,
            now: { clock.withLockedValue { $0 } }, publish: events.add)
        let later = "https://later.example/new.xml"
        _ = try await intake.take(batch([notice([later])]))
        _ = try await intake.take(batch([notice([feeds[0].url.absoluteString])]))
        #expect(intake.indexBuilds == 1, "two blocks with notices, the same subscriptions: one index")
        #expect(events.matched.map(\.feed.id) == [feeds[0].id])

        // Added meanwhile (by `podfresh add` in another process): found at the next block with notices.
        let added = try await store.addSubscription(url: URL(string: later)!, title: nil, at: now, backlog: nil)
        _ = try await intake.take(batch([notice([later])]))
        #expect(intake.indexBuilds == 2)
        #expect(events.matched.last?.feed.id == added.id)

        // Moved: found at its new address (and still at its old one).
        let moved = "https://moved.example/two.xml"
        _ = try await store.moveSubscription(id: feeds[1].id, to: URL(string: moved)!)
        _ = try await intake.take(batch([notice([moved])]))
        #expect(intake.indexBuilds == 3)
        #expect(events.matched.last?.feed.id == feeds[1].id)

        // Removed: no longer matched.
        let matchedBefore = events.matched.count
        _ = try await store.removeSubscription(id: feeds[2].id)
        _ = try await intake.take(batch([notice([feeds[2].url.absoluteString])]))
        #expect(intake.indexBuilds == 4)
        #expect(events.matched.count == matchedBefore)

        // Nothing changed, but the index is a minute old: built again.
        _ = try await intake.take(batch([notice([later])]))
        #expect(intake.indexBuilds == 4)
        clock.withLockedValue { $0 = $0.addingTimeInterval(61) }
        _ = try await intake.take(batch([notice([later])]))
        #expect(intake.indexBuilds == 5)
    }
}
