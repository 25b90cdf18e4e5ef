import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import PostgresStorage
import TestSupport
import Testing

/// The PostgreSQL schema: created on first use, versioned, safe to start at once, and refused when newer.
@Suite(.serialized)
struct PostgresSchemaTests {
    @Test func theFirstUseCreatesTheSchemaAtTheCurrentVersion() async throws {
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "schema")
        let database = try #require(URL(string: url)).lastPathComponent
        try await PostgresFeedStore.withStore(url: url) { _ in }
        #expect(
            try await cluster.psql(database: database, "SELECT version FROM podfresh_schema")
                == "\(PostgresFeedStore.schemaVersion)")
        // A second start finds the work done and changes nothing.
        try await PostgresFeedStore.withStore(url: url) { _ in }
        #expect(try await cluster.psql(database: database, "SELECT count(*) FROM podfresh_schema") == "1")
    }

    @Test func aDatabaseWithANewerSchemaIsRefusedUntouched() async throws {
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "newer")
        let database = try #require(URL(string: url)).lastPathComponent
        try await PostgresFeedStore.withStore(url: url) { store in
            _ = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: nil, at: Date(), backlog: nil)
        }
        let newer = PostgresFeedStore.schemaVersion + 1
        try await cluster.psql(database: database, "UPDATE podfresh_schema SET version = \(newer)")

        await #expect {
            try await PostgresFeedStore.withStore(url: url) { _ in Issue.record("a newer schema was opened") }
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            guard case .newerSchema(_, let version, let known) = error.reason else { return false }
            return error.kind == .database && version == newer && known == PostgresFeedStore.schemaVersion
        }
        #expect(try await cluster.psql(database: database, "SELECT version FROM podfresh_schema") == "\(newer)")
        #expect(try await cluster.psql(database: database, "SELECT count(*) FROM subscription") == "1")
    }

    @Test func workersStartingAtOnceMigrateOnceWithoutFailing() async throws {
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "race")
        let database = try #require(URL(string: url)).lastPathComponent
        let workers = 6
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    try await PostgresFeedStore.withStore(url: url, maximumConnections: 2) { store in
                        _ = try await store.addSubscription(
                            url: URL(string: "https://a.example/\(worker)")!, title: nil, at: Date(), backlog: nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(
            try await cluster.psql(database: database, "SELECT version FROM podfresh_schema")
                == "\(PostgresFeedStore.schemaVersion)")
        #expect(try await cluster.psql(database: database, "SELECT count(*) FROM subscription") == "\(workers)")
    }

    @Test func twoWorkersMergingTheSameCheckAtOnceAnnounceEachEpisodeOnce() async throws {
        let url = try await TestPostgres.shared().makeDatabase(prefix: "twice")
        let feedURL = URL(string: "https://a.example/feed")!
        let subscription = try await PostgresFeedStore.withStore(url: url) { store in
            try await store.addSubscription(url: feedURL, title: nil, at: Date(), backlog: nil)
        }
        let episodes = (1...20).map { ParsedEpisode(id: "e\($0)", guid: "e\($0)", title: "Episode \($0)") }
        let check = FeedCheck(
            subscriptionID: subscription.id, checkedAt: Date(timeIntervalSince1970: 1_730_000_000), status: 200,
            result: .fetched(
                ParsedFeed(format: .rss2, title: "Show", episodes: episodes), etag: nil, lastModified: nil,
                unconditional: true))
        let announced = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await PostgresFeedStore.withStore(url: url) { store in
                        try await store.apply(check).newEpisodes.map(\.key)
                    }
                }
            }
            var all: [String] = []
            for try await keys in group { all += keys }
            return all
        }
        #expect(announced.sorted() == episodes.map(\.id).sorted(), "each episode announced by exactly one worker")
    }

    @Test func aDatabaseOfSchemaVersion3IsUpgradedToDownloadsKeepingEverything() async throws {
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "upgrade")
        let database = try #require(URL(string: url)).lastPathComponent
        let t0 = Date(timeIntervalSince1970: 1_730_000_000)
        let subscription = try await PostgresFeedStore.withStore(url: url) { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: 4)
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: t0, status: 200,
                    result: .fetched(
                        ParsedFeed(format: .rss2, title: "Show", episodes: [ParsedEpisode(id: "e1", title: "One")]),
                        etag: "\"v1\"", lastModified: nil, unconditional: true)))
            return feed
        }
        // Given the database as schema version 3 left it (no download columns, no download table, no podping
        // tables, no sync tables, no episode actions, no settings for new feeds) …
        try await cluster.psql(
            database: database,
            """
            DROP TABLE new_feed_settings;
            DROP TABLE episode_play, sync_action_outbox, episode_action_waiting;
            DROP TABLE sync_account, sync_known_feed;
            DROP TABLE podping_feed, podping_cursor;
            DROP TABLE download_lease, check_pass, download;
            ALTER TABLE subscription DROP COLUMN downloads_enabled, DROP COLUMN keep_newest,
              DROP COLUMN download_directory, DROP COLUMN file_name_template, DROP COLUMN podping_recheck_before,
              DROP COLUMN podping_cooldown, DROP COLUMN delete_played, DROP COLUMN download_filter,
              DROP COLUMN extras, DROP COLUMN last_body_digest, DROP COLUMN last_whole_read_at,
              DROP COLUMN publication_model, DROP COLUMN ended_early, DROP COLUMN downloads_since,
              DROP COLUMN download_backlog, DROP COLUMN tag_mode;
            ALTER TABLE refresh_run DROP COLUMN feeds_read_short;
            ALTER TABLE episode DROP COLUMN live_item;
            UPDATE podfresh_schema SET version = 3;
            """)
        // … the next start upgrades it, losing nothing.
        try await PostgresFeedStore.withStore(url: url) { store in
            let upgraded = try #require(try await store.subscription(id: subscription.id))
            #expect(upgraded.title == "Show" && upgraded.etag == "\"v1\"" && upgraded.backlog == 4)
            #expect(!upgraded.downloadsEnabled && upgraded.keepNewest == nil)
            #expect(try await store.episodes(EpisodeQuery(subscriptionID: subscription.id)).map(\.key) == ["e1"])
            let on = try await store.updateDownloadSettings(
                id: subscription.id, DownloadSettings(enabled: true, keepNewest: .set(3)))
            #expect(on.downloadsEnabled && on.keepNewest == 3)
            try await store.recordDownloadCompleted(
                DownloadCompletion(
                    subscriptionID: subscription.id, episodeKey: "e1", filePath: "/d/e1.mp3", bytes: 10,
                    url: URL(string: "https://cdn.example/e1.mp3")!, downloadedAt: t0))
            #expect(try await store.totalDownloadUsage() == DownloadUsage(files: 1, bytes: 10))
        }
        #expect(
            try await cluster.psql(database: database, "SELECT version FROM podfresh_schema")
                == "\(PostgresFeedStore.schemaVersion)")
    }

    @Test func anUnreachableServerIsADatabaseErrorNamingHostAndPort() async throws {
        let port = closedLoopbackPort()
        await #expect {
            try await PostgresFeedStore.withStore(url: "postgres://podfresh@127.0.0.1:\(port)/none?sslmode=disable") {
                _ in
            }
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            switch error.reason {
            case .postgresUnreachable("127.0.0.1", port, .connectionRefused, nil), .postgresLost("127.0.0.1", port, _):
                return error.kind == .database
            default: return false
            }
        }
    }

    @Test func aMissingDatabaseSaysSo() async throws {
        let cluster = try await TestPostgres.shared()
        await #expect {
            try await PostgresFeedStore.withStore(url: cluster.url(database: "no_such_database")) { _ in }
        } throws: { error in
            guard case .postgres(_, sqlState: "3D000", _)? = (error as? StoreError)?.reason else { return false }
            return true
        }
    }
}
