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
}
