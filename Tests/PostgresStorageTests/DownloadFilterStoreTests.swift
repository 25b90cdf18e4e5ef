import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import PostgresStorage
import TestSupport
import Testing

/// A feed's download filters and its extras switch, stored alike by both stores (`podfresh set FEED --include …
/// --extras on`).
@Suite(.serialized)
struct DownloadFilterStoreTests {
    private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

    @Test(arguments: Backend.allCases)
    func filtersAndExtrasAreStoredReadBackAndCleared(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            #expect(feed.downloadFilter == .none && !feed.extras, "no filter and no extras by default")
            #expect(try await store.subscription(id: feed.id)?.downloadFilter == DownloadFilter.none)

            var change = DownloadSettings(enabled: true)
            change.include = ["full episode", "interview"]
            change.exclude = ["trailer"]
            change.match = .description
            change.minimumDuration = .set(600)
            change.extras = true
            let set = try await store.updateDownloadSettings(id: feed.id, change)
            let expected = DownloadFilter(
                include: ["full episode", "interview"], exclude: ["trailer"], match: .description,
                minimumDuration: 600)
            #expect(set.downloadFilter == expected)
            #expect(set.extras && set.downloadsEnabled)
            #expect(try await store.subscription(id: feed.id) == set, "read back as returned")
            #expect(try await store.subscriptions().first == set)

            // Another setting leaves the filters and extras as they are.
            let kept = try await store.updateDownloadSettings(id: feed.id, DownloadSettings(keepNewest: .set(3)))
            #expect(kept.downloadFilter == expected && kept.extras)

            // Replacing one list, then clearing them all; extras off.
            var exclude = DownloadSettings()
            exclude.exclude = ["bonus"]
            #expect(try await store.updateDownloadSettings(id: feed.id, exclude).downloadFilter.exclude == ["bonus"])
            var clear = DownloadSettings()
            clear.clearFilters = true
            clear.extras = false
            let cleared = try await store.updateDownloadSettings(id: feed.id, clear)
            #expect(cleared.downloadFilter == .none && !cleared.extras)
            #expect(try await store.subscription(id: feed.id)?.downloadFilter == DownloadFilter.none)
        }
    }

    @Test(arguments: Backend.allCases)
    func anEpisodesExtraFilesAreStoredWithItsDownloadReadBackAndCleared(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            let episode = ParsedEpisode(
                id: "e1", guid: "e1", title: "One", published: t0,
                enclosures: [Enclosure(url: URL(string: "https://cdn.example.com/e1.mp3")!, type: "audio/mpeg")])
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: t0, status: 200,
                    result: .fetched(
                        ParsedFeed(format: .rss2, title: "Show", episodes: [episode]), etag: nil, lastModified: nil,
                        unconditional: true)))
            let files = [
                ExtraFile(
                    kind: .transcript, url: URL(string: "https://cdn.example.com/e1.vtt")!, path: "/d/One.vtt",
                    bytes: 120),
                ExtraFile(kind: .chapters, url: URL(string: "https://cdn.example.com/e1.json")!)
                    .failed(error: #"{"download":{}}"#, at: t0),
            ]
            // No download record yet: nothing to attach them to.
            #expect(try await !store.recordExtraFiles(subscriptionID: feed.id, episodeKey: "e1", files))
            #expect(try await store.extraFiles(subscriptionID: feed.id).isEmpty)

            try await store.recordDownloadStarted(
                DownloadStart(
                    subscriptionID: feed.id, episodeKey: "e1", url: URL(string: "https://cdn.example.com/e1.mp3")!,
                    partPath: "/d/One.mp3.part", filePath: "/d/One.mp3", startedAt: t0))
            #expect(try await store.recordExtraFiles(subscriptionID: feed.id, episodeKey: "e1", files))
            let stored = try await store.extraFiles(subscriptionID: feed.id)
            #expect(stored == ["e1": files])
            #expect(stored["e1"]?[1].retryAfter == t0.addingTimeInterval(DownloadBackoff.wait(afterFailures: 1)))

            // A change of the download record keeps them; an empty list forgets them.
            try await store.recordDownloadCompleted(
                DownloadCompletion(
                    subscriptionID: feed.id, episodeKey: "e1", filePath: "/d/One.mp3", bytes: 10,
                    url: URL(string: "https://cdn.example.com/e1.mp3")!, downloadedAt: t0))
            #expect(try await store.extraFiles(subscriptionID: feed.id) == ["e1": files])
            #expect(try await store.recordExtraFiles(subscriptionID: feed.id, episodeKey: "e1", []))
            #expect(try await store.extraFiles(subscriptionID: feed.id).isEmpty)
        }
    }
}
