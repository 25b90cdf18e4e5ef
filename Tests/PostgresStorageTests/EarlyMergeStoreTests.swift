import FeedModels
import FeedParsing
import Foundation
import PostgresStorage
import Testing

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)

private func item(_ id: String, title: String? = nil) -> ParsedEpisode {
    ParsedEpisode(
        id: id, guid: id, title: title ?? "Title of \(id)", description: "Notes of \(id)", published: t0,
        enclosures: [Enclosure(url: URL(string: "https://cdn.example.com/\(id).mp3")!, length: 10, type: "audio/mpeg")])
}

/// Issue #36: both stores merge a long body's episodes early, in a transaction of their own, writing only what is
/// true whether or not the check goes on to succeed.
@Suite(.serialized)
struct EarlyMergeStoreTests {
    @Test(arguments: Backend.allCases)
    func anEarlyMergeStoresOnlyInsertableBackCatalogueAndTheChecksMergeMarksTheUnchangedSeen(
        backend: Backend
    ) async throws {
        try await backend.withStore { store in
            let added = try await store.addSubscription(
                url: URL(string: "https://a.example/f.xml")!, title: nil, at: t0, backlog: 1)
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: added.id, checkedAt: t0, status: 200,
                    result: .fetched(
                        ParsedFeed(format: .rss2, title: "Show", episodes: [item("known"), item("edited")]),
                        etag: "\"e1\"", lastModified: nil, unconditional: false),
                    runID: 1))
            let before = try #require(try await store.subscription(id: added.id))

            let later = t0.addingTimeInterval(3600)
            let summary = try await store.mergeEarly(
                EarlyEpisodes(
                    subscriptionID: added.id, checkedAt: later,
                    episodes: [item("known"), item("edited", title: "Edited"), item("old"), item("new")],
                    insertable: [false, false, true, false]))

            #expect(summary == EarlyMergeSummary(held: [1, 3], unchanged: [0], backlogCount: 1))
            var stored = try await Self.stored(store, added.id)
            #expect(Set(stored.keys) == ["known", "edited", "old"], "a held episode is not stored")
            #expect(stored["edited"]?.episode.title == "Title of edited", "a change waits for the check's merge")
            #expect(stored["known"]?.lastSeenAt == t0, "and so does marking an episode seen")
            #expect(stored["old"]?.firstSeenRunID == nil, "stored early only as back catalogue, never announced")
            #expect(stored["old"]?.firstSeenAt == later)
            #expect(try await store.subscription(id: added.id) == before, "the feed's own state is the check's")

            var check = FeedCheck(
                subscriptionID: added.id, checkedAt: later, status: 200,
                result: .fetched(
                    ParsedFeed(format: .rss2, title: "Show", episodes: [item("edited", title: "Edited")]),
                    etag: nil, lastModified: nil, unconditional: true),
                runID: 2)
            check.seenEarly = ["known"]
            _ = try await store.apply(check)
            stored = try await Self.stored(store, added.id)
            #expect(stored["known"]?.lastSeenAt == later, "the check's merge marks what the early one found seen")
            #expect(stored["edited"]?.episode.title == "Edited")
        }
    }

    @Test(arguments: Backend.allCases)
    func withdrawingTakesOutOnlyWhatTheChecksEarlyMergesStored(backend: Backend) async throws {
        try await backend.withStore { store in
            let added = try await store.addSubscription(
                url: URL(string: "https://a.example/f.xml")!, title: nil, at: t0, backlog: 1)
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: added.id, checkedAt: t0, status: 200,
                    result: .fetched(
                        ParsedFeed(format: .rss2, title: "Show", episodes: [item("known")]), etag: nil,
                        lastModified: nil, unconditional: true),
                    runID: 1))
            let later = t0.addingTimeInterval(3600)
            let summary = try await store.mergeEarly(
                EarlyEpisodes(
                    subscriptionID: added.id, checkedAt: later, episodes: [item("known"), item("old1"), item("old2")],
                    insertable: [true, true, true]))
            #expect(summary.stored(of: 3) == [1, 2])
            #expect(try await store.countEpisodes(EpisodeQuery(subscriptionID: added.id)) == 3)

            // "known" is named too, as a caller that lost track might: stored by an earlier check, it stays.
            let removed = try await store.withdrawEarly(
                EarlyWithdrawal(subscriptionID: added.id, checkedAt: later, keys: ["old1", "old2", "known"]))
            #expect(removed == 2)
            #expect(Set(try await Self.stored(store, added.id).keys) == ["known"])
            #expect(
                try await store.withdrawEarly(
                    EarlyWithdrawal(subscriptionID: added.id, checkedAt: later, keys: ["old1"])) == 0)
        }
    }

    private static func stored(_ store: any SpecifiedStore, _ id: Int64) async throws -> [String: StoredEpisode] {
        var stored: [String: StoredEpisode] = [:]
        for episode in try await store.episodes(EpisodeQuery(subscriptionID: id)) { stored[episode.key] = episode }
        return stored
    }

    @Test(arguments: Backend.allCases)
    func anEarlyMergeOfAFeedRemovedMeanwhileWritesNothing(backend: Backend) async throws {
        try await backend.withStore { store in
            let added = try await store.addSubscription(
                url: URL(string: "https://a.example/f.xml")!, title: nil, at: t0, backlog: 1)
            try await store.removeSubscription(id: added.id)
            do {
                _ = try await store.mergeEarly(
                    EarlyEpisodes(
                        subscriptionID: added.id, checkedAt: t0, episodes: [item("a")], insertable: [true]))
                Issue.record("merged into a removed feed")
            } catch let error as StoreError {
                #expect(error.kind == .notFound)
            }
        }
    }

    @Test func onAFleetAnEarlyMergeWritesOnlyUnderTheChecksOwnLeaseAndLeavesItInPlace() async throws {
        try await LeaseTests.withFleetStore { store in
            let added = try await store.addSubscription(
                url: URL(string: "https://a.example/f.xml")!, title: nil, at: t0, backlog: 1)
            let claimed = try #require(try await store.claimFeeds(LeaseTests.request("w1")).claimed.first)
            var stale = claimed.lease
            stale.token += 1
            await #expect(throws: StoreError.self) {
                _ = try await store.mergeEarly(
                    EarlyEpisodes(
                        subscriptionID: added.id, checkedAt: t0, episodes: [item("a")], insertable: [true],
                        lease: stale))
            }
            #expect(try await store.countEpisodes(EpisodeQuery(subscriptionID: added.id)) == 0)

            let summary = try await store.mergeEarly(
                EarlyEpisodes(
                    subscriptionID: added.id, checkedAt: t0, episodes: [item("a")], insertable: [true],
                    lease: claimed.lease))
            #expect(summary.backlogCount == 1)
            // The lease is still the check's: its own merge ends it.
            _ = try await store.apply(LeaseTests.notModified(added.id, lease: claimed.lease))
        }
    }
}
