import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import GRDB
import PostgresStorage
import TestSupport
import Testing

/// Copies the SQLite database (read only, as `podfresh migrate` opens it) into the PostgreSQL database at `url`.
/// The SQLite store is closed when this returns.
private func migrate(
    _ source: SourceDatabase, into url: String, merge: Bool = false, batchSize: Int = 500
) async throws -> MigrationSummary {
    let store = try FeedStore.openForReading(path: source.path)
    return try await PostgresFeedStore.withStore(url: url) { target in
        try await target.importStore(store, merge: merge, batchSize: batchSize)
    }
}

/// The name of the database in a test cluster URL.
private func databaseName(_ url: String) -> String {
    String(url.split(separator: "/").last ?? "")
}

/// `podfresh migrate`: an SQLite database copied into PostgreSQL, whole, checked, in one transaction, the source never
/// touched.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct MigrationTests {
    @Test(arguments: [2, 500])
    func everySubscriptionEpisodeAndRunIsCopiedWithItsIDAndReadsBackTheSame(batchSize: Int) async throws {
        // Given an SQLite database built by the real store from real feeds
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        // (one reason as an older podfresh wrote it: a sentence; a learned publication model and a document that
        // ended early, which the copy carries too)
        let older = try DatabaseQueue(path: source.path)
        try await older.write { db in
            try db.execute(
                sql: "UPDATE subscription SET nextCheckReason = 'cadence 1d (an older sentence)' WHERE id = ?",
                arguments: [source.undone])
            try db.execute(
                sql: "UPDATE subscription SET publicationModel = ?, endedEarly = 1 WHERE id = ?",
                arguments: [
                    #"{"learned":1733000000,"p":[[1732000000,-18000]],"slots":[],"v":1,"zone":"UTC"}"#, source.undone,
                ])
        }
        try older.close()
        let sqlite = try FeedStore.openForReading(path: source.path)
        let bounds = try await sqlite.exportBounds()
        #expect(bounds.subscriptions == 5)
        #expect(bounds.runs == 3)
        #expect(bounds.episodes >= 5)

        // When it is copied into an empty PostgreSQL database, a page of `batchSize` rows at a time
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "migrate")
        let summary = try await migrate(source, into: url, batchSize: batchSize)

        // Then every row was copied, and the counts say so
        #expect(summary.subscriptions == .init(source: 5, copied: 5, alreadyPresent: 0))
        #expect(summary.episodes == .init(source: bounds.episodes, copied: bounds.episodes, alreadyPresent: 0))
        #expect(summary.runs == .init(source: 3, copied: 3, alreadyPresent: 0))
        #expect(!summary.merged)
        #expect(summary.keptIDs)

        try await PostgresFeedStore.withStore(url: url) { target in
            // the PostgreSQL store lists the same subscriptions and episodes as the SQLite store
            #expect(try await target.subscriptions() == sqlite.subscriptions())
            #expect(try await target.episodes(EpisodeQuery()) == sqlite.episodes(EpisodeQuery()))
            #expect(try await target.episodeCounts() == sqlite.episodeCounts())
            #expect(try await target.lastRun(checkedFeeds: true) == sqlite.lastRun(checkedFeeds: true))
            for run in source.runs {
                #expect(
                    try await target.episodes(EpisodeQuery(runID: run)) == sqlite.episodes(EpisodeQuery(runID: run)),
                    "the episodes first seen in run \(run)")
            }

            // spot checks, field by field
            let moved = try #require(try await target.subscription(id: source.moved))
            #expect(moved.url.absoluteString == "https://night-shift.example.org/new-feed.xml")
            #expect(moved.movedFrom?.absoluteString == "https://night-shift.example.org/feed.xml")
            #expect(moved.etag == "\"ns-1\"")
            #expect(moved.lastModified == "Tue, 12 Nov 2024 05:00:00 GMT")
            #expect(moved.nextCheckAt == SourceDatabase.t0.addingTimeInterval(3600.5))
            #expect(moved.nextCheckReason == .cadence(interval: .seconds(3600), basis: .hint(.ttl)))
            #expect(moved.lastUnconditionalAt == SourceDatabase.t0)
            #expect(moved.ttlMinutes == 60)
            #expect(moved.lastBodyBytes == 4096)
            let failing = try #require(try await target.subscription(id: source.failing))
            #expect(failing.failureCount == 1)
            #expect(failing.lastErrorKind == "timeout")
            #expect(failing.lastError == "no answer within 60 s")
            #expect(failing.nextCheckReason == .backoff(failures: 1))
            #expect(failing.etag == "W/\"g\"", "a failure keeps the validators")
            let gone = try #require(try await target.subscription(id: source.gone))
            #expect(gone.isGone)
            #expect(gone.lastStatus == 410)
            let undone = try #require(try await target.subscription(id: source.undone))
            #expect(undone.refusedMoveTarget?.absoluteString == "https://field.example.net/other.rss")
            #expect(undone.movedFrom == nil)
            #expect(undone.backlog == 1)
            #expect(
                undone.nextCheckReason == .stored("cadence 1d (an older sentence)"),
                "an older podfresh's sentence is copied as written")
            let neverFetched = try #require(try await target.subscription(id: source.neverFetched))
            #expect(neverFetched.title == "Ünïcödé “quotes” & more")
            #expect(neverFetched.backlog == 5)
            #expect(neverFetched.downloadsEnabled && neverFetched.keepNewest == 4)
            #expect(neverFetched.downloadDirectory == "/srv/podcasts/new")
            #expect(neverFetched.fileNameTemplate == "{date} {title}.{ext}")
            #expect(neverFetched.downloadFilter == DownloadFilter(include: ["full episode"], minimumDuration: 600))
            #expect(neverFetched.extras)
            #expect(neverFetched.tagMode == .merge)
            let live = try #require(
                try await target.episodes(EpisodeQuery(subscriptionID: source.moved)).first { $0.key == "nsr-live" })
            #expect(live.episode.live?.status == .live)
            #expect(live.episode.live?.contentLinks.first?.hrefString == "https://video.example/nsr")

            let lighthouse = try #require(
                try await target.episodes(EpisodeQuery(subscriptionID: source.moved)).first { $0.key == "nsr-003" })
            #expect(
                lighthouse.episode.enclosures.first?.url.absoluteString
                    == "https://night-shift.example.org/audio/003.mp3?source=rss&format=mp3")
            #expect(lighthouse.episode.enclosures.first?.length == 31_457_280)
            #expect(lighthouse.episode.persons.map(\.name) == ["Ada Morrow"])
            #expect(lighthouse.episode.persons.first?.role == "host")
            #expect(lighthouse.episode.transcripts.first?.type == "text/vtt")
            #expect(lighthouse.firstSeenRunID == source.runs[0])
            #expect(lighthouse.subscriptionID == source.moved)
            let backCatalogue = try await target.episodes(EpisodeQuery(subscriptionID: source.undone))
            #expect(backCatalogue.count == 2)
            #expect(
                backCatalogue.filter { $0.firstSeenRunID == nil }.count == 1,
                "the episode stored as back catalogue has no first run")

            // new rows continue after the copied ids: the sequences were moved past them
            let added = try await target.addSubscription(
                url: URL(string: "https://after.example.org/feed.xml")!, title: nil, at: Date(), backlog: nil)
            #expect(added.id == source.neverFetched + 1)
            let run = try await target.beginRun(at: Date())
            #expect(run.id == source.runs[2] + 1)
        }

        // the columns no repository reads (the feed's author and language; episode fingerprints) were copied too
        let database = databaseName(url)
        #expect(
            try await cluster.psql(
                database: database, "SELECT author, language FROM subscription WHERE id = \(source.moved)")
                == "Ada Morrow|en-gb")
        #expect(
            try await cluster.psql(
                database: database, "SELECT next_check_reason FROM subscription WHERE id = \(source.moved)")
                == #"{"basis":"hint","hint":"ttl","kind":"cadence","seconds":3600}"#, "the reason's facts, as JSON")
        let fingerprints = try await sqlite.exportEpisodes(after: 0, through: .max, limit: 1000)
            .map { "\($0.id)|\($0.fingerprint)" }.joined(separator: "\n")
        #expect(
            try await cluster.psql(database: database, "SELECT id, fingerprint FROM episode ORDER BY id")
                == fingerprints)
        #expect(
            try await cluster.psql(
                database: database,
                "SELECT count(*) FROM episode e LEFT JOIN refresh_run r ON r.id = e.first_seen_run_id WHERE e.first_seen_run_id IS NOT NULL AND r.id IS NULL"
            ) == "0", "every first_seen_run_id names a copied run")
    }

    @Test(arguments: [1, 3, 500])
    func everyDownloadRecordIsCopiedWithEveryFieldUnderItsSubscription(batchSize: Int) async throws {
        // Given an SQLite database holding download records of every kind, in three feeds
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        let sqlite = try FeedStore.openForReading(path: source.path)
        #expect(source.downloads.count == 4)
        #expect(try await sqlite.exportBounds().downloads == 4)
        let complete = try #require(source.downloads.first { $0.episodeKey == "nsr-003" })
        #expect(complete.state == .complete && complete.isOnDisk)
        #expect(complete.partPath == nil && complete.filePath == "/srv/podcasts/Night Shift/003.mp3")
        #expect(complete.bytes == 31_457_280)
        #expect(complete.url?.absoluteString == "https://media.example.net/night-shift/003.mp3?token=a%20b&x=1")
        let t1 = SourceDatabase.t0.addingTimeInterval(7200.25)
        #expect(complete.startedAt == t1.addingTimeInterval(5.5))
        #expect(complete.downloadedAt == t1.addingTimeInterval(65.375))
        let inProgress = try #require(source.downloads.first { $0.episodeKey == "nsr-002" })
        #expect(inProgress.state == .inProgress)
        #expect(inProgress.partPath == "/srv/podcasts/Night Shift/002.mp3.part")
        #expect(inProgress.etag == "W/\"m-2\"" && inProgress.lastModified == "Tue, 12 Nov 2024 05:00:00 GMT")
        #expect(inProgress.bytes == 1_048_576 && inProgress.lastError == "connection reset after 1 MB")
        #expect(inProgress.downloadedAt == nil)
        let deleted = try #require(source.downloads.first { $0.subscriptionID == source.undone })
        #expect(deleted.deletedByUser && !deleted.removedByRetention)
        let removed = try #require(source.downloads.first { $0.subscriptionID == source.failing })
        #expect(removed.removedByRetention && !removed.deletedByUser)

        // When it is copied into an empty PostgreSQL database, `batchSize` records a page
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "migrate_downloads")
        let summary = try await migrate(source, into: url, batchSize: batchSize)

        // Then every record is there under the same subscription id, every field equal, and the counts say so
        #expect(summary.downloads == .init(source: 4, copied: 4, alreadyPresent: 0))
        try await PostgresFeedStore.withStore(url: url) { target in
            let copied = try await target.downloads(subscriptionID: nil)
            #expect(copied == source.downloads)
            #expect(try await target.extraFiles(subscriptionID: source.moved) == ["nsr-003": SourceDatabase.extraFiles])
            #expect(try await target.downloadUsage() == sqlite.downloadUsage())
            for record in source.downloads {
                #expect(
                    try await target.download(subscriptionID: record.subscriptionID, episodeKey: record.episodeKey)
                        == record)
            }
            // the in-progress record is still one to resume
            #expect(
                try await target.episodesToDownload(subscriptionID: source.moved, newest: 10).map(\.key)
                    == sqlite.episodesToDownload(subscriptionID: source.moved, newest: 10).map(\.key))
        }
        #expect(
            try await cluster.psql(
                database: databaseName(url), "SELECT state FROM download ORDER BY subscription_id, episode_key")
                == source.downloads.map(\.state.rawValue).joined(separator: "\n"))
    }

    @Test func mergingKeepsTheTargetsDownloadRecordAndCopiesTheOthersUnderTheTargetsSubscriptions() async throws {
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "migrate_merge_downloads")

        // Given a target with a feed of its own (so ids differ from the source's), and the source's moved feed with
        // its episodes, one of which it has its own download record for (in progress, other paths and validators)
        let nightShift = try SourceDatabase.demoFeed("night-shift-radio.xml")
        let (other, kept, own) = try await PostgresFeedStore.withStore(url: url) { target in
            let other = try await target.addSubscription(
                url: URL(string: "https://other.example.org/feed.xml")!, title: "Other", at: Date(), backlog: nil)
            let kept = try await target.addSubscription(
                url: URL(string: "https://night-shift.example.org/new-feed.xml")!, title: "Kept", at: Date(),
                backlog: nil)
            _ = try await target.apply(
                FeedCheck(
                    subscriptionID: kept.id, checkedAt: SourceDatabase.t0, status: 200,
                    result: .fetched(nightShift, etag: nil, lastModified: nil, unconditional: true)))
            let own = try await target.recordDownloadStarted(
                DownloadStart(
                    subscriptionID: kept.id, episodeKey: "nsr-003",
                    url: URL(string: "https://mirror.example.com/003.mp3")!, partPath: "/mine/003.mp3.part",
                    filePath: "/mine/003.mp3", etag: "\"mine\"", lastModified: nil,
                    startedAt: Date(timeIntervalSince1970: 1_800_000_000.5)))
            return (other, kept, own)
        }
        #expect(kept.id != source.moved, "the merge has ids to map")

        // When the source is merged into it
        let summary = try await migrate(source, into: url, merge: true, batchSize: 2)

        // Then the target's record is kept as it was, and the source's others are copied, every field equal, under
        // the subscriptions the target now has for their feeds
        #expect(summary.downloads == .init(source: 4, copied: 3, alreadyPresent: 1))
        try await PostgresFeedStore.withStore(url: url) { target in
            #expect(try await target.download(subscriptionID: kept.id, episodeKey: "nsr-003") == own)
            let sqlite = try FeedStore.openForReading(path: source.path)
            let sourceURLs = Dictionary(uniqueKeysWithValues: try await sqlite.subscriptions().map { ($0.id, $0.url) })
            let targetIDs = Dictionary(uniqueKeysWithValues: try await target.subscriptions().map { ($0.url, $0.id) })
            var expected: [DownloadRecord] = [own]
            for record in source.downloads where record.episodeKey != "nsr-003" {
                var mapped = record
                let feed = try #require(sourceURLs[record.subscriptionID])
                mapped.subscriptionID = try #require(targetIDs[feed])
                expected.append(mapped)
            }
            #expect(expected.contains { $0.subscriptionID == kept.id && $0.episodeKey == "nsr-002" })
            let copied = try await target.downloads(subscriptionID: nil)
            #expect(
                copied.sorted { ($0.subscriptionID, $0.episodeKey) < ($1.subscriptionID, $1.episodeKey) }
                    == expected.sorted { ($0.subscriptionID, $0.episodeKey) < ($1.subscriptionID, $1.episodeKey) })
            #expect(try await target.downloads(subscriptionID: other.id).isEmpty)
        }

        // and a second merge copies none of them twice
        let second = try await migrate(source, into: url, merge: true)
        #expect(second.downloads == .init(source: 4, copied: 0, alreadyPresent: 4))
        #expect(try await cluster.psql(database: databaseName(url), "SELECT count(*) FROM download") == "4")
    }

    @Test func aLargeDatabaseIsCopiedInPagesAndReadsBackTheSame() async throws {
        // Given a feed of 1 234 episodes, each with long show notes, stored by the real store: more than two pages
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-migrate-large-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("podfresh.sqlite").path
        let notes = String(repeating: "Show notes with <b>markup</b> & entities. ", count: 50)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Large</title>"#
        for number in 1...1234 {
            xml += """
                <item><title>Episode \(number)</title><guid>large-\(number)</guid>
                <pubDate>\(RFC3339.string(from: SourceDatabase.t0.addingTimeInterval(Double(-number) * 86_400)))</pubDate>
                <description><![CDATA[\(notes)\(number)]]></description>
                <enclosure url="https://large.example.org/\(number).mp3" length="\(number * 1000)" type="audio/mpeg"/></item>
                """
        }
        xml += "</channel></rss>"
        let feed = try FeedParser.parse(Array(xml.utf8))
        #expect(feed.episodes.count == 1234)
        do {
            let store = try FeedStore(path: path)
            let run = try await store.beginRun(at: SourceDatabase.t0)
            let subscription = try await store.addSubscription(
                url: URL(string: "https://large.example.org/feed.xml")!, title: nil, at: SourceDatabase.t0,
                backlog: nil)
            _ = try await store.apply(
                FeedCheck(
                    subscriptionID: subscription.id, checkedAt: SourceDatabase.t0, status: 200,
                    result: .fetched(feed, etag: nil, lastModified: nil, unconditional: true), runID: run.id,
                    announceLimit: 10))
        }

        // When it is copied with the default page size
        let url = try await TestPostgres.shared().makeDatabase(prefix: "migrate_large")
        let sqlite = try FeedStore.openForReading(path: path)
        let summary = try await PostgresFeedStore.withStore(url: url) { target in
            try await target.importStore(sqlite, merge: false)
        }

        // Then every episode is there, the same
        #expect(summary.episodes == .init(source: 1234, copied: 1234, alreadyPresent: 0))
        try await PostgresFeedStore.withStore(url: url) { target in
            let episodes = try await target.episodes(EpisodeQuery())
            #expect(episodes == (try await sqlite.episodes(EpisodeQuery())))
            #expect(try await target.countEpisodes(EpisodeQuery(runID: 1)) == 10, "announced in the run")
        }
    }

    @Test func theSourceFileIsByteIdenticalAfterwardsAndNothingAppearsBesideIt() async throws {
        // Given a closed SQLite database alone in its folder
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        let before = try source.files()
        #expect(before.keys.sorted() == ["podfresh.sqlite"], "the store closed cleanly: \(before.keys.sorted())")

        // When it is copied
        let url = try await TestPostgres.shared().makeDatabase(prefix: "migrate_source")
        _ = try await migrate(source, into: url)

        // Then the folder holds the same file with the same bytes, and no -wal, -shm or lock file
        let after = try source.files()
        #expect(after.keys.sorted() == before.keys.sorted())
        #expect(after == before, "the source's bytes did not change")
    }

    @Test func aTargetThatHoldsSubscriptionsIsRefusedWithoutMergeAndNothingIsWritten() async throws {
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "migrate_refused")
        let database = databaseName(url)
        // Given a target that already holds a subscription of its own
        try await PostgresFeedStore.withStore(url: url) { target in
            _ = try await target.addSubscription(
                url: URL(string: "https://mine.example.org/feed.xml")!, title: "Mine", at: Date(), backlog: nil)
        }
        let counts =
            "SELECT (SELECT count(*) FROM subscription), (SELECT count(*) FROM episode), (SELECT count(*) FROM refresh_run)"
        #expect(try await cluster.psql(database: database, counts) == "1|0|0")

        // When the copy is not asked to merge, it is refused, naming the subscriptions there
        do {
            _ = try await migrate(source, into: url)
            Issue.record("a target with subscriptions was not refused")
        } catch let refusal as MigrationRefusedError {
            #expect(refusal.subscriptionCount == 1)
            #expect(refusal.subscriptionCount == 1)
        }

        // Then nothing was written
        #expect(try await cluster.psql(database: database, counts) == "1|0|0")
    }

    @Test func mergingKeepsTheTargetsRowsAndASecondMergeCopiesNothingTwice() async throws {
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        let sqlite = try FeedStore.openForReading(path: source.path)
        let bounds = try await sqlite.exportBounds()
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "migrate_merge")
        let database = databaseName(url)

        // Given a target that already follows one of the source's feeds (under its own title and schedule), another
        // feed, and has a run of its own
        let (kept, other) = try await PostgresFeedStore.withStore(url: url) { target in
            let kept = try await target.addSubscription(
                url: URL(string: "HTTPS://Night-Shift.example.org/new-feed.xml")!, title: "Kept title", at: Date(),
                backlog: 3)
            let other = try await target.addSubscription(
                url: URL(string: "https://other.example.org/feed.xml")!, title: "Other", at: Date(), backlog: nil)
            let run = try await target.beginRun(at: Date(timeIntervalSince1970: 1_000))
            try await target.finishRun(run)
            return (kept, other)
        }

        // When the source is merged into it
        let first = try await migrate(source, into: url, merge: true)

        // Then the subscription the target had keeps its row and state, the others are new, and everything is counted
        #expect(first.merged)
        #expect(!first.keptIDs)
        #expect(first.subscriptions == .init(source: 5, copied: 4, alreadyPresent: 1))
        #expect(first.episodes == .init(source: bounds.episodes, copied: bounds.episodes, alreadyPresent: 0))
        #expect(first.runs == .init(source: 3, copied: 3, alreadyPresent: 0))
        #expect(first.downloads == .init(source: 4, copied: 4, alreadyPresent: 0))
        try await PostgresFeedStore.withStore(url: url) { target in
            let subscriptions = try await target.subscriptions()
            #expect(subscriptions.count == 6)
            let stillKept = try #require(subscriptions.first { $0.id == kept.id })
            #expect(stillKept.title == "Kept title")
            #expect(stillKept.backlog == 3)
            #expect(stillKept.etag == nil, "the target's row keeps its own state")
            #expect(subscriptions.contains { $0.id == other.id })
            // the moved feed's episodes now belong to the target's subscription
            let sourceEpisodes = try await sqlite.episodes(EpisodeQuery(subscriptionID: source.moved))
            let mergedEpisodes = try await target.episodes(EpisodeQuery(subscriptionID: kept.id))
            #expect(mergedEpisodes.map(\.key) == sourceEpisodes.map(\.key))
            #expect(mergedEpisodes.map(\.episode) == sourceEpisodes.map(\.episode))
            // and a copied subscription carries its state over
            let failing = try #require(subscriptions.first { $0.url.absoluteString.hasSuffix("notes.atom") })
            #expect(failing.failureCount == 1)
            #expect(failing.lastErrorKind == "timeout")
        }
        // the runs were appended, and first_seen_run_id follows them: run 1 of the source found the same episodes
        let firstRunEpisodes = try await sqlite.episodes(EpisodeQuery(runID: source.runs[0])).count
        #expect(
            try await cluster.psql(
                database: database,
                "SELECT count(*) FROM episode e JOIN refresh_run r ON r.id = e.first_seen_run_id WHERE r.started_at = \(SourceDatabase.t0.timeIntervalSince1970)"
            ) == "\(firstRunEpisodes)")
        let counts =
            "SELECT (SELECT count(*) FROM subscription), (SELECT count(*) FROM episode), (SELECT count(*) FROM refresh_run)"
        let afterFirst = try await cluster.psql(database: database, counts)
        #expect(afterFirst == "6|\(bounds.episodes)|4")

        // When it is merged a second time, nothing is copied twice
        let second = try await migrate(source, into: url, merge: true)
        #expect(second.subscriptions == .init(source: 5, copied: 0, alreadyPresent: 5))
        #expect(second.episodes == .init(source: bounds.episodes, copied: 0, alreadyPresent: bounds.episodes))
        #expect(second.runs == .init(source: 3, copied: 0, alreadyPresent: 3))
        #expect(second.downloads == .init(source: 4, copied: 0, alreadyPresent: 4))
        #expect(try await cluster.psql(database: database, counts) == afterFirst)
    }

    @Test func aCopyThatFailsPartWayLeavesTheTargetAsItWas() async throws {
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "migrate_fails")
        let database = databaseName(url)
        // Given a target that refuses trailers: the copy fails on the episodes, after subscriptions and runs were
        // written in its transaction
        try await PostgresFeedStore.withStore(url: url) { _ in }
        try await cluster.psql(
            database: database,
            "ALTER TABLE episode ADD CONSTRAINT no_trailers CHECK (episode_type IS DISTINCT FROM 'trailer')")

        await #expect(throws: StoreError.self) {
            _ = try await migrate(source, into: url, batchSize: 1)
        }

        // Then nothing of it is there
        #expect(
            try await cluster.psql(
                database: database,
                "SELECT (SELECT count(*) FROM subscription), (SELECT count(*) FROM episode), (SELECT count(*) FROM refresh_run), (SELECT count(*) FROM download)"
            ) == "0|0|0|0")
    }

    @Test func aCopyThatFailsOnTheDownloadRecordsLeavesTheTargetAsItWas() async throws {
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "migrate_fails_downloads")
        let database = databaseName(url)
        // Given a target that refuses records deleted by the user: the copy fails on the last table, after every
        // subscription, run and episode was written in its transaction
        try await PostgresFeedStore.withStore(url: url) { _ in }
        try await cluster.psql(
            database: database, "ALTER TABLE download ADD CONSTRAINT kept_files CHECK (NOT deleted_by_user)")

        await #expect(throws: StoreError.self) {
            _ = try await migrate(source, into: url, batchSize: 1)
        }

        // Then nothing of it is there
        #expect(
            try await cluster.psql(
                database: database,
                "SELECT (SELECT count(*) FROM subscription), (SELECT count(*) FROM episode), (SELECT count(*) FROM refresh_run), (SELECT count(*) FROM download)"
            ) == "0|0|0|0")
    }

    @Test func aTargetWithANewerSchemaIsRefusedUntouched() async throws {
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "migrate_newer")
        let database = databaseName(url)
        try await PostgresFeedStore.withStore(url: url) { _ in }
        try await cluster.psql(database: database, "UPDATE podfresh_schema SET version = 999")

        do {
            _ = try await migrate(source, into: url)
            Issue.record("a newer schema was not refused")
        } catch let error as StoreError {
            guard case .newerSchema(_, version: 999, _) = error.reason else {
                Issue.record("expected a newer schema, got \(error)")
                return
            }
        }
        #expect(try await cluster.psql(database: database, "SELECT count(*) FROM subscription") == "0")
    }
}
