import ArgumentParser
import ConsoleOutput
import FeedModels
import FeedStorage
import Foundation
import PostgresStorage

extension RootCommand {
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the SQLite database into PostgreSQL, to move up to a fleet of workers.",
            discussion: """
                Copies every subscription (with its validators, schedule, error state, moves, backlog and download \
                settings), every episode, every refresh run, every download record and the sync set-up (its cursors, \
                play states and actions to push; the password from the file beside the SQLite database moves into \
                PostgreSQL) of the SQLite database \
                (--database, PODFRESH_DATABASE or the default file) into the PostgreSQL database given with --to, in \
                one transaction: an interrupted copy leaves the target as it was. The SQLite file is only read, never changed. Into a database without \
                subscriptions every row keeps its id. The counts are checked before the copy commits; a mismatch \
                writes nothing and exits 70.

                A target that already holds subscriptions is refused (exit 1) unless --merge is given: then \
                subscriptions are matched by URL (the target's keep their state), episodes and download records \
                the target already has are left as they are, and runs are appended.

                Exit status: 0 copied; 1 the target already holds subscriptions and --merge was not given (nothing \
                was written); 64 usage error (--to is not a PostgreSQL URL, or the database to copy is one); 70 the \
                SQLite file cannot be read, PostgreSQL cannot be reached or refuses, its schema is newer than this \
                podfresh, or the counts did not check out (nothing was written).
                """)

        @OptionGroup var global: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "The PostgreSQL database to copy into: postgres://user:password@host:port/database.",
                valueName: "url"))
        var to: String

        @Flag(help: "Merge into a target that already holds subscriptions (by default such a target is refused).")
        var merge = false

        @Flag(help: "Print one JSON object.")
        var json = false

        func validate() throws {
            guard case .postgres? = try? DatabaseTarget(to) else {
                throw ValidationError(MigrationReport.targetNotPostgres)
            }
            if case .postgres = try global.databaseTarget {
                throw ValidationError(MigrationReport.sourceIsPostgres)
            }
        }

        func run() async throws {
            guard case .sqlite(let path) = try global.databaseTarget else {
                throw ValidationError(MigrationReport.sourceIsPostgres)
            }
            // openForReading reads a missing file as an empty store; copying nothing from a mistyped path would hide
            // the mistake.
            guard FileManager.default.fileExists(atPath: path) else {
                Console.standard.error(MigrationReport.noSource(path))
                throw ExitStatus.internalError
            }
            let summary: MigrationSummary
            let target: String
            do {
                (summary, target) = try await Self.copy(from: path, to: to, merge: merge)
            } catch let refusal as MigrationRefusedError {
                Console.standard.error(
                    MigrationReport.targetNotEmpty(
                        target: refusal.target.description, subscriptionCount: refusal.subscriptionCount))
                throw ExitCode(1)
            }
            let report = MigrationReport(summary: summary, source: path, target: target)
            if json {
                Console.standard.line(report.json())
            } else {
                Console.standard.lines(report.lines())
            }
        }

        /// Opens the SQLite file for reading only and copies it into the database at `url`. The source store is
        /// released (its connection closed) before this returns.
        static func copy(from path: String, to url: String, merge: Bool) async throws -> (MigrationSummary, String) {
            let source = try await FeedStore.open(forReadingAt: path)
            // The sync password beside the SQLite file moves into the database with the set-up (every worker needs
            // it); the file itself is left, as the SQLite file is.
            let password = try SyncCredentials.read(from: SyncCredentials.passwordPath(forDatabaseAt: path))
            return try await PostgresFeedStore.withStore(url: url, maximumConnections: 1) { store in
                (
                    try await store.importStore(source, merge: merge, syncPassword: password),
                    store.location.description
                )
            }
        }
    }
}
