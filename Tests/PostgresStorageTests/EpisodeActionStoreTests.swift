import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import PostgresStorage
import TestSupport
import Testing

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)
private let setup = SyncSetup(
    server: URL(string: "https://gpodder.example.org")!, user: "alice", device: "box", api: .gpodder)

private func episode(_ id: String, hoursAgo age: Double) -> ParsedEpisode {
    ParsedEpisode(
        id: id, guid: id, title: id, published: t0.addingTimeInterval(-age * 3600),
        enclosures: [Enclosure(url: URL(string: "https://cdn.example.com/\(id).mp3")!, length: 10, type: "audio/mpeg")])
}

private func fetched(_ feed: Subscription, _ ids: [String]) -> FeedCheck {
    FeedCheck(
        subscriptionID: feed.id, checkedAt: t0, status: 200,
        result: .fetched(
            ParsedFeed(
                format: .rss2, title: "Show",
                episodes: ids.enumerated().map { episode($0.element, hoursAgo: Double($0.offset)) }),
            etag: nil, lastModified: nil, unconditional: true))
}

private func play(_ id: String, _ position: Int, of total: Int, at: Date, guid: Bool = true) -> EpisodeAction {
    EpisodeAction(
        podcast: "https://A.example/feed", episode: "https://cdn.example.com/\(id).mp3", guid: guid ? id : nil,
        kind: .play, timestamp: at, position: position, total: total, device: "phone")
}

typealias ActionStore = SpecifiedStore & EpisodeActionRepository & SyncRepository

/// Episode actions in both stores (issue #35, part 3): play states from pulls (latest wins, matched by guid or media
/// URL), actions waiting for their episode, the outbox a completed download fills, and `--unplayed`.
@Suite(.serialized)
struct EpisodeActionStoreTests {
    func withActionStore(_ backend: Backend, _ body: (any ActionStore) async throws -> Void) async throws {
        try await backend.withStore { store in try await body(try #require(store as? any ActionStore)) }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func aMarkMadeHereSetsThePlayStateAndWithSyncGoesToTheOutboxOnce(_ backend: Backend) async throws {
        try await withActionStore(backend) { store in
            let marking = try #require(store as? any EpisodeMarkRepository)
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            _ = try await store.apply(fetched(feed, ["e1", "e2"]))
            let episodes = try await store.episodes(EpisodeQuery(subscriptionID: feed.id))
            func marks(played: Bool) -> [LocalEpisodeMark] {
                episodes.map { LocalEpisodeMark.mark($0, feedURL: feed.url, played: played, at: t0) }
            }
            // Without sync: the state only.
            #expect(try await marking.markEpisodes(Array(marks(played: true).prefix(1)), at: t0) == 1)
            #expect(try await store.pendingEpisodeActionCount() == 0)
            #expect(try await store.episodes(EpisodeQuery(unplayedOnly: true)).count == 1)

            // With sync: a play to the end goes out, once; the one already played changes nothing.
            try await store.setUpSync(setup, password: nil)
            #expect(try await marking.markEpisodes(marks(played: true), at: t0) == 1)
            let pending = try await store.pendingEpisodeActions(limit: 10)
            #expect(pending.count == 1)
            let action = try #require(pending.first?.action)
            #expect(action.kind == .play && action.position != nil && action.position == action.total)
            #expect(action.podcast == feed.url.absoluteString && action.guid != nil)
            #expect(action.episode.hasPrefix("https://cdn.example.com/"))
            let states = try await store.playStates(subscriptionID: feed.id)
            #expect(states.values.allSatisfy { $0.played && $0.device == LocalEpisodeMark.device })
            #expect(try await store.episodes(EpisodeQuery(unplayedOnly: true)).isEmpty)

            // Unplayed: `new` for both.
            #expect(try await marking.markEpisodes(marks(played: false), at: t0.addingTimeInterval(60)) == 2)
            #expect(try await store.pendingEpisodeActions(limit: 10).map(\.action.kind) == [.play, .new, .new])
            #expect(try await store.episodes(EpisodeQuery(unplayedOnly: true)).count == 2)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func pullsSetPlayStatesTheLatestWinsAndTheCursorMovesWithThem(_ backend: Backend) async throws {
        try await withActionStore(backend) { store in
            try await store.setUpSync(setup, password: nil)
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            _ = try await store.apply(fetched(feed, ["e1", "e2", "e3"]))
            let summary = try await store.applyPulledEpisodeActions(
                [
                    play("e1", 100, of: 1800, at: t0), play("e1", 1790, of: 1800, at: t0.addingTimeInterval(60)),
                    play("e2", 50, of: 1800, at: t0, guid: false),
                    play("e9", 10, of: 1800, at: t0),
                    EpisodeAction(
                        podcast: "https://a.example/feed", episode: "https://cdn.example.com/e3.mp3", kind: .download,
                        timestamp: t0, device: "box"),
                ], cursor: 42, ownDevice: "box", at: t0)
            #expect(summary == PulledActionsSummary(received: 5, applied: 2, played: 1, waiting: 1, unchanged: 2))
            #expect(try await store.syncState()?.actionsCursor == 42)
            let states = try await store.playStates(subscriptionID: feed.id)
            let e1 = try #require(states[EpisodeRef(subscriptionID: feed.id, episodeKey: "e1")])
            #expect(e1.played && e1.position == 1790 && e1.playedAt == t0.addingTimeInterval(60))
            #expect(states[EpisodeRef(subscriptionID: feed.id, episodeKey: "e2")]?.position == 50)
            #expect(try await store.countEpisodes(EpisodeQuery(unplayedOnly: true)) == 2)
            #expect(try await store.episodes(EpisodeQuery(unplayedOnly: true)).map(\.key) == ["e2", "e3"])
            // An older action does not undo a newer one.
            _ = try await store.applyPulledEpisodeActions(
                [play("e1", 10, of: 1800, at: t0)], cursor: 43, ownDevice: "box", at: t0)
            #expect(
                try await store.playStates(subscriptionID: nil)[EpisodeRef(subscriptionID: feed.id, episodeKey: "e1")]?
                    .played == true)
            // The episode e9 waits; stored later, it is matched.
            #expect(try await store.waitingEpisodeActions().map(\.action.guid) == ["e9"])
            _ = try await store.apply(fetched(feed, ["e1", "e2", "e3", "e9"]))
            let later = try await store.applyWaitingEpisodeActions(subscriptionID: feed.id, at: t0)
            #expect(later.applied == 1)
            #expect(try await store.waitingEpisodeActions().isEmpty)
            #expect(
                try await store.playStates(subscriptionID: feed.id)[
                    EpisodeRef(subscriptionID: feed.id, episodeKey: "e9")]?.position == 10)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func aCompletedDownloadFillsTheOutboxOnlyWhenSyncIsSetUpAndLeavesItOncePushed(_ backend: Backend) async throws {
        try await withActionStore(backend) { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            _ = try await store.apply(fetched(feed, ["e1", "e2"]))
            func download(_ key: String) async throws {
                try await store.recordDownloadStarted(
                    DownloadStart(
                        subscriptionID: feed.id, episodeKey: key, url: URL(string: "https://media.example/\(key)")!,
                        partPath: "/d/\(key).part", filePath: "/d/\(key)", startedAt: t0))
                try await store.recordDownloadCompleted(
                    DownloadCompletion(
                        subscriptionID: feed.id, episodeKey: key, filePath: "/d/\(key)", bytes: 5,
                        url: URL(string: "https://media.example/\(key)")!, downloadedAt: t0.addingTimeInterval(5)))
            }
            try await download("e1")
            #expect(try await store.pendingEpisodeActionCount() == 0, "no sync set up: nothing to push")
            try await store.setUpSync(setup, password: nil)
            try await download("e2")
            let pending = try await store.pendingEpisodeActions(limit: 10)
            #expect(
                pending.map(\.action) == [
                    EpisodeAction(
                        podcast: "https://a.example/feed", episode: "https://cdn.example.com/e2.mp3", guid: "e2",
                        kind: .download, timestamp: t0.addingTimeInterval(5))
                ], "the feed's enclosure URL, not where it redirected")
            #expect(pending.first?.ref == EpisodeRef(subscriptionID: feed.id, episodeKey: "e2"))
            try await store.recordEpisodeActionsPushed(ids: pending.map(\.id))
            #expect(try await store.pendingEpisodeActionCount() == 0)
            // Forgetting the set-up forgets the outbox too.
            let first = try #require(pending.first)
            try await store.queueEpisodeAction(first.action, for: first.ref)
            #expect(try await store.pendingEpisodeActionCount() == 1)
            try await store.removeSync()
            #expect(try await store.pendingEpisodeActionCount() == 0)
        }
    }
}
