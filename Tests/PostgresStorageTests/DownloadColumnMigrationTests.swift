import FeedModels
import FeedStorage
import Foundation
import GRDB
import PostgresStorage
import TestSupport
import Testing

/// `podfresh migrate` carries every column of SQLite's `download` table into PostgreSQL: the ones issue #21 added
/// (a broken link's failures in a row, when it is tried again and its last message) as well as the validators, paths
/// and bytes that a resume needs. The check reads SQLite's own list of columns, so a column added there later and not
/// carried fails it too.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DownloadColumnMigrationTests {
    @Test func everyDownloadColumnArrivesInPostgreSQLWithItsValue() async throws {
        // Given the SQLite database of the migration tests, with one more record: a broken link that waits, after a
        // resumable start (validators, part file, bytes so far) and two permanent failures, so that no column of
        // its row is left at its default
        let source = try await SourceDatabase.make()
        defer { source.remove() }
        let failedAt = SourceDatabase.t0.addingTimeInterval(86_400.5)
        let waiting: DownloadRecord
        do {
            let store = try FeedStore(path: source.path)
            try await store.recordDownloadStarted(
                DownloadStart(
                    subscriptionID: source.moved, episodeKey: "nsr-001",
                    url: URL(string: "https://night-shift.example.org/audio/001.mp3?a=1&b=2")!,
                    partPath: "/srv/podcasts/Night Shift/001.mp3.part", filePath: "/srv/podcasts/Night Shift/001.mp3",
                    etag: "\"m-1\"", lastModified: "Mon, 11 Nov 2024 04:00:00 GMT",
                    startedAt: SourceDatabase.t0.addingTimeInterval(3600.25)))
            for (attempt, error) in ["HTTP 404 Not Found", "HTTP 410 Gone"].enumerated() {
                _ = try await store.recordPermanentFailure(
                    subscriptionID: source.moved, episodeKey: "nsr-001", error: error, partialBytes: 4096,
                    at: failedAt.addingTimeInterval(Double(attempt)))
            }
            // … and files beside it (`--extras on`), recorded with it.
            try await store.recordExtraFiles(
                subscriptionID: source.moved, episodeKey: "nsr-001", SourceDatabase.extraFiles)
            waiting = try #require(try await store.download(subscriptionID: source.moved, episodeKey: "nsr-001"))
        }
        #expect(waiting.permanentFailures == 2 && waiting.permanentError == "HTTP 410 Gone")
        #expect(waiting.retryAfter.map { $0 > failedAt } == true && waiting.isWaiting(at: failedAt))
        #expect(waiting.etag == "\"m-1\"" && waiting.bytes == 4096 && waiting.lastError == "HTTP 410 Gone")
        let sqliteRow = try Self.sqliteRow(path: source.path, episodeKey: "nsr-001")
        let unset = sqliteRow.filter { $0.value.isNull }.map(\.key)
        #expect(
            Set(unset) == ["downloadedAt"], "every column but the completion time holds a value: \(unset.sorted())")

        // When it is copied into an empty PostgreSQL database
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "migrate_download_columns")
        let database = String(url.split(separator: "/").last ?? "")
        let summary = try await PostgresFeedStore.withStore(url: url) { target in
            try await target.importStore(try FeedStore.openForReading(path: source.path), merge: false, batchSize: 2)
        }
        #expect(summary.downloads == .init(source: 5, copied: 5, alreadyPresent: 0))

        // Then PostgreSQL has a column for each of SQLite's, holding the same value …
        let postgresColumns = Set(
            try await cluster.psql(
                database: database,
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'download'"
            ).split(separator: "\n").map(String.init))
        for (column, value) in sqliteRow.sorted(by: { $0.key < $1.key }) {
            let name = Self.snakeCase(column)
            guard postgresColumns.contains(name) else {
                Issue.record("SQLite's download.\(column) has no PostgreSQL column \(name): migrate drops it")
                continue
            }
            let copied = try await cluster.psql(
                database: database,
                "SELECT COALESCE(\(name)::text, '<null>') FROM download WHERE episode_key = 'nsr-001'")
            #expect(Self.same(value, copied), "download.\(column): SQLite \(value), PostgreSQL \(copied)")
        }
        // … and the PostgreSQL store reads the same record back: the broken link still waits, until the same time,
        // and is still a download to try when its wait is over.
        let sqlite = try FeedStore.openForReading(path: source.path)
        try await PostgresFeedStore.withStore(url: url) { target in
            let copied = try #require(try await target.download(subscriptionID: source.moved, episodeKey: "nsr-001"))
            #expect(copied == waiting)
            #expect(copied.isWaiting(at: failedAt) && !copied.isWaiting(at: waiting.retryAfter ?? failedAt))
            #expect(
                try await target.episodesToDownload(subscriptionID: source.moved, newest: 10).map(\.key)
                    == sqlite.episodesToDownload(subscriptionID: source.moved, newest: 10).map(\.key))
        }
    }

    /// The record's row as SQLite stores it, by column name.
    private static func sqliteRow(path: String, episodeKey: String) throws -> [String: DatabaseValue] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(download)").map { $0["name"] as String }
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM download WHERE episodeKey = ?", arguments: [episodeKey])
            else { return [:] }
            return Dictionary(uniqueKeysWithValues: columns.map { ($0, row[$0] as DatabaseValue) })
        }
    }

    /// `permanentFailures` → `permanent_failures`, as the PostgreSQL schema names columns.
    private static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
        }
    }

    /// SQLite's value and PostgreSQL's text for it say the same: booleans as 0/1 and false/true, numbers by value.
    private static func same(_ value: DatabaseValue, _ text: String) -> Bool {
        switch value.storage {
        case .null: return text == "<null>"
        case .int64(let number):
            if text == "true" || text == "false" { return (number != 0) == (text == "true") }
            return Int64(text) == number
        case .double(let number): return Double(text) == number
        case .string(let string): return string == text
        case .blob: return false
        }
    }
}
