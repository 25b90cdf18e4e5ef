import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import HTTPTransport
import Measures
import RefreshEngine
import TestSupport
import Testing

/// One item of a steady-state test feed: its id (guid and title), days before 1 Nov 2026 (nil: no date), and how
/// long its show notes are.
private struct Item {
    var id: String
    var daysAgo: Double?
    var title: String?
    var notes = 400

    init(_ id: String, _ daysAgo: Double?, title: String? = nil) {
        self.id = id
        self.daysAgo = daysAgo
        self.title = title
    }
}

private let epoch = Date(timeIntervalSince1970: 1_793_491_200)  // 1 Nov 2026

/// An RSS document with `items` in the order given.
private func feed(_ items: [Item], buildDate: String = "Sun, 01 Nov 2026 00:00:00 GMT", extra: String = "") -> String {
    let body = items.map { item in
        let date = item.daysAgo.map {
            "<pubDate>\(HTTPHeaderValues.string(from: epoch.addingTimeInterval(-$0 * 86_400)))</pubDate>"
        }
        return """
            <item><title>\(item.title ?? item.id)</title><guid isPermaLink="false">\(item.id)</guid>\(date ?? "")
            <description>\(String(repeating: "Notes of \(item.id). ", count: item.notes / 16))</description>
            <enclosure url="https://cdn.example.com/\(item.id).mp3" length="1000" type="audio/mpeg"/></item>

            """
    }
    return """
        <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Steady</title>
        <lastBuildDate>\(buildDate)</lastBuildDate>\(extra)
        \(body.joined())</channel></rss>
        """
}

/// Items k1 (newest, 1 day ago) … kN, newest first.
private func known(_ count: Int) -> [Item] { (1...count).map { Item("k\($0)", Double($0)) } }

/// Issue #36: an unchanged feed costs next to nothing, whatever the server sends.
@Suite(.timeLimit(.minutes(1)))
struct SteadyStateTests {
    @Test func aFeedReadShortStillMergesEveryNewItemBeforeItsKnownRun() async throws {
        try await SteadyHarness.with { h in
            h.serve("/f.xml", feed(known(300)))
            let subscription = try await h.subscribe("/f.xml")
            let first = try await h.refresh()
            #expect(first.newEpisodeCount == 300 && !first.readShort, "nothing stored yet: read whole")

            // Two new items at the top and one between known ones; the server then sends the first 12 KB and never
            // the rest (about 140 KB), so only a read that stops early ends at all.
            var items = [Item("n1", 0.1), Item("n2", 0.2)] + known(300)
            items.insert(Item("n3", 1.5), at: 3)
            let text = feed(items)
            h.serve("/f.xml", text, stallAfter: 12_000)
            let second = try await h.refresh()

            #expect(second.failure == nil)
            #expect(second.readShort)
            #expect(Set(second.newEpisodes.map(\.key)).count == 3)
            #expect(try await h.titles(subscription.id).count == 303)
            #expect((second.bytesFetched ?? .max) <= 12_000, "the body was not read past what the server sent")
            #expect(await waitUntil { h.server.closedConnections >= 1 }, "the connection was closed, not drained")
            let run = try #require(try await h.store.lastRun())
            #expect(run.feedsReadShort == 1)
        }
    }

    @Test func aGzippedBodyReadShortIsParsedNoFurtherThanAFewItemsPastItsKnownRun() async throws {
        try await SteadyHarness.with { h in
            // 400 items, about 240 KB of XML that gzip makes a few KB: one read from the socket brings in the whole
            // body, and inflated it holds every item.
            h.serve("/f.xml", feed(known(400)))
            let subscription = try await h.subscribe("/f.xml")
            _ = try await h.refresh()
            let firstSeen = try #require(
                try await h.store.episodes(EpisodeQuery(subscriptionID: subscription.id)).map(\.lastSeenAt).max())

            await h.clock.advance(by: .seconds(3600))
            h.serve("/f.xml", feed([Item("n1", 0.5)] + known(400)))
            let second = try await h.refresh()
            #expect(second.failure == nil)
            #expect(second.readShort)
            #expect(second.newEpisodes.map(\.key) == ["n1"])
            #expect(h.server.requests(to: "/f.xml").last?.headers["accept-encoding"]?.contains("gzip") == true)
            // Merged: the new item, the known run (k1-k3) and what ended in the same slice of the body; not the
            // hundreds of items the inflated read held.
            let seen = try await h.store.episodes(EpisodeQuery(subscriptionID: subscription.id))
                .filter { $0.lastSeenAt > firstSeen }.map(\.key)
            #expect(Set(["n1", "k1", "k2", "k3"]).isSubset(of: Set(seen)))
            #expect(seen.count <= 25, "a slice of the body holds about 15 items; seen: \(seen.count)")
            #expect((second.bytesFetched ?? .max) <= BodyInflater.pieceSize, "one inflated piece, no more")
        }
    }

    @Test func manyFeedsOfOneHostReadShortOneAfterAnotherAllEnd() async throws {
        try await SteadyHarness.with { h in
            let names = (1...8).map { "/f\($0).xml" }
            for name in names { h.serve(name, feed(known(400))) }
            for name in names { _ = try await h.subscribe(name) }
            _ = try await h.service.refresh(policy: .all)
            await h.clock.advance(by: .seconds(3600))
            let second = try await h.service.refresh(policy: .all)
            #expect(second.failedCount == 0)
            #expect(second.outcomes.allSatisfy { $0.readShort })
            let third = try await h.service.refresh(policy: .all)
            #expect(third.failedCount == 0)
            #expect(third.outcomes.allSatisfy { $0.readShort })
        }
    }

    @Test func aFeedThatListsItsItemsOldestFirstIsReadWhole() async throws {
        try await SteadyHarness.with { h in
            h.serve("/f.xml", feed(known(20).reversed()))
            let subscription = try await h.subscribe("/f.xml")
            _ = try await h.refresh()

            // The new episode comes last, after twenty known ones.
            h.serve("/f.xml", feed(known(20).reversed() + [Item("n1", 0)]))
            let second = try await h.refresh()
            #expect(!second.readShort)
            #expect(second.newEpisodes.map(\.key).count == 1)
            #expect(try await h.titles(subscription.id).count == 21)
        }
    }

    @Test func anEditedLeadingItemLeadsToAFullRead() async throws {
        try await SteadyHarness.with { h in
            h.serve("/f.xml", feed(known(30)))
            let subscription = try await h.subscribe("/f.xml")
            _ = try await h.refresh()

            var items = known(30)
            items[0].title = "k1, corrected"
            items[25].title = "k26, corrected"
            h.serve("/f.xml", feed(items))
            let second = try await h.refresh()
            #expect(!second.readShort)
            #expect(second.result == .updated(newEpisodes: [], updatedCount: 2))
            let titles = Set(try await h.titles(subscription.id).values)
            #expect(titles.contains("k1, corrected") && titles.contains("k26, corrected"))
        }
    }

    @Test func aFeedLastReadWholeADayAgoIsReadWholeAgain() async throws {
        try await SteadyHarness.with { h in
            h.serve("/f.xml", feed(known(1000)))
            let subscription = try await h.subscribe("/f.xml")
            _ = try await h.refresh()

            // An edit deep in the back catalogue (about 400 KB into the body, past what one read brings in): an hour
            // later it is not seen (the leading items are all known)…
            var items = known(1000)
            items[899].title = "k900, corrected"
            h.serve("/f.xml", feed(items))
            await h.clock.advance(by: .seconds(3600))
            let soon = try await h.refresh()
            #expect(soon.readShort)
            #expect(soon.result == .updated(newEpisodes: [], updatedCount: 0))
            #expect(try await h.titles(subscription.id)["k900"] == "k900")

            // … and a day after the last whole read, it is.
            await h.clock.advance(by: .seconds(24 * 3600))
            let later = try await h.refresh()
            #expect(!later.readShort)
            #expect(later.result == .updated(newEpisodes: [], updatedCount: 1))
            #expect(try await h.titles(subscription.id)["k900"] == "k900, corrected")
        }
    }

    @Test func fullReadsEveryBodyToItsEnd() async throws {
        try await SteadyHarness.with(configure: { $0.readsWhole = true }) { h in
            h.serve("/f.xml", feed(known(30)))
            _ = try await h.subscribe("/f.xml")
            _ = try await h.refresh()
            let second = try await h.refresh()
            #expect(!second.readShort && !second.bodyIdentical)
            #expect(second.result == .updated(newEpisodes: [], updatedCount: 0))
        }
    }

    @Test func anIdenticalBodyIsNotParsed() async throws {
        try await SteadyHarness.with { h in
            // Undated items: their order says nothing, so the body is read whole every time. `&nbsp;` is not
            // declared: parsing it gives a warning.
            let text = feed([Item("a", nil), Item("b", nil), Item("c", nil)], extra: "<copyright>&nbsp;</copyright>")
            h.serve("/f.xml", text)
            let subscription = try await h.subscribe("/f.xml")
            let first = try await h.refresh()
            #expect(!first.warnings.isEmpty, "a parse warns of the undeclared entity")
            let seen = try await h.store.episodes(EpisodeQuery(subscriptionID: subscription.id)).map(\.lastSeenAt)

            await h.clock.advance(by: .seconds(3600))
            let second = try await h.refresh()
            #expect(second.bodyIdentical)
            #expect(second.result == .notModified)
            #expect(second.warnings.isEmpty, "not parsed: no warning")
            let after = try await h.store.episodes(EpisodeQuery(subscriptionID: subscription.id)).map(\.lastSeenAt)
            #expect(after == seen, "not merged: no episode was even marked seen")
        }
    }

    @Test func aChangedTimestampAloneStoresNothing() async throws {
        try await SteadyHarness.with { h in
            let undated = [Item("a", nil), Item("b", nil), Item("c", nil)]
            h.serve("/u.xml", feed(undated))
            h.serve("/d.xml", feed(known(30)))
            let u = try await h.subscribe("/u.xml")
            let d = try await h.subscribe("/d.xml")
            _ = try await h.service.refresh(policy: .all)
            let before = try await (h.titles(u.id), h.titles(d.id))

            h.serve("/u.xml", feed(undated, buildDate: "Mon, 02 Nov 2026 00:00:00 GMT"))
            h.serve("/d.xml", feed(known(30), buildDate: "Mon, 02 Nov 2026 00:00:00 GMT"))
            await h.clock.advance(by: .seconds(3600))
            let summary = try await h.service.refresh(policy: .all)
            for outcome in summary.outcomes {
                #expect(outcome.result == .updated(newEpisodes: [], updatedCount: 0))
                #expect(!outcome.bodyIdentical)
            }
            #expect(summary.outcomes.first { $0.feed.id == d.id }?.readShort == true)
            #expect(summary.outcomes.first { $0.feed.id == u.id }?.readShort == false)
            let after = try await (h.titles(u.id), h.titles(d.id))
            #expect(after.0 == before.0 && after.1 == before.1)
        }
    }

    @Test func weakETagsAndLastModifiedAloneAreSentBack() async throws {
        try await SteadyHarness.with { h in
            let text = feed(known(5))
            h.server.setRoute("/weak.xml") { request in
                if request.headers["if-none-match"] == "W/\"v1\"" { return TestResponse(status: 304) }
                return TestResponse(status: 200, headers: [("ETag", "W/\"v1\"")], text: text)
            }
            h.server.setRoute("/dated.xml") { request in
                let stamp = "Sun, 01 Nov 2026 00:00:00 GMT"
                if request.headers["if-modified-since"] == stamp { return TestResponse(status: 304) }
                return TestResponse(status: 200, headers: [("Last-Modified", stamp)], text: text)
            }
            _ = try await h.subscribe("/weak.xml")
            _ = try await h.subscribe("/dated.xml")
            _ = try await h.service.refresh(policy: .all)
            let second = try await h.service.refresh(policy: .all)
            #expect(second.notModifiedCount == 2)
            #expect(h.server.requests(to: "/weak.xml").last?.headers["if-none-match"] == "W/\"v1\"")
            let dated = try #require(h.server.requests(to: "/dated.xml").last)
            #expect(dated.headers["if-modified-since"] == "Sun, 01 Nov 2026 00:00:00 GMT")
            #expect(dated.headers["if-none-match"] == nil)
        }
    }
}
