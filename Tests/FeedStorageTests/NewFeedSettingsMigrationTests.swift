import FeedModels
import FeedStorage
import Foundation
import TestSupport
import Testing

/// The SQLite migration "settings for new feeds" on a database the previous podfresh left.
struct NewFeedSettingsMigrationTests {
    @Test func aDatabaseWithoutThemIsUpgradedAndItsFeedsKeepTheirSettings() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("podfresh.sqlite")
        _ = try FeedStore(path: path)
        // Given a database as the previous podfresh left it: no table of settings for new feeds, one feed …
        let sql = """
            DROP TABLE newFeedSettings;
            DELETE FROM grdb_migrations WHERE identifier = 'settings for new feeds';
            INSERT INTO subscription (id, url, addedAt, downloadsEnabled, keepNewest)
              VALUES (1, 'https://a.example/feed', 1730000000, 1, 2);
            PRAGMA wal_checkpoint(TRUNCATE);
            """
        let run = try await runProcess("/usr/bin/sqlite3", arguments: [path, sql])
        #expect(run.status == .exited(0), "\(run.standardError)")
        // … a writer upgrades it: new feeds start with the defaults until set, and the feed keeps its own.
        let store = try FeedStore(path: path)
        #expect(try await store.newFeedSettings() == nil)
        let feed = try #require(try await store.subscription(id: 1))
        #expect(feed.downloadsEnabled && feed.keepNewest == 2)
        try await store.updateNewFeedSettings(DownloadSettings(enabled: true))
        let added = try await store.addSubscription(
            url: URL(string: "https://a.example/new")!, title: nil, at: Date(), backlog: nil)
        #expect(added.downloadsEnabled && added.keepNewest == nil)
        #expect(try await store.subscription(id: 1) == feed)
        #expect(try await store.integrityCheck() == "ok")
    }
}
