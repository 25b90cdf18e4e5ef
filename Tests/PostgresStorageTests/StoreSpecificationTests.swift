import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import PostgresStorage
import TestSupport
import Testing

/// Everything a store offers through the async repositories: the SQLite ``FeedStore`` and the ``PostgresFeedStore``.
typealias SpecifiedStore = SubscriptionRepository & EpisodeRepository & RefreshRunRepository
    & DownloadRepository & NewFeedSettingsRepository

/// The two stores the specification runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqliteFile = "SQLite file"
    case postgres = "PostgreSQL"

    var testDescription: String { rawValue }

    /// Runs `body` with a new, empty store of this kind: a file in a temporary folder, or a new database in the
    /// test process's PostgreSQL cluster.
    func withStore(_ body: (any SpecifiedStore) async throws -> Void) async throws {
        switch self {
        case .sqliteFile:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("podfresh-spec-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            try await body(try FeedStore(path: directory.appendingPathComponent("podfresh.sqlite").path))
        case .postgres:
            let url = try await TestPostgres.shared().makeDatabase(prefix: "spec")
            try await PostgresFeedStore.withStore(url: url) { store in try await body(store) }
        }
    }
}

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

private func episode(_ id: String, title: String? = nil, published: Date? = t0) -> ParsedEpisode {
    ParsedEpisode(
        id: id, guid: id, guidIsPermaLink: false, title: title ?? id, link: URL(string: "https://a.example/\(id)"),
        description: "Notes for \(id) — with “quotes” & ümlauts", published: published, duration: 1234.5,
        enclosures: [Enclosure(url: URL(string: "https://cdn.example.com/\(id).mp3")!, length: 10, type: "audio/mpeg")],
        episode: 7, season: 2, episodeType: .full, explicit: false,
        persons: [Person(name: "Host", role: "host", href: URL(string: "https://a.example/host"))])
}

private func check(
    _ subscription: Subscription, _ episodes: [ParsedEpisode], at date: Date = t0, runID: Int64? = nil,
    announceLimit: Int? = nil
) -> FeedCheck {
    FeedCheck(
        subscriptionID: subscription.id, checkedAt: date, status: 200,
        result: .fetched(
            ParsedFeed(format: .rss2, title: "Show", episodes: episodes), etag: "\"e1\"",
            lastModified: "Tue, 12 Nov 2024 05:00:00 GMT", unconditional: false),
        nextCheckAt: date.addingTimeInterval(3600),
        nextCheckReason: .cadence(interval: .seconds(3600), basis: .noRhythmYet), runID: runID,
        bodyBytes: 2048, announceLimit: announceLimit)
}

/// One specification, both stores: what the SQLite store does, the PostgreSQL store does too.
@Suite(.serialized)
struct StoreSpecificationTests {
    @Test(arguments: Backend.allCases)
    func subscriptionsAreAddedUnderTheirNormalisedURLListedFoundAndRemoved(backend: Backend) async throws {
        try await backend.withStore { store in
            let added = try await store.addSubscription(
                url: URL(string: "HTTPS://Example.COM/feed.xml#latest")!, title: "A", at: t0, backlog: nil)
            #expect(added.url.absoluteString == "https://example.com/feed.xml")
            await #expect(throws: StoreError.self, "another spelling of the same feed is a duplicate") {
                _ = try await store.addSubscription(
                    url: URL(string: "https://example.com/feed.xml")!, title: nil, at: t0, backlog: nil)
            }
            do {
                _ = try await store.addSubscription(url: added.url, title: nil, at: t0, backlog: nil)
                Issue.record("a duplicate was added")
            } catch let error as StoreError {
                #expect(error.kind == .duplicate)
            }
            let other = try await store.addSubscription(
                url: URL(string: "https://b.example/rss")!, title: "B", at: t0, backlog: 5)

            #expect(try await store.subscriptions().map(\.id) == [added.id, other.id])
            #expect(try await store.subscription(id: other.id)?.backlog == 5)
            #expect(try await store.subscription(id: other.id)?.addedAt == t0)
            #expect(try await store.subscription(url: URL(string: "https://EXAMPLE.com/feed.xml")!)?.id == added.id)
            #expect(try await store.dueSubscriptions(at: t0).count == 2, "never checked: due")

            #expect(try await store.removeSubscription(id: added.id))
            #expect(try await !store.removeSubscription(id: added.id), "a second removal finds nothing")
            #expect(try await store.subscription(id: added.id) == nil)
            #expect(try await store.subscriptions().map(\.title) == ["B"])
        }
    }

    @Test(arguments: Backend.allCases)
    func aMergeStoresNewEpisodesAndTheFeedsState(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: nil, at: t0, backlog: nil)
            let run = try await store.beginRun(at: t0)
            let episodes = [
                episode("e3", published: t0.addingTimeInterval(-100)),
                episode("e2", published: t0.addingTimeInterval(-200)),
                episode("e1", published: t0.addingTimeInterval(-300)),
            ]
            let summary = try await store.apply(check(feed, episodes, runID: run.id))
            #expect(summary.newEpisodes.map(\.key) == ["e3", "e2", "e1"])
            #expect(summary.updatedCount == 0)

            let stored = try await store.episodes(EpisodeQuery(subscriptionID: feed.id))
            #expect(stored.map(\.key) == ["e3", "e2", "e1"], "newest first")
            #expect(stored.first?.episode == episodes.first, "every stored field reads back as parsed")
            #expect(stored.first?.firstSeenRunID == run.id)
            #expect(try await store.episodes(EpisodeQuery(runID: run.id, limit: 2)).map(\.key) == ["e3", "e2"])
            #expect(try await store.countEpisodes(EpisodeQuery(runID: run.id, limit: 2)) == 3)
            #expect(try await store.episodeCounts() == [feed.id: 3])
            #expect(
                try await store.recentPublishedDates(subscriptionID: feed.id, limit: 2)
                    == [t0.addingTimeInterval(-100), t0.addingTimeInterval(-200)])

            let after = try #require(try await store.subscription(id: feed.id))
            #expect(after.title == "Show")
            #expect(after.etag == "\"e1\"")
            #expect(after.lastStatus == 200)
            #expect(after.lastSuccessAt == t0)
            #expect(after.nextCheckAt == t0.addingTimeInterval(3600))
            #expect(after.lastBodyBytes == 2048)
            #expect(try await store.dueSubscriptions(at: t0).isEmpty, "checked: due again in an hour")

            var finished = run
            finished.endedAt = t0.addingTimeInterval(5)
            finished.feedsChecked = 1
            finished.newEpisodes = 3
            try await store.finishRun(finished)
            #expect(try await store.lastRun(checkedFeeds: true) == finished)
        }
    }

    @Test(arguments: Backend.allCases)
    func aNotModifiedCheckThatMovesTheFeedRecordsBothAndAFailureKeepsTheEpisodes(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: nil, at: t0, backlog: nil)
            _ = try await store.apply(check(feed, [episode("e1")]))
            let target = URL(string: "https://b.example/feed")!
            let moved = try await store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: t0.addingTimeInterval(60), status: 304, result: .notModified,
                    movedTo: target, nextCheckAt: t0.addingTimeInterval(3600),
                    nextCheckReason: .cadence(interval: .seconds(3600), basis: .noRhythmYet)))
            #expect(moved.movedTo == target)
            let afterMove = try #require(try await store.subscription(id: feed.id))
            #expect(afterMove.url == target)
            #expect(afterMove.movedFrom == URL(string: "https://a.example/feed")!)
            #expect(afterMove.lastStatus == 304)
            #expect(afterMove.lastSuccessAt == t0.addingTimeInterval(60))

            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: t0.addingTimeInterval(120), status: 500,
                    result: .failed(kind: "http-status", message: "server error"),
                    nextCheckAt: t0.addingTimeInterval(600), nextCheckReason: .backoff(failures: 1)))
            let failed = try #require(try await store.subscription(id: feed.id))
            #expect(failed.failureCount == 1)
            #expect(failed.lastError == "server error")
            #expect(try await store.episodeCounts() == [feed.id: 1], "a failure deletes nothing")
        }
    }

    @Test(arguments: Backend.allCases)
    func mergingTheSameCheckTwiceAnnouncesNoEpisodeTwice(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: nil, at: t0, backlog: nil)
            let same = check(feed, [episode("e1"), episode("e2")])
            #expect(try await store.apply(same).newEpisodes.count == 2)
            let again = try await store.apply(same)
            #expect(again.newEpisodes.isEmpty, "announced: \(again.newEpisodes.map(\.key))")
            #expect(again.updatedCount == 0)
            #expect(try await store.episodeCounts() == [feed.id: 2])
        }
    }

    @Test(arguments: Backend.allCases)
    func aFeedThatDropsEpisodesDeletesNothingAndAChangedEpisodeIsUpdated(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: nil, at: t0, backlog: nil)
            _ = try await store.apply(check(feed, [episode("e1"), episode("e2"), episode("e3")]))
            let later = t0.addingTimeInterval(3600)
            let shorter = try await store.apply(check(feed, [episode("e3", title: "e3, retitled")], at: later))
            #expect(shorter.newEpisodes.isEmpty)
            #expect(shorter.updatedCount == 1)
            let stored = try await store.episodes(EpisodeQuery(subscriptionID: feed.id))
            #expect(Set(stored.map(\.key)) == ["e1", "e2", "e3"], "episodes the feed dropped are kept")
            #expect(stored.first { $0.key == "e3" }?.episode.title == "e3, retitled")
            #expect(stored.first { $0.key == "e3" }?.lastSeenAt == later)
            #expect(stored.first { $0.key == "e1" }?.lastSeenAt == t0)

            let failed = FeedCheck(
                subscriptionID: feed.id, checkedAt: later, status: 500,
                result: .failed(kind: "http", message: "HTTP 500"))
            #expect(try await store.apply(failed) == MergeSummary())
            #expect(try await store.episodeCounts() == [feed.id: 3], "a failed check deletes nothing")
            let afterFailure = try #require(try await store.subscription(id: feed.id))
            #expect(afterFailure.failureCount == 1)
            #expect(afterFailure.lastError == "HTTP 500")
        }
    }

    @Test(arguments: Backend.allCases)
    func aNewSubscriptionAnnouncesOnlyItsNewestEpisodesAndKeepsTheRestAsBackCatalogue(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: nil, at: t0, backlog: nil)
            let episodes = (1...4).map { episode("e\($0)", published: t0.addingTimeInterval(Double($0))) }
            let summary = try await store.apply(check(feed, episodes, runID: nil, announceLimit: 1))
            #expect(summary.newEpisodes.map(\.key) == ["e4"])
            #expect(summary.backlogCount == 3)
            #expect(try await store.episodeCounts() == [feed.id: 4])
        }
    }
}

/// `podcast:liveItem`s as both stores keep them: stored with their status, said once when they go live, and the same
/// episode, not a new one, once the recording is an ordinary item.
struct LiveItemStoreTests {
    static func live(_ status: LiveItem.Status?) -> ParsedEpisode {
        var item = episode("live-1", title: "Live Q&A")
        item.live = status.map {
            LiveItem(
                status: $0, start: t0.addingTimeInterval(3600), end: nil,
                contentLinks: [LiveItem.ContentLink(hrefString: "https://video.example/1", text: "Video")])
        }
        return item
    }

    @Test(arguments: Backend.allCases)
    func aLiveItemIsStoredSaidOnceWhenLiveAndItsRecordingIsTheSameEpisode(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            let pending = try await store.apply(check(feed, [Self.live(.pending), episode("e1")]))
            #expect(pending.newEpisodes.map(\.key) == ["live-1", "e1"], "announced once, when first seen")
            #expect(pending.wentLive.isEmpty)
            let stored = try await store.episodes(EpisodeQuery(subscriptionID: feed.id))
            #expect(stored.first { $0.key == "live-1" }?.episode.live == Self.live(.pending).live)
            #expect(stored.first { $0.key == "e1" }?.episode.live == nil)

            let live = try await store.apply(check(feed, [Self.live(.live), episode("e1")], at: t0 + 60))
            #expect(live.wentLive.map(\.key) == ["live-1"] && live.newEpisodes.isEmpty)
            let still = try await store.apply(check(feed, [Self.live(.live), episode("e1")], at: t0 + 120))
            #expect(still.wentLive.isEmpty, "unchanged: not said again")
            var retitled = Self.live(.live)
            retitled.title = "Live Q&A, now with a guest"
            let changed = try await store.apply(check(feed, [retitled, episode("e1")], at: t0 + 150))
            #expect(changed.updatedCount == 1)
            #expect(changed.wentLive.isEmpty, "retitled while live: the same stream, not said again")

            let recorded = try await store.apply(check(feed, [Self.live(nil), episode("e1")], at: t0 + 180))
            #expect(recorded.newEpisodes.isEmpty && recorded.wentLive.isEmpty, "not announced twice")
            let after = try await store.episodes(EpisodeQuery(subscriptionID: feed.id))
            #expect(after.filter { $0.key == "live-1" }.count == 1)
            #expect(after.first { $0.key == "live-1" }?.episode.live == nil)
        }
    }
}
