import FeedModels
import FeedStorage
import Foundation
import TestSupport
import Testing

/// The SQLite migration "sync: episode actions" on a database the previous podfresh left.
struct EpisodeActionMigrationTests {
    @Test func aDatabaseWithSyncButNoEpisodeActionsIsUpgradedKeepingItsSetUp() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("podfresh.sqlite")
        _ = try FeedStore(path: path)
        // Given a database as the previous podfresh left it: sync set up with a cursor, no episode-action tables …
        let sql = """
            DROP TABLE episodePlay; DROP TABLE syncActionOutbox; DROP TABLE episodeActionWaiting;
            ALTER TABLE syncAccount DROP COLUMN actionsCursor;
            ALTER TABLE subscription DROP COLUMN deletePlayed;
            DELETE FROM grdb_migrations WHERE identifier = 'sync: episode actions';
            INSERT INTO subscription (id, url, addedAt) VALUES (3, 'https://a.example/feed', 1730000000);
            INSERT INTO syncAccount (singleton, server, user, device, api, subscriptionsCursor)
              VALUES (1, 'https://gpodder.example.org', 'alice', 'box', 'gpodder', 42);
            PRAGMA wal_checkpoint(TRUNCATE);
            """
        let run = try await runProcess("/usr/bin/sqlite3", arguments: [path, sql])
        #expect(run.status == .exited(0), "\(run.standardError)")
        // … a writer upgrades it: the set-up and its cursor stay, episode actions start from nothing.
        let store = try FeedStore(path: path)
        let state = try #require(try await store.syncState())
        #expect(state.subscriptionsCursor == 42 && state.actionsCursor == nil)
        #expect(try await store.subscription(id: 3)?.deletePlayed == false)
        #expect(try await store.pendingEpisodeActionCount() == 0)
        #expect(try await store.playStates(subscriptionID: nil).isEmpty)
    }
}
