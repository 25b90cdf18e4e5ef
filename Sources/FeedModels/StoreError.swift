public import Foundation

/// A storage failure a user can act on: a typed ``Reason`` (the facts), from which its ``kind`` and ``remedy``
/// follow. ConsoleOutput words it (`StoreErrorText`); no store builds a sentence.
///
/// `Codable` because a download record stores a failure that carries one (`DownloadFailure.Cause.notRecorded`).
public struct StoreError: Error, Hashable, CustomStringConvertible, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The URL is already subscribed.
        case duplicate
        /// No subscription with that id.
        case notFound = "not-found"
        /// The database file could not be opened, migrated or written.
        case database
        /// A worker's lease on the feed ran out and another worker may have checked it: the check was not stored.
        case leaseLost = "lease-lost"
    }

    /// What the user can do about a problem with the database's location; the console words it with the option a
    /// user types.
    public enum Remedy: Sendable, Hashable, Codable {
        /// Name a database file (the path given is empty, or a folder).
        case giveAFilePath
        /// Name another database file (this one is not podfresh's, or its folder is not usable).
        case useAnotherPath
        /// Run a command that writes, once, to upgrade a database an older podfresh wrote.
        case upgradeByWriting
    }

    /// What went wrong, as facts: which database, file, subscription or record, and the library's or the system's
    /// own reason text where one is the cause.
    public indirect enum Reason: Sendable, Hashable, Codable {
        // MARK: Subscriptions and records

        /// The URL is already subscribed (as subscription `subscriptionID`, when the store named it).
        case alreadySubscribed(url: URL, subscriptionID: Int64?)
        /// No subscription has this id.
        case noSubscription(id: Int64)
        /// The subscription has not moved, so there is no move to undo.
        case noMoveToUndo(subscriptionID: Int64)
        /// The subscription stores no episode with this identity key.
        case noEpisode(key: String, subscriptionID: Int64)
        /// The subscription has no download record for this episode key.
        case noDownload(episodeKey: String, subscriptionID: Int64)
        /// This worker's lease on the feed ran out before the merge: another worker may have checked it.
        case leaseLost

        // MARK: The SQLite file

        /// The database path is empty.
        case emptyPath
        /// The path names a folder.
        case folderNotFile(path: String)
        /// The folder for the database could not be created (the system's reason).
        case cannotCreateFolder(path: String, reason: String)
        /// The path could not be looked at (the system's reason).
        case cannotReachPath(path: String, reason: String)
        /// Opening the database failed with an error of another kind (its reason text).
        case cannotOpen(path: String, reason: String)
        /// Reading the database failed with an error of another kind (its reason text).
        case cannotRead(path: String, reason: String)
        /// An SQLite file of another program: left untouched.
        case notPodfreshDatabase(path: String)
        /// Written by an older podfresh, and not upgraded by a command that only reads.
        case olderSchema(path: String)
        /// A write reached a store opened for reading only.
        case openedForReading(path: String)
        /// The run lock's file beside the database could not be opened (the system's reason).
        case cannotOpenLockFile(path: String, reason: String)
        /// SQLite failed: its primary result code (`SQLITE_FULL` is 13 …) and its own message; `writing` when the
        /// database was opened to write.
        case sqlite(path: String, code: Int32, message: String?, writing: Bool)

        // MARK: PostgreSQL

        /// The PostgreSQL URL cannot be used.
        case postgresURL(PostgresURLProblem)
        /// PostgreSQL failed on `database` (a URL without its password): the server's SQLSTATE and message, or
        /// postgres-nio's own error text with no SQLSTATE.
        case postgres(database: String, sqlState: String?, message: String)
        /// No connection to the server at `host`:`port`, for `cause`. `reason` is only ever read back from a failure an
        /// older podfresh stored (postgres-nio's code and its words), shown as it was stored when `cause` is nil.
        case postgresUnreachable(host: String, port: Int, cause: ConnectionFailure?, reason: String? = nil)
        /// The connection pool gave up after failing to connect for a minute.
        case postgresLost(host: String, port: Int, database: String)
        /// A query waited, and a new connection to see whether the server is there failed for `cause`.
        case postgresProbeFailed(host: String, port: Int, cause: Reason)
        /// The database's schema is newer than this podfresh knows.
        case newerSchema(database: String, version: Int, known: Int)
        /// The database holds another program's `subscription` table.
        case foreignTables(database: String)
        /// PostgreSQL did not return the id of the run just inserted.
        case noRunID(database: String)
        /// PostgreSQL joined no check pass.
        case noRunJoined(database: String)

        // MARK: `migrate`

        /// The copy's counts do not add up, so nothing was written.
        case copyDidNotCheckOut(target: String, counts: CopyCounts)
        /// A copied row of the source belongs to a subscription that was not copied (the source changed meanwhile).
        case rowWithoutSubscription(CopiedRow, subscriptionID: Int64)

        // MARK: Other

        /// An error of a type podfresh did not expect: its reason text, or its type's name.
        case unexpected(reason: String)
        /// Read back from a record an older podfresh wrote, which stored its sentence: shown as it was stored.
        case stored(kind: Kind, message: String, remedy: Remedy?)
    }

    /// What is wrong with a PostgreSQL URL.
    public enum PostgresURLProblem: Sendable, Hashable, Codable {
        /// Not a `postgres://` or `postgresql://` URL podfresh can read.
        case notAPostgresURL
        /// An `sslmode` podfresh does not know (the value given).
        case unknownSSLMode(String)
        /// A query parameter podfresh does not know (its name).
        case unknownParameter(String)
        /// `connect_timeout` is not a whole number of seconds (the value as written).
        case badConnectTimeout(String)
    }

    /// A row of `migrate`'s source.
    public enum CopiedRow: Sendable, Hashable, Codable {
        /// An episode, by its id in the source.
        case episode(id: Int64)
        /// A download record, by its episode key.
        case download(episodeKey: String)
    }

    /// Rows in each of the four tables `migrate` copies.
    public struct TableCounts: Sendable, Hashable, Codable {
        public var subscriptions: Int
        public var episodes: Int
        public var runs: Int
        public var downloads: Int

        public init(subscriptions: Int, episodes: Int, runs: Int, downloads: Int) {
            self.subscriptions = subscriptions
            self.episodes = episodes
            self.runs = runs
            self.downloads = downloads
        }
    }

    /// The counts of a copy that did not check out.
    public struct CopyCounts: Sendable, Hashable, Codable {
        /// What the source held when the copy began.
        public var expected: TableCounts
        /// What was read from it.
        public var read: TableCounts
        /// What was copied or already present.
        public var accounted: TableCounts
        /// What the target held before.
        public var before: TableCounts
        /// What the target held after.
        public var after: TableCounts
        /// What the target should have held after.
        public var grown: TableCounts

        public init(
            expected: TableCounts, read: TableCounts, accounted: TableCounts, before: TableCounts,
            after: TableCounts, grown: TableCounts
        ) {
            self.expected = expected
            self.read = read
            self.accounted = accounted
            self.before = before
            self.after = after
            self.grown = grown
        }
    }

    /// What went wrong.
    public let reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// What kind of failure it is: follows from the reason.
    public var kind: Kind {
        switch reason {
        case .alreadySubscribed: .duplicate
        case .noSubscription, .noMoveToUndo, .noEpisode, .noDownload: .notFound
        case .leaseLost: .leaseLost
        case .stored(let kind, _, _): kind
        default: .database
        }
    }

    /// What to do about it, when the reason alone does not say: follows from the reason.
    public var remedy: Remedy? {
        switch reason {
        case .emptyPath, .folderNotFile: .giveAFilePath
        case .notPodfreshDatabase, .cannotOpenLockFile: .useAnotherPath
        case .sqlite(_, let code, _, _) where code == Self.sqliteNotADatabase: .useAnotherPath
        case .olderSchema: .upgradeByWriting
        case .stored(_, _, let remedy): remedy
        default: nil
        }
    }

    /// SQLite's `SQLITE_NOTADB`: the file is not a database.
    public static let sqliteNotADatabase: Int32 = 26

    /// For logs and debugging only; ConsoleOutput words the reason for users.
    public var description: String { "StoreError.\(kind.rawValue)(\(reason))" }

    // MARK: - Codable

    private enum CodingKeys: String, CodingKey {
        case reason
        // As an older podfresh wrote it.
        case kind, message, remedy
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let reason = try container.decodeIfPresent(Reason.self, forKey: .reason) {
            self.reason = reason
        } else {
            reason = .stored(
                kind: try container.decode(Kind.self, forKey: .kind),
                message: try container.decode(String.self, forKey: .message),
                remedy: try container.decodeIfPresent(Remedy.self, forKey: .remedy))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reason, forKey: .reason)
    }
}
