import FeedModels
import Foundation
import Testing

private let added = Date(timeIntervalSince1970: 1_730_000_000)

/// The settings new subscriptions start with (`set --new-feeds`), on both stores: kept, changed like a feed's,
/// forgotten, and given to every subscription added after them in the transaction that adds it.
@Suite(.serialized)
struct NewFeedSettingsStoreTests {
    /// The change `set --new-feeds --download on --keep 3 --dir /srv/podcasts --exclude trailer --extras on` makes.
    static var change: DownloadSettings {
        var change = DownloadSettings(enabled: true, keepNewest: .set(3), directory: .set("/srv/podcasts"))
        change.exclude = ["trailer"]
        change.extras = true
        return change
    }

    @Test(arguments: Backend.allCases)
    func aStoreStartsWithNoneKeepsAChangeAndForgetsIt(backend: Backend) async throws {
        try await backend.withStore { store in
            #expect(try await store.newFeedSettings() == nil)
            let stored = try await store.updateNewFeedSettings(Self.change)
            #expect(stored.downloadsEnabled && stored.keepNewest == 3 && stored.directory == "/srv/podcasts")
            #expect(stored.filter.exclude == ["trailer"] && stored.extras && stored.backlog == 1)
            #expect(try await store.newFeedSettings() == stored)

            // A later change keeps what it does not name, as `set FEED` does.
            var more = DownloadSettings(keepNewest: .reset)
            more.backlog = .newest(2)
            let changed = try await store.updateNewFeedSettings(more)
            #expect(changed.downloadsEnabled && changed.keepNewest == nil && changed.backlog == 2)
            #expect(changed.filter.exclude == ["trailer"])
            #expect(try await store.newFeedSettings() == changed)

            #expect(try await store.resetNewFeedSettings())
            #expect(try await store.newFeedSettings() == nil)
            #expect(try await store.resetNewFeedSettings() == false)
        }
    }

    @Test(arguments: Backend.allCases)
    func aSubscriptionAddedAfterThemStartsWithThemAndOnesBeforeKeepTheirs(backend: Backend) async throws {
        try await backend.withStore { store in
            let before = try await store.addSubscription(
                url: URL(string: "https://a.example/before.xml")!, title: nil, at: added, backlog: nil)
            try await store.updateNewFeedSettings(Self.change)
            let after = try await store.addSubscription(
                url: URL(string: "https://a.example/after.xml")!, title: nil, at: added, backlog: nil)

            #expect(after.downloadsEnabled && after.keepNewest == 3 && after.downloadDirectory == "/srv/podcasts")
            #expect(after.downloadFilter.exclude == ["trailer"] && after.extras && !after.deletePlayed)
            // Downloads from now on: from the moment it was added, and the newest one its first check finds.
            #expect(after.downloadsSince == added && after.downloadBacklog == 1)
            #expect(try await store.subscription(id: after.id) == after)

            let untouched = try #require(try await store.subscription(id: before.id))
            #expect(!untouched.downloadsEnabled && untouched.keepNewest == nil && untouched.downloadsSince == nil)

            // Forgotten: the next subscription starts with the defaults again.
            try await store.resetNewFeedSettings()
            let plain = try await store.addSubscription(
                url: URL(string: "https://a.example/plain.xml")!, title: nil, at: added, backlog: nil)
            #expect(!plain.downloadsEnabled && plain.keepNewest == nil && !plain.extras && plain.downloadsSince == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func everyEpisodeFromBeforeWhenTheBacklogIsAll(backend: Backend) async throws {
        try await backend.withStore { store in
            var change = DownloadSettings(enabled: true)
            change.backlog = .all
            #expect(try await store.updateNewFeedSettings(change).backlog == nil)
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/all.xml")!, title: nil, at: added, backlog: nil)
            #expect(feed.downloadsEnabled && feed.downloadBacklog == nil)
            #expect(DownloadPlan.downloadsFrom(feed) == nil, "every episode")
        }
    }
}
