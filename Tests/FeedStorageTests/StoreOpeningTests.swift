import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A folder in the temporary directory, removed by ``remove()``.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

private func sqlite(_ path: String, _ sql: String) async throws {
    let sqlite3 = try await runProcess("/usr/bin/sqlite3", arguments: [path, sql])
    #expect(sqlite3.status == .exited(0), "sqlite3 \(sql): \(sqlite3.standardError)")
}

private func files(in folder: TemporaryFolder) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
}

struct StoreOpeningTests {
    // MARK: - Another program's file

    @Test func anSQLiteFileOfAnotherProgramIsRefusedAndLeftByteIdentical() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("notes.sqlite")
        try await sqlite(
            path, "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note (body) VALUES ('keep me');")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        // Given another program's database, when podfresh opens it for writing or for reading, then it is refused …
        for open in [{ _ = try FeedStore(path: path) }, { _ = try FeedStore.openForReading(path: path) }] {
            #expect { try open() } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.kind == .database && error.reason == .notPodfreshDatabase(path: path)
                    && error.remedy == .useAnotherPath
            }
        }
        // … and the file is byte-identical, with no WAL files left beside it.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try files(in: folder) == ["notes.sqlite"])
    }

    @Test func aNewEmptyFileIsSetUpAsAPodfreshDatabase() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let store = try FeedStore(path: path)
        #expect(try await store.subscriptions().isEmpty)
        #expect(try await store.integrityCheck() == "ok")
    }

    // MARK: - Reading only

    @Test func openingAMissingFileForReadingCreatesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("not-yet/podfresh.sqlite")
        let store = try FeedStore.openForReading(path: path)
        #expect(try await store.subscriptions().isEmpty)
        #expect(try await store.episodes(EpisodeQuery()).isEmpty)
        #expect(try files(in: folder).isEmpty, "neither the folder nor the file was created")
    }

    @Test func openingForReadingNeverMigratesAnOlderDatabase() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("podfresh.sqlite")
        // Given a podfresh database that lacks this version's newest migration (as an older podfresh left it) …
        _ = try FeedStore(path: path)
        try await sqlite(
            path,
            "DELETE FROM grdb_migrations WHERE identifier = 'normalised subscription URLs'; PRAGMA wal_checkpoint(TRUNCATE);"
        )
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // … opening it for reading says what to do, and changes nothing.
        #expect { _ = try FeedStore.openForReading(path: path) } throws: { error in
            (error as? StoreError)?.reason == .olderSchema(path: path)
                && (error as? StoreError)?.remedy == .upgradeByWriting
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        // A writing open upgrades it.
        _ = try FeedStore(path: path)
        _ = try FeedStore.openForReading(path: path)
    }

    @Test func aReaderAskedToUpgradesAWritableOlderDatabaseOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("podfresh.sqlite")
        _ = try await FeedStore(path: path).addSubscription(
            url: URL(string: "https://a.example/feed")!, title: "A", at: t0)
        try await sqlite(
            path,
            "DELETE FROM grdb_migrations WHERE identifier = 'normalised subscription URLs'; PRAGMA wal_checkpoint(TRUNCATE);"
        )
        let reader = try FeedStore.openForReading(path: path, upgradingOlderSchema: true)
        #expect(try await reader.subscriptions().map(\.title) == ["A"])
        // Upgraded for good: a plain reader now opens it.
        await #expect(try FeedStore.openForReading(path: path).subscriptions().count == 1)
    }

    @Test func aReadingStoreCannotWrite() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("podfresh.sqlite")
        _ = try await FeedStore(path: path).addSubscription(
            url: URL(string: "https://a.example/feed")!, title: "A", at: t0)
        let reader = try FeedStore.openForReading(path: path)
        await #expect(throws: StoreError.self) {
            _ = try await reader.addSubscription(url: URL(string: "https://b.example/feed")!, title: nil, at: t0)
        }
        #expect(try await reader.subscriptions().map(\.title) == ["A"])
    }

    @Test(.timeLimit(.minutes(1)))
    func readersDoNotWaitForAWriteTransactionInAnotherProcess() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("podfresh.sqlite")
        let writer = try FeedStore(path: path)
        let feed = try await writer.addSubscription(url: URL(string: "https://a.example/feed")!, title: "A", at: t0)
        _ = try await writer.apply(
            FeedCheck(
                subscriptionID: feed.id, checkedAt: t0, status: 200,
                result: .fetched(
                    ParsedFeed(format: .rss2, title: "A", episodes: [ParsedEpisode(id: "e1", title: "One")]), etag: nil,
                    lastModified: nil, unconditional: false)))

        // Given another process in the middle of a write transaction (BEGIN IMMEDIATE, rows written, not committed) …
        try await withHeldWriteTransaction(
            path: path,
            sql:
                "INSERT INTO subscription (url, title, addedAt) VALUES ('https://held.example/feed', 'Held', 0); UPDATE subscription SET title = 'changed' WHERE id = 1"
        ) { held in
            // … a reader opens and reads at once (the busy timeout is 30 s; this bound is generous) and sees the last
            // committed state, while the writer still holds its transaction.
            let started = ContinuousClock.now
            let reader = try FeedStore.openForReading(path: path)
            #expect(try await reader.subscriptions().map(\.title) == ["A"])
            #expect(try await reader.episodes(EpisodeQuery()).map(\.key) == ["e1"])
            #expect(try await reader.countEpisodes(EpisodeQuery()) == 1)
            #expect(try await reader.lastRun() == nil)
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(held.status == nil, "the writer still holds its transaction")
        }
    }

    // MARK: - The run lock

    @Test(.timeLimit(.minutes(1)))
    func aLockFileThatCannotBeOpenedIsADatabaseErrorNotABusyOne() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.path("a-file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        // Given a database path whose parent is a file, the lock cannot be opened: that is said as a database error
        // naming the lock file, not as "another podfresh is using this database".
        await #expect {
            _ = try await RunLock.acquire(forDatabaseAt: file + "/podfresh.sqlite", wait: .seconds(5))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .database
                && error.reason == .cannotOpenLockFile(path: file + "/podfresh.sqlite.lock", reason: "Not a directory")
        }
    }

    // MARK: - One spelling per feed URL

    @Test(arguments: [
        ("HTTPS://Example.COM/Feed.xml?Q=A#Latest", "https://example.com/Feed.xml?Q=A"),
        ("http://User:Pass@Host.Example:8080/a#", "http://User:Pass@host.example:8080/a"),
        ("https://example.com", "https://example.com"),
        ("FILE:///Tmp/Feed.XML", "file:///Tmp/Feed.XML"),
        ("https://example.com/a%2Fb?x=%41", "https://example.com/a%2Fb?x=%41"),
    ])
    func urlsAreNormalisedInSchemeHostAndFragmentOnly(input: String, expected: String) {
        #expect(FeedURL.normalizedString(input) == expected)
    }

    @Test func urlsDifferingInCaseOrFragmentAreOneSubscription() async throws {
        let store = try FeedStore.inMemory()
        let added = try await store.addSubscription(
            url: URL(string: "HTTPS://Example.COM/feed.xml#top")!, title: nil, at: t0)
        #expect(added.url.absoluteString == "https://example.com/feed.xml")
        await #expect {
            _ = try await store.addSubscription(url: URL(string: "https://EXAMPLE.com/feed.xml")!, title: nil, at: t0)
        } throws: { error in
            (error as? StoreError)?.kind == .duplicate
        }
        #expect(try await store.subscription(url: URL(string: "https://example.com/feed.xml#other")!)?.id == added.id)
    }

    @Test func aMoveIsComparedNormalised() async throws {
        let store = try FeedStore.inMemory()
        let a = try await store.addSubscription(url: URL(string: "https://a.example/feed")!, title: "A", at: t0)
        _ = try await store.addSubscription(url: URL(string: "https://b.example/feed")!, title: "B", at: t0)
        // A "move" to another spelling of the same URL is no move …
        let same = try await store.apply(
            FeedCheck(
                subscriptionID: a.id, checkedAt: t0, result: .notModified,
                movedTo: URL(string: "HTTPS://A.EXAMPLE/feed#x")))
        #expect(same.movedTo == nil && same.moveRefused == nil)
        // … and a move to another spelling of a subscribed URL is refused, naming it.
        let taken = try await store.apply(
            FeedCheck(
                subscriptionID: a.id, checkedAt: t0, result: .notModified,
                movedTo: URL(string: "https://B.example/feed")))
        #expect(taken.movedTo == nil)
        #expect(taken.moveRefused?.target.absoluteString == "https://b.example/feed")
        #expect(try await store.subscription(id: a.id)?.url.absoluteString == "https://a.example/feed")
    }

    @Test func existingRowsAreNormalisedAndDuplicatesMergedKeepingEveryEpisode() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("podfresh.sqlite")
        _ = try FeedStore(path: path)
        // Given rows stored before normalisation (two spellings of one feed, each with episodes) …
        try await sqlite(
            path,
            """
            DELETE FROM grdb_migrations WHERE identifier = 'normalised subscription URLs';
            INSERT INTO subscription (id, url, title, addedAt) VALUES (1, 'HTTPS://Example.COM/feed#a', NULL, 0);
            INSERT INTO subscription (id, url, title, addedAt) VALUES (2, 'https://example.com/feed', 'Show', 0);
            INSERT INTO subscription (id, url, title, addedAt) VALUES (3, 'https://Other.example/Feed', 'Other', 0);
            INSERT INTO episode (subscriptionId, key, fingerprint, enclosures, transcripts, persons, alternateEnclosures, firstSeenAt, lastSeenAt)
              VALUES (1, 'shared', 'f', '[]', '[]', '[]', '[]', 0, 0), (1, 'only-1', 'f', '[]', '[]', '[]', '[]', 0, 0),
                     (2, 'shared', 'f', '[]', '[]', '[]', '[]', 0, 0), (2, 'only-2', 'f', '[]', '[]', '[]', '[]', 0, 0);
            """)
        // … opening for writing migrates them: one subscription per feed, every distinct episode kept.
        let store = try FeedStore(path: path)
        let subscriptions = try await store.subscriptions()
        #expect(subscriptions.map(\.url.absoluteString) == ["https://example.com/feed", "https://other.example/Feed"])
        #expect(subscriptions.first?.title == "Show")
        #expect(
            try await store.episodes(EpisodeQuery(subscriptionID: 1)).map(\.key).sorted() == [
                "only-1", "only-2", "shared",
            ])
        #expect(try await store.integrityCheck() == "ok")
    }

    // MARK: - Runs and counts

    @Test func theLastRunThatCheckedFeedsSkipsRunsThatCheckedNothing() async throws {
        let store = try FeedStore.inMemory()
        var first = try await store.beginRun(at: t0)
        first.endedAt = t0
        first.feedsChecked = 2
        try await store.finishRun(first)
        var empty = try await store.beginRun(at: t0.addingTimeInterval(60))
        empty.endedAt = t0.addingTimeInterval(60)
        try await store.finishRun(empty)
        #expect(try await store.lastRun()?.id == empty.id)
        #expect(try await store.lastRun(checkedFeeds: true)?.id == first.id)
    }
}
