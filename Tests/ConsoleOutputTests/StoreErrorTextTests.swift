import ConsoleOutput
import FeedModels
import Foundation
import RefreshEngine
import Testing

/// A store's error carries facts (which file, database, subscription, record; SQLite's and PostgreSQL's own text);
/// ConsoleOutput alone words them. These pin the wording of every reason.
struct StoreErrorTextTests {
    static let counts = StoreError.CopyCounts(
        expected: .init(subscriptions: 2, episodes: 10, runs: 1, downloads: 0),
        read: .init(subscriptions: 2, episodes: 9, runs: 1, downloads: 0),
        accounted: .init(subscriptions: 2, episodes: 9, runs: 1, downloads: 0),
        before: .init(subscriptions: 0, episodes: 0, runs: 0, downloads: 0),
        after: .init(subscriptions: 2, episodes: 9, runs: 1, downloads: 0),
        grown: .init(subscriptions: 2, episodes: 9, runs: 1, downloads: 0))

    static let wordings: [(StoreError.Reason, String)] = [
        (
            .alreadySubscribed(url: URL(string: "https://a.example/feed")!, subscriptionID: nil),
            "https://a.example/feed is already subscribed"
        ),
        (
            .alreadySubscribed(url: URL(string: "https://a.example/feed")!, subscriptionID: 3),
            "https://a.example/feed is already subscribed as 3"
        ),
        (.noSubscription(id: 9), "no subscription with id 9"),
        (.noMoveToUndo(subscriptionID: 4), "subscription 4 has not moved: there is no move to undo"),
        (.noEpisode(key: "e1", subscriptionID: 7), "no episode \"e1\" in subscription 7"),
        (.noDownload(episodeKey: "e1", subscriptionID: 7), "no download of \"e1\" in subscription 7"),
        (
            .leaseLost,
            "its check was not stored: this worker's lease on the feed ran out before the merge, and another worker may have checked it (the lease is shorter than this feed's fetch took)"
        ),
        (.emptyPath, "the database path is empty; give a file path with --database"),
        (.folderNotFile(path: "/tmp"), "/tmp is a folder, not a database file; give a file path with --database"),
        (
            .cannotCreateFolder(path: "/ro/p.sqlite", reason: "Permission denied"),
            "cannot create the folder for the database /ro/p.sqlite: Permission denied"
        ),
        (
            .cannotReachPath(path: "/x/p.sqlite", reason: "Permission denied"),
            "cannot open the database /x/p.sqlite: Permission denied; check the path"
        ),
        (.cannotOpen(path: "p.sqlite", reason: "odd"), "cannot open the database p.sqlite: odd"),
        (.cannotRead(path: "p.sqlite", reason: "odd"), "cannot read the database p.sqlite: odd"),
        (
            .notPodfreshDatabase(path: "notes.sqlite"),
            "notes.sqlite is not a podfresh database (an SQLite file of another program, left untouched); use another --database path"
        ),
        (
            .olderSchema(path: "p.sqlite"),
            "the database p.sqlite was written by an older podfresh; run a command that writes (e.g. `podfresh refresh --offline`) once to upgrade it"
        ),
        (.openedForReading(path: "p.sqlite"), "the database p.sqlite was opened for reading only"),
        (
            .cannotOpenLockFile(path: "f/p.sqlite.lock", reason: "Not a directory"),
            "cannot open the lock file f/p.sqlite.lock: Not a directory; check that the database's folder exists and is writable; use another --database path"
        ),
        (
            .sqlite(path: "p.sqlite", code: 26, message: "file is not a database", writing: true),
            "p.sqlite is not a podfresh database (not an SQLite file); use another --database path"
        ),
        (
            .sqlite(path: "p.sqlite", code: 14, message: "unable to open database file", writing: true),
            "cannot open the database p.sqlite for writing (unable to open database file); check the path and its permissions"
        ),
        (
            .sqlite(path: "p.sqlite", code: 8, message: nil, writing: false),
            "cannot open the database p.sqlite (permission denied); check the path and its permissions"
        ),
        (
            .sqlite(path: "p.sqlite", code: 11, message: "database disk image is malformed", writing: true),
            "the database p.sqlite is damaged (database disk image is malformed); restore a backup or start a new one"
        ),
        (
            .sqlite(path: "p.sqlite", code: 13, message: "database or disk is full", writing: true),
            "the disk holding p.sqlite is full; free some space and try again"
        ),
        (
            .sqlite(path: "p.sqlite", code: 10, message: "disk I/O error", writing: true),
            "cannot read or write the database p.sqlite (disk I/O error); check the disk, its free space and the file size limit"
        ),
        (
            .sqlite(path: "p.sqlite", code: 5, message: "database is locked", writing: true),
            "database error on p.sqlite: database is locked"
        ),
        (.sqlite(path: "p.sqlite", code: 5, message: nil, writing: true), "database error on p.sqlite: SQLite error 5"),
        (
            .postgresURL(.notAPostgresURL),
            "not a PostgreSQL URL podfresh can read; write it postgres://user:password@host:port/database"
        ),
        (
            .postgresURL(.unknownSSLMode("sometimes")),
            "sslmode=sometimes in the PostgreSQL URL: give disable, prefer or require"
        ),
        (
            .postgresURL(.badConnectTimeout("soon")),
            "connect_timeout=soon in the PostgreSQL URL: give a whole number of seconds"
        ),
        (
            .postgresURL(.unknownParameter("pool")),
            "unknown parameter pool in the PostgreSQL URL (podfresh knows sslmode and connect_timeout)"
        ),
        (
            .postgres(
                database: "postgres://u@db:5432/pf", sqlState: "28P01", message: "password authentication failed"),
            "PostgreSQL refused the login to postgres://u@db:5432/pf: password authentication failed; check the user and password"
        ),
        (
            .postgres(
                database: "postgres://u@db:5432/pf", sqlState: "3D000", message: "database \"pf\" does not exist"),
            "the PostgreSQL database postgres://u@db:5432/pf does not exist: database \"pf\" does not exist; create it first"
        ),
        (
            .postgres(database: "postgres://u@db:5432/pf", sqlState: "53100", message: "could not extend file"),
            "PostgreSQL error on postgres://u@db:5432/pf: could not extend file (SQLSTATE 53100)"
        ),
        (
            .postgres(database: "postgres://u@db:5432/pf", sqlState: nil, message: "tooManyParameters"),
            "PostgreSQL error on postgres://u@db:5432/pf: tooManyParameters"
        ),
        (
            .postgresUnreachable(host: "db", port: 5432, cause: .connectionRefused),
            "cannot reach PostgreSQL at db:5432: connection refused (nothing listens on that port); check that the server runs and the URL"
        ),
        (
            .postgresUnreachable(
                host: "db", port: 5432, cause: nil, reason: "unexpected error (NIOPosix.NIOConnectionError)"),
            "cannot reach PostgreSQL at db:5432: unexpected error (NIOPosix.NIOConnectionError); check that the server runs and the URL"
        ),
        (
            .postgresUnreachable(host: "db", port: 5432, cause: nil),
            "cannot reach PostgreSQL at db:5432; check that the server runs and the URL"
        ),
        (
            .postgresLost(host: "db", port: 5432, database: "pf"),
            "lost PostgreSQL at db:5432: no new connection could be made for a minute; check that the server runs and accepts connections to pf"
        ),
        (
            .postgresProbeFailed(
                host: "db", port: 5432,
                cause: .postgresUnreachable(host: "db", port: 5432, cause: .connectTimedOut(seconds: 5))),
            "lost PostgreSQL at db:5432: a query waited and a new connection failed: cannot reach PostgreSQL at db:5432: no answer within 5s; check that the server runs and the URL"
        ),
        (
            .newerSchema(database: "postgres://u@db:5432/pf", version: 9, known: 7),
            "the PostgreSQL database postgres://u@db:5432/pf has schema version 9, newer than this podfresh knows (7); upgrade podfresh"
        ),
        (
            .foreignTables(database: "postgres://u@db:5432/pf"),
            "the PostgreSQL database postgres://u@db:5432/pf holds another program's tables (a subscription table, no podfresh_schema); use another database"
        ),
        (
            .noRunID(database: "postgres://u@db:5432/pf"),
            "PostgreSQL did not return the new run's id on postgres://u@db:5432/pf"
        ),
        (
            .noRunJoined(database: "postgres://u@db:5432/pf"),
            "PostgreSQL error on postgres://u@db:5432/pf: no run was joined"
        ),
        (
            .copyDidNotCheckOut(target: "postgres://u@db:5432/pf", counts: counts),
            "the copy into postgres://u@db:5432/pf did not check out, so nothing was written: the source held 2 subscriptions, 10 episodes, 1 runs, 0 downloads when the copy began and 2 subscriptions, 9 episodes, 1 runs, 0 downloads were read; 2 subscriptions, 9 episodes, 1 runs, 0 downloads were copied or already present; the target held 0 subscriptions, 0 episodes, 0 runs, 0 downloads before and 2 subscriptions, 9 episodes, 1 runs, 0 downloads after, not 2 subscriptions, 9 episodes, 1 runs, 0 downloads (was the source changed during the copy?)"
        ),
        (
            .rowWithoutSubscription(.episode(id: 12), subscriptionID: 3),
            "episode 12 of the source belongs to subscription 3, which was not copied (was the source changed during the copy?)"
        ),
        (
            .rowWithoutSubscription(.download(episodeKey: "e1"), subscriptionID: 3),
            "the download of \"e1\" in the source belongs to subscription 3, which was not copied (was the source changed during the copy?)"
        ),
        (.unexpected(reason: "unexpected error (Odd)"), "unexpected error (Odd)"),
        (
            .stored(kind: .database, message: "as an older podfresh said it", remedy: .useAnotherPath),
            "as an older podfresh said it; use another --database path"
        ),
    ]

    @Test(arguments: wordings)
    func eachReasonIsWordedOnceWithItsRemedy(reason: StoreError.Reason, line: String) {
        #expect(StoreErrorText.line(StoreError(reason)) == line)
    }

    @Test func theKindAndTheRemedyFollowFromTheReason() {
        #expect(
            StoreError(.alreadySubscribed(url: URL(string: "https://a.example/")!, subscriptionID: 1)).kind
                == .duplicate)
        #expect(StoreError(.noDownload(episodeKey: "e", subscriptionID: 1)).kind == .notFound)
        #expect(StoreError(.leaseLost).kind == .leaseLost)
        #expect(StoreError(.sqlite(path: "p", code: 13, message: nil, writing: true)).kind == .database)
        #expect(StoreError(.sqlite(path: "p", code: 13, message: nil, writing: true)).remedy == nil)
        #expect(StoreError(.sqlite(path: "p", code: 26, message: nil, writing: true)).remedy == .useAnotherPath)
        #expect(StoreError(.emptyPath).remedy == .giveAFilePath)
        #expect(StoreError(.olderSchema(path: "p")).remedy == .upgradeByWriting)
    }

    @Test func aStoreErrorAnOlderPodfreshStoredIsReadBackAsItsSentence() throws {
        // As a download record's failure held it before reasons were typed.
        let old = #"{"notRecorded":{"_0":{"kind":"not-found","message":"no episode \"e1\" in subscription 7"}}}"#
        let cause = try JSONDecoder().decode(DownloadFailure.Cause.self, from: Data(old.utf8))
        guard case .notRecorded(let error) = cause else {
            Issue.record("expected a store error, got \(cause)")
            return
        }
        #expect(error.kind == .notFound)
        #expect(StoreErrorText.line(error) == "no episode \"e1\" in subscription 7")
    }

    @Test func aStoreErrorRoundTripsAsItsFacts() throws {
        let error = StoreError(
            .postgresProbeFailed(
                host: "db", port: 5432, cause: .postgres(database: "pf", sqlState: "57P01", message: "shutting down")))
        let data = try JSONEncoder().encode(error)
        #expect(!String(decoding: data, as: UTF8.self).contains("lost PostgreSQL"), "facts, not a sentence")
        #expect(try JSONDecoder().decode(StoreError.self, from: data) == error)
    }

    @Test func aDroppedCheckAndADownloadProblemAreWordedFromTheStoresError() {
        #expect(
            DownloadFailureText.problem(.notStarted(StoreError(.noSubscription(id: 2))))
                == "downloads not started: no subscription with id 2")
        #expect(
            DownloadFailureText.problem(
                .retentionNotApplied(
                    keepNewest: 3, StoreError(.sqlite(path: "p", code: 13, message: nil, writing: true))))
                == "retention (keep 3) not applied: the disk holding p is full; free some space and try again")
    }
}
