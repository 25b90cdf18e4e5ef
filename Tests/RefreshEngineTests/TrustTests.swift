import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import RefreshEngine
import TestSupport
import Testing

/// A feed whose items carry the given publication days (newest first unless the caller says otherwise).
private func dated(_ items: [(String, String)], extra: String = "") -> String {
    let entries = items.map { title, date in
        "<item><title>\(title)</title><guid>\(title)</guid><pubDate>\(date) 05:00:00 GMT</pubDate></item>"
    }
    return
        "<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel><title>Show</title>\(extra)\(entries.joined())</channel></rss>"
}

/// The same test server under another host name, so per-host limits and moves between hosts can be tested on
/// loopback alone.
private func otherHost(_ url: URL) -> URL {
    URL(string: url.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost"))!
}

/// What a new user met on real feeds: nothing skipped silently, moves checked, gone feeds revivable, no flood.
@Suite(.timeLimit(.minutes(1)))
struct TrustTests {
    // MARK: - Moves and fetch slots

    @Test func feedsThatMoveToOtherHostsDuringTheRunLeaveNoFeedOfTheirOldHostUnchecked() async throws {
        try await EngineHarness.with(jobs: 5, perHost: 2) { h in
            var ids: [Int64] = []
            for index in 1...2 {
                let target = otherHost(h.server.url("/moved\(index).xml"))
                h.server.serveFeed("/moved\(index).xml", rss(title: "Moved \(index)", items: ["m\(index)"]))
                h.server.serveFeed(
                    "/mover\(index).xml",
                    rss(items: ["x\(index)"], extra: "<itunes:new-feed-url>\(target)</itunes:new-feed-url>"))
                await ids.append(try h.subscribe("/mover\(index).xml").id)
            }
            for index in 1...4 {
                h.server.serveFeed("/stay\(index).xml", rss(items: ["s\(index)"]))
                await ids.append(try h.subscribe("/stay\(index).xml").id)
            }
            let summary = try await h.service.refresh(policy: .due)
            #expect(summary.outcomes.count == 6)
            #expect(summary.outcomes.filter { $0.result == .cancelled }.isEmpty)
            #expect(summary.updatedCount == 6)
            #expect(try await h.store.subscription(id: ids[0])?.url == otherHost(h.server.url("/moved1.xml")))
        }
    }

    @Test func aNewFeedURLThatIsNotAFeedIsNotFollowedAndTheReasonIsSaid() async throws {
        try await EngineHarness.with { h in
            h.server.setRoute(
                "/page.html",
                TestResponse(
                    status: 200, headers: [("Content-Type", "text/html")],
                    text: "<!DOCTYPE html><html><body>hi</body></html>"))
            h.server.serveFeed(
                "/a.xml",
                rss(items: ["a1"], extra: "<itunes:new-feed-url>\(h.server.url("/page.html"))</itunes:new-feed-url>"))
            h.server.serveFeed(
                "/b.xml",
                rss(items: ["b1"], extra: "<itunes:new-feed-url>\(h.server.url("/missing.xml"))</itunes:new-feed-url>"))
            let a = try await h.subscribe("/a.xml")
            let b = try await h.subscribe("/b.xml")
            let summary = try await h.service.refresh(policy: .due)
            for (subscription, path) in [(a, "/a.xml"), (b, "/b.xml")] {
                let outcome = try #require(summary.outcomes.first { $0.feed.id == subscription.id })
                #expect(outcome.movedTo == nil)
                guard case .unreadable(_, let staying, _) = outcome.moveRefused else {
                    Issue.record("not refused as unreadable: \(String(describing: outcome.moveRefused))")
                    continue
                }
                #expect(staying == h.server.url(path))
                #expect(try await h.store.subscription(id: subscription.id)?.url == h.server.url(path))
                #expect(try await h.store.subscription(id: subscription.id)?.movedFrom == nil)
            }
            #expect(summary.newEpisodeCount == 2, "the feed itself is still stored")
        }
    }

    @Test func twoFeedsNamingEachOtherAsTheirNewAddressStayWhereTheyAre() async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed(
                "/a.xml",
                rss(items: ["a1"], extra: "<itunes:new-feed-url>\(h.server.url("/b.xml"))</itunes:new-feed-url>"))
            h.server.serveFeed(
                "/b.xml",
                rss(items: ["b1"], extra: "<itunes:new-feed-url>\(h.server.url("/a.xml"))</itunes:new-feed-url>"))
            let a = try await h.subscribe("/a.xml")
            let summary = try await h.service.refresh(policy: .due)
            #expect(try await h.store.subscription(id: a.id)?.url == h.server.url("/a.xml"))
            #expect(
                summary.outcomes.first?.moveRefused
                    == .pointsBack(target: h.server.url("/b.xml"), staying: h.server.url("/a.xml")))
        }
    }

    @Test func anUndoneMoveIsNotFollowedAgainAndAMoveByHandTakesEffect() async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed("/new.xml", rss(items: ["n1"]))
            h.server.serveFeed(
                "/old.xml",
                rss(items: ["o1"], extra: "<itunes:new-feed-url>\(h.server.url("/new.xml"))</itunes:new-feed-url>"))
            let feed = try await h.subscribe("/old.xml")
            _ = try await h.service.refresh(policy: .due)
            #expect(try await h.store.subscription(id: feed.id)?.url == h.server.url("/new.xml"))

            let back = try await h.store.undoMove(id: feed.id)
            #expect(back.url == h.server.url("/old.xml"))
            #expect(back.movedFrom == nil)
            let again = try await h.service.refresh(policy: .all)
            #expect(again.outcomes.first?.movedTo == nil)
            #expect(try await h.store.subscription(id: feed.id)?.url == h.server.url("/old.xml"))
            await #expect(throws: StoreError.self) { try await h.store.undoMove(id: feed.id) }

            let byHand = try await h.store.moveSubscription(id: feed.id, to: h.server.url("/new.xml"))
            #expect(byHand.url == h.server.url("/new.xml"))
            #expect(byHand.movedFrom == h.server.url("/old.xml"))
            #expect(byHand.nextCheckAt == nil && byHand.etag == nil)
            let afterMove = try await h.service.refresh(policy: .due)
            #expect(afterMove.outcomes.map(\.feed.id) == [feed.id], "a feed moved by hand is due at once")
            await #expect(try h.titles(feed.id) == ["o1", "n1"], "no episode is lost by moving")
        }
    }

    // MARK: - Gone feeds

    @Test func aGoneFeedIsCheckedWhenNamedOrForcedAndRevivesWhenItAnswers() async throws {
        try await EngineHarness.with { h in
            h.server.setRoute("/gone.xml", TestResponse(status: 410, text: "gone"))
            let gone = try await h.subscribe("/gone.xml")
            _ = try await h.service.refresh(policy: .due)
            #expect(try await h.store.subscription(id: gone.id)?.isGone == true)
            #expect(try await h.service.refresh(policy: .all).outcomes.isEmpty)
            #expect(try await h.service.refresh(policy: .due).outcomes.isEmpty)

            let forced = try await h.service.refresh(policy: .force)
            #expect(forced.outcomes.count == 1)
            let named = try await h.service.refresh(policy: .due, feedIDs: [gone.id])
            #expect(named.outcomes.map(\.feed.id) == [gone.id])
            #expect(h.server.requests(to: "/gone.xml").count == 3)

            h.server.serveFeed("/gone.xml", rss(items: ["back"]))
            let revived = try await h.service.refresh(policy: .due, feedIDs: [gone.id])
            #expect(revived.updatedCount == 1)
            let stored = try #require(try await h.store.subscription(id: gone.id))
            #expect(!stored.isGone)
            #expect(stored.nextCheckAt != nil)
            #expect(
                try await h.store.dueSubscriptions(at: Date().addingTimeInterval(3 * 86_400)).map(\.id) == [gone.id])
        }
    }

    // MARK: - First fetch

    @Test func aNewSubscriptionAnnouncesOnlyItsNewestEpisodeAndStoresTheRest() async throws {
        try await EngineHarness.with { h in
            // Oldest first in the document: "newest" is by date, not by position.
            h.server.serveFeed(
                "/a.xml", dated([("e1", "Tue, 01 Oct 2024"), ("e3", "Tue, 15 Oct 2024"), ("e2", "Tue, 08 Oct 2024")]))
            let feed = try await h.store.addSubscription(url: h.server.url("/a.xml"), title: nil, at: Date())
            let first = try await h.service.refresh(policy: .due)
            #expect(first.outcomes.first?.newEpisodes.map(\.key) == ["e3"])
            #expect(first.outcomes.first?.backlogCount == 2)
            await #expect(try h.titles(feed.id) == ["e1", "e2", "e3"])
            let lastRun = try #require(try await h.store.lastRun())
            #expect(
                try await h.store.episodes(EpisodeQuery(runID: lastRun.id)).map(\.key) == ["e3"],
                "`episodes --new` agrees")

            h.server.serveFeed(
                "/a.xml",
                dated([
                    ("e4", "Tue, 22 Oct 2024"), ("e3", "Tue, 15 Oct 2024"), ("e2", "Tue, 08 Oct 2024"),
                    ("e1", "Tue, 01 Oct 2024"),
                ]))
            let second = try await h.service.refresh(policy: .all)
            #expect(second.outcomes.first?.newEpisodes.map(\.key) == ["e4"])
            #expect(second.outcomes.first?.backlogCount == 0)
        }
    }

    @Test(arguments: [0, 2, 10])
    func theBacklogSettingChoosesHowManyNewestEpisodesTheFirstFetchAnnounces(backlog: Int) async throws {
        try await EngineHarness.with { h in
            h.server.serveFeed("/a.xml", rss(items: ["e4", "e3", "e2", "e1"]))
            _ = try await h.store.addSubscription(url: h.server.url("/a.xml"), title: nil, at: Date(), backlog: backlog)
            let first = try await h.service.refresh(policy: .due)
            let announced = first.outcomes.first?.newEpisodes.map(\.key) ?? []
            #expect(announced == Array(["e4", "e3", "e2", "e1"].prefix(backlog)))
            #expect(first.outcomes.first?.backlogCount == 4 - min(4, backlog))
        }
    }

    @Test func aFeedThatFailedItsFirstChecksStillAnnouncesOnlyItsNewestWhenItFirstSucceeds() async throws {
        try await EngineHarness.with { h in
            h.server.setRoute("/a.xml", TestResponse(status: 500, text: "down"))
            _ = try await h.store.addSubscription(url: h.server.url("/a.xml"), title: nil, at: Date())
            _ = try await h.service.refresh(policy: .due)
            h.server.serveFeed("/a.xml", rss(items: ["e3", "e2", "e1"]))
            let summary = try await h.service.refresh(policy: .all)
            #expect(summary.newEpisodeCount == 1)
        }
    }

    // MARK: - Removed during a run

    @Test func aFeedRemovedWhileItIsFetchedIsNeitherAFailureNorStored() async throws {
        try await EngineHarness.with { h in
            let body = Array(rss(items: ["e1"]).utf8)
            h.server.setRoute("/slow.xml", TestResponse(status: 200, body: body, delay: .milliseconds(600)))
            let feed = try await h.subscribe("/slow.xml")
            let run = Task { try await h.service.refresh(policy: .due) }
            while h.server.requests(to: "/slow.xml").isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await h.store.removeSubscription(id: feed.id))
            let summary = try await run.value
            #expect(summary.outcomes.map(\.result) == [.removed])
            #expect(summary.failedCount == 0)
            #expect(try await h.store.episodes(EpisodeQuery()).isEmpty)
        }
    }

    // MARK: - Hooks

    @Test func aSlowHookDoesNotHoldAFetchSlot() async throws {
        // One fetch slot. The first feed's hook waits for a file that appears only when the second feed is fetched:
        // if the hook held the slot, the second fetch could never start.
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-hook-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        try await EngineHarness.with(
            jobs: 1,
            hook:
                "i=0; while [ ! -f '\(marker.path)' ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; [ -f '\(marker.path)' ]"
        ) { h in
            h.server.serveFeed("/a.xml", rss(items: ["a1"]))
            let second = Array(rss(items: ["b1"]).utf8)
            h.server.setRoute("/b.xml") { _ in
                _ = FileManager.default.createFile(atPath: marker.path, contents: Data())
                return TestResponse(status: 200, body: second)
            }
            _ = try await h.subscribe("/a.xml")
            _ = try await h.subscribe("/b.xml")
            let events = h.coordinator.events.subscribe()
            let summary = try await h.service.refresh(policy: .due)
            h.coordinator.events.finish()
            var hookFailures: [String] = []
            for await event in events {
                if case .hookFailed(_, let failure) = event { hookFailures.append(failure.episode) }
            }
            #expect(summary.updatedCount == 2)
            #expect(hookFailures.isEmpty, "\(hookFailures)")
        }
    }
}
