import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import TestSupport
import Testing

/// A store on a real SQLite file in a temporary folder.
struct TemporaryStore {
    let directory: URL
    let path: String
    let store: FeedStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-store-\(UUID().uuidString)")
        path = directory.appendingPathComponent("nested/podfresh.sqlite").path
        store = try FeedStore(path: path)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

private func episode(_ id: String, title: String? = nil, published: Date? = t0) -> ParsedEpisode {
    ParsedEpisode(
        id: id, guid: id, title: title ?? id, published: published,
        enclosures: [Enclosure(url: URL(string: "https://cdn.example.com/\(id).mp3")!, length: 10, type: "audio/mpeg")])
}

private func fetched(_ episodes: [ParsedEpisode], title: String = "Show", complete: Bool? = nil) -> FeedCheck.Result {
    .fetched(
        ParsedFeed(format: .rss2, title: title, complete: complete, episodes: episodes), etag: "\"e1\"",
        lastModified: "Tue, 12 Nov 2024 05:00:00 GMT", unconditional: false)
}

struct FeedStoreTests {
    @Test func migrationCreatesTheSchemaInWALMode() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        // Given a new file, when it is opened, then every table exists and the journal is WAL.
        let output = try await shell(
            "sqlite3", temp.path,
            "PRAGMA journal_mode; SELECT name FROM sqlite_master WHERE type='table' ORDER BY name;")
        #expect(output.contains("wal"))
        for table in ["subscription", "episode", "refreshRun", "grdb_migrations"] { #expect(output.contains(table)) }
        #expect(try await temp.store.integrityCheck() == "ok")
    }

    @Test func dataSurvivesReopening() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let added = try await temp.store.addSubscription(
            url: URL(string: "https://a.example/feed")!, title: "A", at: t0)
        _ = try await temp.store.apply(
            FeedCheck(subscriptionID: added.id, checkedAt: t0, status: 200, result: fetched([episode("e1")])))
        let reopened = try FeedStore(path: temp.path)
        #expect(try await reopened.subscriptions().map(\.title) == ["Show"])
        #expect(try await reopened.episodes(EpisodeQuery()).map(\.key) == ["e1"])
    }

    @Test func theAsyncMergeStoresWhatTheSyncMergeStoresEvenWhenItsTaskIsCancelled() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let feed = try await temp.store.addSubscription(url: URL(string: "https://a.example/feed")!, title: nil, at: t0)
        let store = temp.store
        // Given a task that is cancelled before it merges, when it merges, then the merge still commits.
        let merge = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: t0, result: fetched([episode("e2"), episode("e1")]), runID: 3))
        }
        merge.cancel()
        let summary = try await merge.value
        #expect(summary.newEpisodes.map(\.key) == ["e2", "e1"])
        #expect(try await store.episodes(EpisodeQuery(subscriptionID: feed.id)).map(\.key).sorted() == ["e1", "e2"])
        // And a second async merge of the same feed finds nothing new, like the synchronous one.
        let again = try await store.apply(
            FeedCheck(
                subscriptionID: feed.id, checkedAt: t0.addingTimeInterval(60),
                result: fetched([episode("e2"), episode("e1")])))
        #expect(again.newEpisodes.isEmpty && again.updatedCount == 0)
        // A failed check through the async path reports a missing subscription as the sync one does.
        await #expect(throws: StoreError.self) {
            _ = try await store.apply(FeedCheck(subscriptionID: 9_999, checkedAt: t0, result: fetched([])))
        }
    }

    @Test func aDuplicateURLIsRefusedAndRemovingCascades() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let url = URL(string: "https://a.example/feed")!
        let added = try await temp.store.addSubscription(url: url, title: nil, at: t0)
        await #expect { _ = try await temp.store.addSubscription(url: url, title: nil, at: t0) } throws: {
            ($0 as? StoreError)?.kind == .duplicate
        }
        _ = try await temp.store.apply(
            FeedCheck(subscriptionID: added.id, checkedAt: t0, result: fetched([episode("e1")])))
        #expect(try await temp.store.removeSubscription(id: added.id))
        #expect(try await temp.store.episodes(EpisodeQuery()).isEmpty)
        await #expect(try !temp.store.removeSubscription(id: added.id))
    }

    @Test func mergeInsertsNewUpdatesChangedAndNeverDeletes() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let feed = try await temp.store.addSubscription(url: URL(string: "https://a.example/feed")!, title: nil, at: t0)
        // Given two stored episodes
        let first = try await temp.store.apply(
            FeedCheck(
                subscriptionID: feed.id, checkedAt: t0, result: fetched([episode("e2"), episode("e1")]), runID: 7))
        #expect(first.newEpisodes.map(\.key) == ["e2", "e1"])
        #expect(first.newEpisodes.first?.firstSeenRunID == 7)
        // When the same feed comes again, nothing is new or changed
        let same = try await temp.store.apply(
            FeedCheck(
                subscriptionID: feed.id, checkedAt: t0.addingTimeInterval(60),
                result: fetched([episode("e2"), episode("e1")])))
        #expect(same.newEpisodes.isEmpty && same.updatedCount == 0)
        // When one title changes and e1 is dropped, e2 is updated and e1 is kept
        let changed = try await temp.store.apply(
            FeedCheck(
                subscriptionID: feed.id, checkedAt: t0.addingTimeInterval(120),
                result: fetched([episode("e3"), episode("e2", title: "Renamed")])))
        #expect(changed.newEpisodes.map(\.key) == ["e3"])
        #expect(changed.updatedCount == 1)
        let stored = try await temp.store.episodes(EpisodeQuery(subscriptionID: feed.id))
        #expect(Set(stored.map(\.key)) == ["e1", "e2", "e3"])
        #expect(stored.first { $0.key == "e2" }?.episode.title == "Renamed")
        #expect(stored.first { $0.key == "e2" }?.firstSeenAt == t0)
        #expect(stored.first { $0.key == "e2" }?.lastSeenAt == t0.addingTimeInterval(120))
        // An empty feed deletes nothing
        _ = try await temp.store.apply(
            FeedCheck(subscriptionID: feed.id, checkedAt: t0.addingTimeInterval(180), result: fetched([])))
        #expect(try await temp.store.episodes(EpisodeQuery(subscriptionID: feed.id)).count == 3)
    }

    @Test func aShortReadMergesLikeAWholeOneWithOnlyItsOwnEpisodesLookedUp() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let feed = try await temp.store.addSubscription(url: URL(string: "https://a.example/feed")!, title: nil, at: t0)
        // Given 1,200 stored episodes (more keys than one lookup batch holds)
        let stored = (1...1_200).map { episode("s\($0)") }
        _ = try await temp.store.apply(FeedCheck(subscriptionID: feed.id, checkedAt: t0, result: fetched(stored)))
        // When a body read short lists a new episode, a changed one, a known one twice and 600 more known ones
        let later = t0.addingTimeInterval(60)
        var check = FeedCheck(
            subscriptionID: feed.id, checkedAt: later,
            result: fetched(
                [episode("new"), episode("s1", title: "Renamed"), episode("s2"), episode("s2", title: "Again")]
                    + (600...1_199).map { episode("s\($0)") }))
        check.bodyRead = .short
        let summary = try await temp.store.apply(check)
        // Then it is merged as a whole read would be: one new, one updated, the rest only marked seen
        #expect(summary.newEpisodes.map(\.key) == ["new"])
        #expect(summary.updatedCount == 1)
        let after = try await temp.store.episodes(EpisodeQuery(subscriptionID: feed.id))
        #expect(after.count == 1_201)
        #expect(after.first { $0.key == "s1" }?.episode.title == "Renamed")
        #expect(after.first { $0.key == "s2" }?.episode.title == "s2")
        #expect(after.filter { $0.lastSeenAt == later }.count == 1 + 2 + 600)
        #expect(after.first { $0.key == "s3" }?.lastSeenAt == t0, "an episode the body did not list is untouched")
    }

    @Test func duplicateKeysInOneFeedKeepTheFirst() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let feed = try await temp.store.addSubscription(url: URL(string: "https://a.example/feed")!, title: nil, at: t0)
        let summary = try await temp.store.apply(
            FeedCheck(
                subscriptionID: feed.id, checkedAt: t0,
                result: fetched([episode("d", title: "First"), episode("d", title: "Second")])))
        #expect(summary.newEpisodes.map(\.episode.title) == ["First"])
        #expect(try await temp.store.episodes(EpisodeQuery()).map(\.episode.title) == ["First"])
    }

    @Test func aFailedCheckTouchesOnlyTheErrorState() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let feed = try await temp.store.addSubscription(url: URL(string: "https://a.example/feed")!, title: nil, at: t0)
        _ = try await temp.store.apply(
            FeedCheck(subscriptionID: feed.id, checkedAt: t0, status: 200, result: fetched([episode("e1")])))
        for n in 1...2 {
            _ = try await temp.store.apply(
                FeedCheck(
                    subscriptionID: feed.id, checkedAt: t0.addingTimeInterval(Double(n)), status: 500,
                    result: .failed(kind: "http-status", message: "HTTP 500"),
                    movedTo: URL(string: "https://b.example/")))
        }
        let stored = try #require(try await temp.store.subscription(id: feed.id))
        #expect(stored.failureCount == 2)
        #expect(stored.lastError == "HTTP 500" && stored.lastErrorKind == "http-status")
        #expect(stored.etag == "\"e1\"")
        #expect(stored.url.absoluteString == "https://a.example/feed", "a failed check never moves a feed")
        #expect(try await temp.store.episodes(EpisodeQuery()).count == 1)
        _ = try await temp.store.apply(
            FeedCheck(subscriptionID: feed.id, checkedAt: t0.addingTimeInterval(9), status: 304, result: .notModified))
        #expect(try await temp.store.subscription(id: feed.id)?.failureCount == 0)
        #expect(try await temp.store.subscription(id: feed.id)?.lastError == nil)
    }

    @Test func dueSelectionHonoursNextCheckAndGone() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let fresh = try await temp.store.addSubscription(url: URL(string: "https://a.example/1")!, title: nil, at: t0)
        let later = try await temp.store.addSubscription(url: URL(string: "https://a.example/2")!, title: nil, at: t0)
        let past = try await temp.store.addSubscription(url: URL(string: "https://a.example/3")!, title: nil, at: t0)
        let gone = try await temp.store.addSubscription(url: URL(string: "https://a.example/4")!, title: nil, at: t0)
        _ = try await temp.store.apply(
            FeedCheck(
                subscriptionID: later.id, checkedAt: t0, result: .notModified, nextCheckAt: t0.addingTimeInterval(3600))
        )
        _ = try await temp.store.apply(
            FeedCheck(
                subscriptionID: past.id, checkedAt: t0, result: .notModified, nextCheckAt: t0.addingTimeInterval(-1)))
        _ = try await temp.store.apply(
            FeedCheck(subscriptionID: gone.id, checkedAt: t0, status: 410, result: .gone(message: "HTTP 410")))
        #expect(try await temp.store.dueSubscriptions(at: t0).map(\.id) == [fresh.id, past.id])
        #expect(
            try await temp.store.dueSubscriptions(at: t0.addingTimeInterval(7200)).map(\.id) == [
                fresh.id, later.id, past.id,
            ])
        #expect(try await temp.store.subscription(id: gone.id)?.isGone == true)
    }

    @Test func movesApplyInTheSameTransactionOrAreRefused() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let a = try await temp.store.addSubscription(url: URL(string: "https://a.example/feed")!, title: nil, at: t0)
        let b = try await temp.store.addSubscription(url: URL(string: "https://b.example/feed")!, title: "Bee", at: t0)
        let refused = try await temp.store.apply(
            FeedCheck(subscriptionID: a.id, checkedAt: t0, result: fetched([episode("e")]), movedTo: b.url))
        #expect(refused.movedTo == nil)
        #expect(refused.moveRefused == TakenMove(target: b.url, otherID: b.id, otherTitle: "Bee"))
        let moved = try await temp.store.apply(
            FeedCheck(
                subscriptionID: a.id, checkedAt: t0, result: .notModified,
                movedTo: URL(string: "https://c.example/feed")))
        #expect(moved.movedTo?.absoluteString == "https://c.example/feed")
        #expect(try await temp.store.subscription(id: a.id)?.movedFrom?.absoluteString == "https://a.example/feed")
    }

    @Test func everyEpisodeFieldRoundTrips() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let feed = try await temp.store.addSubscription(url: URL(string: "https://a.example/feed")!, title: nil, at: t0)
        let full = ParsedEpisode(
            id: "k", guid: "g", guidIsPermaLink: false, title: "T", link: URL(string: "https://a.example/e"),
            description: "<p>d</p>",
            summary: "d", published: Date(timeIntervalSince1970: 1_730_000_000.5), duration: 1014.708375,
            enclosures: [
                Enclosure(url: URL(string: "https://a.example/e.mp3?x=1&y=2")!, length: 123, type: "audio/mpeg"),
                Enclosure(url: URL(string: "https://a.example/e.ogg")!),
            ],
            episode: 3, season: 2, episodeType: .trailer, explicit: true, image: URL(string: "https://a.example/i.jpg"),
            transcripts: [
                Transcript(
                    url: URL(string: "https://a.example/t.vtt")!, type: "text/vtt", language: "en", rel: "captions")
            ],
            chapters: URL(string: "https://a.example/c.json"),
            persons: [
                Person(
                    name: "P", role: "guest", group: "cast", href: URL(string: "https://p.example/"),
                    image: URL(string: "https://p.example/i.png"))
            ],
            alternateEnclosures: [
                AlternateEnclosure(
                    url: URL(string: "https://a.example/e.opus"), type: "audio/opus", length: 9, bitrate: 64000.5,
                    title: "Opus", isDefault: true)
            ])
        _ = try await temp.store.apply(FeedCheck(subscriptionID: feed.id, checkedAt: t0, result: fetched([full])))
        #expect(try await temp.store.episodes(EpisodeQuery()).first?.episode == full)
    }

    @Test func queriesFilterAndOrderNewestFirst() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let feed = try await temp.store.addSubscription(url: URL(string: "https://a.example/feed")!, title: nil, at: t0)
        let other = try await temp.store.addSubscription(
            url: URL(string: "https://b.example/feed")!, title: nil, at: t0)
        _ = try await temp.store.apply(
            FeedCheck(
                subscriptionID: feed.id, checkedAt: t0,
                result: fetched([
                    episode("old", published: t0.addingTimeInterval(-86_400 * 10)), episode("new", published: t0),
                    episode("undated", published: nil),
                ]), runID: 1))
        _ = try await temp.store.apply(
            FeedCheck(
                subscriptionID: other.id, checkedAt: t0,
                result: fetched([episode("x", published: t0.addingTimeInterval(-60))]), runID: 2))
        #expect(
            try await temp.store.episodes(EpisodeQuery(subscriptionID: feed.id)).map(\.key) == [
                "new", "old", "undated",
            ], "an undated episode comes after the dated ones, though first seen now")
        #expect(
            try await temp.store.episodes(EpisodeQuery(since: t0.addingTimeInterval(-3600))).map(\.key) == [
                "new", "x", "undated",
            ])
        #expect(try await temp.store.episodes(EpisodeQuery(runID: 2)).map(\.key) == ["x"])
        #expect(try await temp.store.episodes(EpisodeQuery(limit: 1)).count == 1)
        #expect(try await temp.store.episodeCounts() == [feed.id: 3, other.id: 1])
        #expect(
            try await temp.store.recentPublishedDates(subscriptionID: feed.id, limit: 5) == [
                t0, t0.addingTimeInterval(-86_400 * 10),
            ])
    }

    @Test func runsAreRecorded() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        #expect(try await temp.store.lastRun() == nil)
        var run = try await temp.store.beginRun(at: t0)
        run.endedAt = t0.addingTimeInterval(5)
        run.feedsChecked = 3
        run.feedsNotModified = 2
        run.bytesSaved = 1000
        try await temp.store.finishRun(run)
        #expect(try await temp.store.lastRun() == run)
    }

    // 200 transactions on one file from two connections, each waiting out the other's lock: minutes on a machine
    // busy with the rest of the suite, which is not what this test judges.
    @Test(.timeLimit(.minutes(3)))
    func twoStoresOnOneFileWriteConcurrentlyWithoutBusyErrors() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let second = try FeedStore(path: temp.path)
        var ids: [Int64] = []
        for index in 0..<20 {
            ids.append(
                try await temp.store.addSubscription(
                    url: URL(string: "https://a.example/\(index)")!, title: nil, at: t0
                )
                .id)
        }
        let subscriptionIDs = ids
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in [temp.store, second].enumerated() {
                group.addTask {
                    for round in 0..<100 {
                        let id = subscriptionIDs[(round + index * 7) % subscriptionIDs.count]
                        _ = try await store.apply(
                            FeedCheck(
                                subscriptionID: id, checkedAt: t0, result: fetched([episode("s\(index)-\(round)")])))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await temp.store.episodes(EpisodeQuery()).count == 200)
        #expect(try await second.integrityCheck() == "ok")
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-db-\(UUID().uuidString).sqlite")
            .path
        try Data(String(repeating: "this is not sqlite ", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect { _ = try FeedStore(path: path) } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .database && error.remedy == .useAnotherPath
                && error.reason
                    == .sqlite(
                        path: path, code: StoreError.sqliteNotADatabase, message: "file is not a database",
                        writing: true)
        }
    }

    @Test func theDatabaseLocationFollowsFlagThenEnvironmentThenXDG() {
        #expect(
            DatabaseLocation.resolve(explicit: "/x/db.sqlite", environment: ["PODFRESH_DATABASE": "/y"])
                == "/x/db.sqlite")
        #expect(DatabaseLocation.resolve(explicit: nil, environment: ["PODFRESH_DATABASE": "/y/db"]) == "/y/db")
        #expect(
            DatabaseLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"])
                == "/data/podfresh/podfresh.sqlite")
        #expect(
            DatabaseLocation.resolve(explicit: nil, environment: ["HOME": "/home/u"])
                == "/home/u/.local/share/podfresh/podfresh.sqlite")
    }

    @Test func theBackendFollowsTheSchemeAndAnUnknownSchemeIsNamed() throws {
        #expect(try DatabaseTarget("/x/db.sqlite") == .sqlite(path: "/x/db.sqlite"))
        #expect(try DatabaseTarget("old:copy/db.sqlite") == .sqlite(path: "old:copy/db.sqlite"))
        #expect(try DatabaseTarget("file:///x/db.sqlite") == .sqlite(path: "/x/db.sqlite"))
        #expect(try DatabaseTarget("postgres://u:p@h:5/db") == .postgres(url: "postgres://u:p@h:5/db"))
        #expect(try DatabaseTarget("PostgreSQL://h/db") == .postgres(url: "PostgreSQL://h/db"))
        #expect {
            try DatabaseLocation.target(explicit: nil, environment: ["PODFRESH_DATABASE": "mysql://u:secret@h/db"])
        } throws: { error in
            (error as? DatabaseLocationError)
                == DatabaseLocationError(problem: .unknownScheme("mysql"), source: .environment)
        }
        #expect(throws: DatabaseLocationError.self) { try DatabaseTarget("file://otherhost/db.sqlite") }
        #expect(
            try DatabaseLocation.target(explicit: nil, environment: ["PODFRESH_DATABASE": "postgresql://h/db"])
                == .postgres(url: "postgresql://h/db"))
        #expect(
            try DatabaseLocation.target(explicit: nil, environment: ["HOME": "/home/u"])
                == .sqlite(path: "/home/u/.local/share/podfresh/podfresh.sqlite"))
    }
}

struct RunLockTests {
    @Test(.timeLimit(.minutes(1)))
    func aHeldLockNamesItsHolderAndIsFreedOnRelease() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path + ".lock") }
        let first = try await RunLock.acquire(forDatabaseAt: path, wait: nil)
        await #expect { _ = try await RunLock.acquire(forDatabaseAt: path, wait: nil) } throws: { error in
            (error as? RunLockError)?.pid == getpid()
        }
        // A waiting acquirer gets it once the holder lets go.
        let waiter = Task { try await RunLock.acquire(forDatabaseAt: path, wait: .seconds(10)) }
        try await Task.sleep(for: .milliseconds(300))
        first.release()
        let second = try await waiter.value
        second.release()
    }

    @Test(.timeLimit(.minutes(1)))
    func aLockLeftByAKilledProcessNeverBlocks() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path + ".lock") }
        // A child process takes the same flock and is killed with SIGKILL.
        let python = [
            "-c",
            "import fcntl,os,time,sys; f=open(sys.argv[1],'w'); fcntl.flock(f, fcntl.LOCK_EX); f.write(str(os.getpid())); f.flush(); print('locked', flush=True); time.sleep(60)",
            path + ".lock",
        ]
        try await withRunningProcess("/usr/bin/python3", arguments: python) { child in
            #expect(await child.waitForLine(containing: "locked", within: .seconds(30)), "\(child.transcript)")
            await #expect(throws: RunLockError.self) { _ = try await RunLock.acquire(forDatabaseAt: path, wait: nil) }
            child.send(SIGKILL)
            #expect(await child.exit(within: .seconds(30)) == .signaled(SIGKILL))
        }
        let lock = try await RunLock.acquire(forDatabaseAt: path, wait: nil)
        lock.release()
    }
}

func shell(_ arguments: String...) async throws -> String {
    let command = try await runProcess("/usr/bin/env", arguments: arguments)
    #expect(command.status == .exited(0), "\(arguments): \(command.standardError)")
    return command.standardOutput
}
