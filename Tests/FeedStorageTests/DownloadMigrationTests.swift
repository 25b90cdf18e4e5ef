import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import TestSupport
import Testing

private func sqlite(_ path: String, _ sql: String) async throws -> String {
    let sqlite3 = try await runProcess("/usr/bin/sqlite3", arguments: [path, sql])
    #expect(sqlite3.status == .exited(0), "sqlite3 \(sql): \(sqlite3.standardError)")
    return sqlite3.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The SQLite migration that adds download settings and records.
struct DownloadMigrationTests {
    @Test func aDatabaseOfThePreviousVersionIsUpgradedKeepingEverything() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("podfresh.sqlite")
        _ = try FeedStore(path: path)
        // Given a database as the previous podfresh left it (no download columns, no download table, its last
        // migration the URL normalisation), holding a subscription with state, an episode and a run …
        _ = try await sqlite(
            path,
            """
            DROP TABLE download;
            ALTER TABLE subscription DROP COLUMN downloadsEnabled;
            ALTER TABLE subscription DROP COLUMN keepNewest;
            ALTER TABLE subscription DROP COLUMN downloadDirectory;
            ALTER TABLE subscription DROP COLUMN fileNameTemplate;
            DELETE FROM grdb_migrations WHERE identifier IN ('v5: downloads', 'v6: broken links wait');
            INSERT INTO subscription (id, url, title, addedAt, etag, failureCount, backlog)
              VALUES (7, 'https://a.example/feed', 'Show', 1730000000, '"v1"', 2, 3);
            INSERT INTO episode (subscriptionId, key, fingerprint, title, enclosures, transcripts, persons,
                alternateEnclosures, firstSeenAt, lastSeenAt)
              VALUES (7, 'e1', 'f', 'One', '[]', '[]', '[]', '[]', 1730000000, 1730000000);
            INSERT INTO refreshRun (startedAt, endedAt, feedsChecked) VALUES (1730000000, 1730000005, 1);
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        #expect(try await sqlite(path, "SELECT count(*) FROM sqlite_master WHERE name = 'download'") == "0")

        // … a reader refuses to upgrade it without being allowed to, and a writer upgrades it losing nothing.
        #expect(throws: StoreError.self) { _ = try FeedStore.openForReading(path: path) }
        let store = try FeedStore(path: path)
        let subscription = try #require(try await store.subscription(id: 7))
        #expect(subscription.title == "Show")
        #expect(subscription.etag == "\"v1\"")
        #expect(subscription.failureCount == 2)
        #expect(subscription.backlog == 3)
        #expect(!subscription.downloadsEnabled, "downloads are off until set")
        #expect(subscription.keepNewest == nil && subscription.downloadDirectory == nil)
        #expect(subscription.fileNameTemplate == nil)
        #expect(try await store.episodes(EpisodeQuery(subscriptionID: 7)).map(\.key) == ["e1"])
        #expect(try await store.lastRun()?.feedsChecked == 1)
        #expect(try await store.downloadUsage().isEmpty)

        // The new parts work on the upgraded file.
        let on = try await store.updateDownloadSettings(id: 7, DownloadSettings(enabled: true, keepNewest: .set(2)))
        #expect(on.downloadsEnabled && on.keepNewest == 2)
        try await store.recordDownloadCompleted(
            DownloadCompletion(
                subscriptionID: 7, episodeKey: "e1", filePath: "/d/e1.mp3", bytes: 10,
                url: URL(string: "https://cdn.example/e1.mp3")!,
                downloadedAt: Date(timeIntervalSince1970: 1_730_000_100)
            ))
        #expect(try await store.download(subscriptionID: 7, episodeKey: "e1")?.isOnDisk == true)
        #expect(try await store.integrityCheck() == "ok")
        #expect(try await sqlite(path, "PRAGMA foreign_key_check") == "")
    }

    @Test func feedsWhoseDownloadsWereOnKeepTakingEveryEpisodeAndOthersStartFromWhenTurnedOn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("podfresh.sqlite")
        _ = try FeedStore(path: path)
        // Given a database as the podfresh before "downloads from now on" left it: one feed with downloads on, one
        // with them off …
        _ = try await sqlite(
            path,
            """
            ALTER TABLE subscription DROP COLUMN downloadsSince;
            ALTER TABLE subscription DROP COLUMN downloadBacklog;
            DELETE FROM grdb_migrations WHERE identifier = 'downloads from now on';
            INSERT INTO subscription (id, url, title, addedAt, downloadsEnabled)
              VALUES (1, 'https://a.example/on', 'On', 1730000000, 1), (2, 'https://a.example/off', 'Off', 1730000000, 0);
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        let store = try FeedStore(path: path)
        // … the feed whose downloads were on downloads what it did: every episode.
        let on = try #require(try await store.subscription(id: 1))
        #expect(on.downloadsEnabled && on.downloadsSince == nil)
        #expect(DownloadPlan.downloadsFrom(on) == nil)
        // The other starts from the moment its downloads are turned on, with the newest episode before.
        var settings = DownloadSettings(enabled: true)
        settings.changedAt = Date(timeIntervalSince1970: 1_730_000_500)
        let turnedOn = try await store.updateDownloadSettings(id: 2, settings)
        #expect(turnedOn.downloadsSince == settings.changedAt && turnedOn.downloadBacklog == 1)
        #expect(DownloadPlan.downloadsFrom(turnedOn)?.backlog == 1)
        var all = DownloadSettings()
        all.backlog = .all
        #expect(try await store.updateDownloadSettings(id: 2, all).downloadBacklog == nil)
        #expect(try await store.integrityCheck() == "ok")
    }
}
