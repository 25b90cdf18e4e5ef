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

private let epoch = Date(timeIntervalSince1970: 1_793_491_200)  // 1 Nov 2026

/// An RSS document of items `(id, days before 1 Nov 2026, title)` in the order given, each with about 600 bytes of
/// show notes.
private func feed(_ items: [(id: String, daysAgo: Double, title: String)]) -> String {
    let body = items.map { item in
        """
        <item><title>\(item.title)</title><guid isPermaLink="false">\(item.id)</guid>
        <pubDate>\(HTTPHeaderValues.string(from: epoch.addingTimeInterval(-item.daysAgo * 86_400)))</pubDate>
        <description>\(String(repeating: "Notes of \(item.id). ", count: 40))</description>
        <enclosure url="https://cdn.example.com/\(item.id).mp3" length="1000" type="audio/mpeg"/></item>

        """
    }
    return """
        <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Long</title>
        \(body.joined())</channel></rss>
        """
}

/// An RSS document of `count` undated items with no enclosure and no guid (each keyed by its title), about 700 bytes
/// each: the shape of the body that kept 20,002 episodes after the size limit refused it.
private func undatedFeed(_ count: Int) -> String {
    let notes = String(repeating: "Notes without a date. ", count: 28)
    let items = (1...count).map { "<item><title>Undated \($0)</title><description>\(notes)</description></item>\n" }
    return """
        <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Undated</title>
        \(items.joined())</channel></rss>
        """
}

/// Items e1 (newest, 1 day ago) … eN, titled by their ids.
private func items(_ count: Int) -> [(id: String, daysAgo: Double, title: String)] {
    (1...count).map { ("e\($0)", Double($0), "e\($0)") }
}

extension SteadyHarness {
    /// A harness whose engine merges a long body early every `earlyMergeBytes` (nil: every feed in one piece at its
    /// end, as before issue #36's early merges).
    static func with(earlyMergeBytes: Int?, _ body: (SteadyHarness) async throws -> Void) async throws {
        try await with(configure: { $0.earlyMergeBytes = earlyMergeBytes }, body)
    }

    /// Serves `text` at /f.xml with no validators; `stallAfter` sends only that many bytes and then holds the
    /// connection.
    fileprivate func serve(_ text: String, stallAfter: Int? = nil) { serve("/f.xml", text, stallAfter: stallAfter) }

    fileprivate func subscribe(backlog: Int) async throws -> Subscription {
        try await subscribe("/f.xml", backlog: backlog)
    }

    /// Each stored episode's title and whether it was announced (stored as first seen by a run).
    fileprivate func stored(_ id: Int64) async throws -> [String: String] {
        var stored: [String: String] = [:]
        for episode in try await store.episodes(EpisodeQuery(subscriptionID: id)) {
            stored[episode.key] =
                "\(episode.episode.title ?? "?")\(episode.firstSeenRunID == nil ? "" : " (announced)")"
        }
        return stored
    }
}

/// What a check of a feed came to: its outcome's new episodes and counts, and what the store holds.
private struct Result: Equatable {
    var announced: [String]
    var backlog: Int
    var updated: Int
    var stored: [String: String]
}

/// Issue #36: a long body's episodes are stored as it is read (every few kilobytes here, every 4 MB by default), with
/// the same outcome as one merge at its end.
@Suite(.timeLimit(.minutes(1)))
struct EarlyMergeTests {
    /// Runs `steps` twice, merging early every 2 KB and not at all, and expects the same results.
    private func expectSameResults(
        _ steps: @escaping (SteadyHarness) async throws -> [Result]
    ) async throws {
        var early: [Result] = []
        var atTheEnd: [Result] = []
        try await SteadyHarness.with(earlyMergeBytes: 2_000) { early = try await steps($0) }
        try await SteadyHarness.with(earlyMergeBytes: nil) { atTheEnd = try await steps($0) }
        #expect(!early.isEmpty)
        #expect(early == atTheEnd)
    }

    private func result(_ outcome: RefreshOutcome, _ h: SteadyHarness, _ id: Int64) async throws -> Result {
        #expect(outcome.failure == nil)
        var updated = 0
        if case .updated(_, let count) = outcome.result { updated = count }
        return Result(
            announced: outcome.newEpisodes.map(\.key), backlog: outcome.backlogCount, updated: updated,
            stored: try await h.stored(id))
    }

    @Test func aFirstCheckAnnouncesTheNewestAndStoresTheRestAsBackCatalogue() async throws {
        try await expectSameResults { h in
            h.serve(feed(items(200)))
            let subscription = try await h.subscribe(backlog: 3)
            let outcome = try await h.refresh()
            let result = try await self.result(outcome, h, subscription.id)
            #expect(result.announced == ["e1", "e2", "e3"] && result.backlog == 197 && result.stored.count == 200)
            return [result]
        }
    }

    @Test func aFeedListedOldestFirstStillAnnouncesItsNewest() async throws {
        try await expectSameResults { h in
            h.serve(feed(items(200).reversed()))
            let subscription = try await h.subscribe(backlog: 2)
            let result = try await self.result(try await h.refresh(), h, subscription.id)
            #expect(Set(result.announced) == ["e1", "e2"] && result.backlog == 198)
            return [result]
        }
    }

    @Test func aLaterWholeReadAnnouncesEveryNewEpisodeAndUpdatesAnEditDeepInTheFeed() async throws {
        try await expectSameResults { h in
            h.serve(feed(items(200)))
            let subscription = try await h.subscribe(backlog: 1)
            let first = try await self.result(try await h.refresh(), h, subscription.id)

            var edited = items(200)
            edited[150].title = "e151, corrected"
            edited.insert(("new-in-the-middle", 100.5, "new-in-the-middle"), at: 100)
            h.serve(feed([("new1", 0.1, "new1"), ("new2", 0.2, "new2")] + edited))
            await h.clock.advance(by: .seconds(2 * 86_400))  // past the daily whole read
            let second = try await self.result(try await h.refresh(), h, subscription.id)
            #expect(second.announced == ["new1", "new2", "new-in-the-middle"])
            #expect(second.updated == 1 && second.stored["e151"] == "e151, corrected")
            return [first, second]
        }
    }

    @Test func aFirstCheckThatFailsHalfwayStoresOnlyBackCatalogueAndTheNextAnnouncesTheNewest() async throws {
        try await SteadyHarness.with(earlyMergeBytes: 2_000) { h in
            let text = feed(items(200))
            h.serve(text, stallAfter: text.utf8.count / 2)
            let subscription = try await h.subscribe(backlog: 3)
            let failed = try await h.refresh()
            #expect(failed.failure != nil)
            let stored = try await h.stored(subscription.id)
            #expect(stored.count > 50, "the first half was stored as it was read")
            #expect(stored.values.allSatisfy { !$0.hasSuffix("(announced)") }, "and none of it announced")
            #expect(stored["e1"] == nil, "the newest are held for the check's own merge")

            h.serve(text)
            await h.clock.advance(by: .seconds(3600))
            let second = try await h.refresh()
            #expect(second.failure == nil)
            #expect(second.newEpisodes.map(\.key) == ["e1", "e2", "e3"])
            #expect(try await h.stored(subscription.id).count == 200)
        }
    }

    @Test func aFirstCheckRefusedAsTooLargeKeepsNoneOfItsEpisodes() async throws {
        // 4,300 items (3 MB, sent gzipped with no length) against a 2 MB limit: refused as it streams, after early
        // merges every 200 KB stored its back catalogue.
        try await SteadyHarness.with(maxBodyBytes: 2_000_000, configure: { $0.earlyMergeBytes = 200_000 }) { h in
            h.serve(undatedFeed(4_300))
            let subscription = try await h.subscribe(backlog: 3)
            let refused = try await h.refresh()
            #expect(refused.failure?.kind == .fetch(.tooLarge), "\(String(describing: refused.failure))")
            #expect(try await h.stored(subscription.id).isEmpty, "a refused body leaves no episode behind")

            // Under the limit, the same feed is a first check as any: its newest announced, the rest back catalogue.
            h.serve(undatedFeed(2_000))
            await h.clock.advance(by: .seconds(3600))
            let accepted = try await h.refresh()
            #expect(accepted.failure == nil)
            #expect(accepted.newEpisodes.map(\.key).count == 3 && accepted.backlogCount == 1_997)
        }
    }

    @Test func aLaterWholeReadThatFailsHalfwayChangesNoStoredEpisode() async throws {
        try await SteadyHarness.with(earlyMergeBytes: 2_000) { h in
            h.serve(feed(items(200)))
            let subscription = try await h.subscribe(backlog: 1)
            _ = try await h.refresh()
            let query = EpisodeQuery(subscriptionID: subscription.id)
            let before = try await h.store.episodes(query)

            var edited = items(200)
            edited[20].title = "e21, corrected"
            let text = feed([("new1", 0.1, "new1")] + edited)
            h.serve(text, stallAfter: text.utf8.count * 3 / 4)
            await h.clock.advance(by: .seconds(2 * 86_400))  // past the daily whole read
            let failed = try await h.refresh()
            #expect(failed.failure != nil)
            #expect(try await h.store.episodes(query) == before, "nothing updated, marked seen or added")

            h.serve(text)
            let second = try await h.refresh()
            #expect(second.newEpisodes.map(\.key) == ["new1"])
            #expect(second.result == .updated(newEpisodes: second.newEpisodes, updatedCount: 1))
            let seen = try await h.store.episodes(query).filter { $0.lastSeenAt == h.clock.date }
            #expect(seen.count == 201, "every episode of the body is marked seen, also those let go early")
        }
    }
}

/// A body cut by the network is not refused: what its early merges stored stays (never announced), and the next whole
/// read announces the newest as a first check does. A reset drops what the client has not read yet, so the server
/// resets only after handing over 12 MB, more than loopback's socket buffers hold: the client has read megabytes by
/// then, many early merges' worth.
@Suite(.timeLimit(.minutes(3)))
struct TransientCutTests {
    @Test func aFirstCheckCutByAResetKeepsTheBackCatalogueItStoredAndTheNextAnnouncesTheNewest() async throws {
        try await SteadyHarness.with(maxBodyBytes: 20_000_000, configure: { $0.earlyMergeBytes = 1_000_000 }) { h in
            let text = undatedFeed(18_000)
            h.server.setRoute(
                "/f.xml",
                TestResponse(
                    status: 200, headers: [("Content-Type", "application/rss+xml")], body: Array(text.utf8),
                    fault: .reset(afterBytes: 12_000_000), compressible: false))
            let subscription = try await h.subscribe("/f.xml", backlog: 3)
            let cut = try await h.refresh()
            #expect(cut.failure != nil && cut.failure?.kind != .fetch(.tooLarge), "\(String(describing: cut.failure))")
            let stored = try await h.titles(subscription.id)
            #expect(stored.count > 0 && stored.count < 18_000, "the back catalogue read before the reset stays")
            let announced = try await h.store.episodes(EpisodeQuery(subscriptionID: subscription.id))
                .filter { $0.firstSeenRunID != nil }
            #expect(announced.isEmpty, "and none of it is announced")

            // Sent as it is: gzipped, 12 MB of repeated notes are 84 KB on the wire, and inflating and parsing a read
            // of it on a busy machine can outlast the harness's 3 s stall limit.
            h.server.setRoute(
                "/f.xml",
                TestResponse(
                    status: 200, headers: [("Content-Type", "application/rss+xml")], body: Array(text.utf8),
                    compressible: false))
            await h.clock.advance(by: .seconds(3600))
            let second = try await h.refresh()
            #expect(second.failure == nil)
            #expect(second.newEpisodes.map(\.title) == ["Undated 1", "Undated 2", "Undated 3"])
            #expect(try await h.titles(subscription.id).count == 18_000)
        }
    }
}
