public import FeedModels
import Foundation

/// How a store's error reads: the one place each ``StoreError/Reason`` is worded, and its remedy in the words of the
/// options a user types.
public enum StoreErrorText {
    /// The store's problem on one line, then its remedy: `/tmp is a folder, not a database file; give a file path with
    /// --database`.
    public static func line(_ error: StoreError) -> String {
        guard let remedy = error.remedy else { return reason(error.reason) }
        return reason(error.reason) + "; " + text(remedy)
    }

    /// A remedy in the options' words.
    static func text(_ remedy: StoreError.Remedy) -> String {
        switch remedy {
        case .giveAFilePath: "give a file path with --database"
        case .useAnotherPath: "use another --database path"
        case .upgradeByWriting: "run a command that writes (e.g. `podfresh refresh --offline`) once to upgrade it"
        }
    }

    /// The reason on one line, without the remedy.
    public static func reason(_ reason: StoreError.Reason) -> String {
        switch reason {
        case .alreadySubscribed(let url, nil): "\(url.absoluteString) is already subscribed"
        case .alreadySubscribed(let url, let id?): "\(url.absoluteString) is already subscribed as \(id)"
        case .noSubscription(let id): "no subscription with id \(id)"
        case .noMoveToUndo(let id): "subscription \(id) has not moved: there is no move to undo"
        case .noEpisode(let key, let id): "no episode \"\(key)\" in subscription \(id)"
        case .noDownload(let key, let id): "no download of \"\(key)\" in subscription \(id)"
        case .leaseLost:
            "its check was not stored: this worker's lease on the feed ran out before the merge, and another worker may have checked it (the lease is shorter than this feed's fetch took)"
        case .emptyPath: "the database path is empty"
        case .folderNotFile(let path): "\(path) is a folder, not a database file"
        case .cannotCreateFolder(let path, let why): "cannot create the folder for the database \(path): \(why)"
        case .cannotReachPath(let path, let why): "cannot open the database \(path): \(why); check the path"
        case .cannotOpen(let path, let why): "cannot open the database \(path): \(why)"
        case .cannotRead(let path, let why): "cannot read the database \(path): \(why)"
        case .notPodfreshDatabase(let path):
            "\(path) is not a podfresh database (an SQLite file of another program, left untouched)"
        case .olderSchema(let path): "the database \(path) was written by an older podfresh"
        case .openedForReading(let path): "the database \(path) was opened for reading only"
        case .cannotOpenLockFile(let path, let why):
            "cannot open the lock file \(path): \(why); check that the database's folder exists and is writable"
        case .sqlite(let path, let code, let message, let writing):
            sqlite(path: path, code: code, message: message, writing: writing)
        case .postgresURL(let problem): postgresURL(problem)
        case .postgres(let database, let sqlState, let message):
            postgres(database: database, sqlState: sqlState, message: message)
        case .postgresUnreachable(let host, let port, let cause, let stored):
            "cannot reach PostgreSQL at \(host):\(port)"
                + ((cause.map(ConnectionFailureText.reason) ?? stored).map { ": " + $0 } ?? "")
                + "; check that the server runs and the URL"
        case .postgresLost(let host, let port, let database):
            "lost PostgreSQL at \(host):\(port): no new connection could be made for a minute; check that the server runs and accepts connections to \(database)"
        case .postgresProbeFailed(let host, let port, let cause):
            "lost PostgreSQL at \(host):\(port): a query waited and a new connection failed: \(Self.reason(cause))"
        case .newerSchema(let database, let version, let known):
            "the PostgreSQL database \(database) has schema version \(version), newer than this podfresh knows (\(known)); upgrade podfresh"
        case .foreignTables(let database):
            "the PostgreSQL database \(database) holds another program's tables (a subscription table, no podfresh_schema); use another database"
        case .noRunID(let database): "PostgreSQL did not return the new run's id on \(database)"
        case .noRunJoined(let database): "PostgreSQL error on \(database): no run was joined"
        case .copyDidNotCheckOut(let target, let c):
            "the copy into \(target) did not check out, so nothing was written: the source held \(counts(c.expected)) when the copy began and \(counts(c.read)) were read; \(counts(c.accounted)) were copied or already present; the target held \(counts(c.before)) before and \(counts(c.after)) after, not \(counts(c.grown)) (was the source changed during the copy?)"
        case .rowWithoutSubscription(.episode(let id), let subscriptionID):
            "episode \(id) of the source belongs to subscription \(subscriptionID), which was not copied (was the source changed during the copy?)"
        case .rowWithoutSubscription(.download(let key), let subscriptionID):
            "the download of \"\(key)\" in the source belongs to subscription \(subscriptionID), which was not copied (was the source changed during the copy?)"
        case .unexpected(let why): why
        case .stored(_, let message, _): message
        }
    }

    /// An SQLite error by its primary result code, with SQLite's own message.
    static func sqlite(path: String, code: Int32, message: String?, writing: Bool) -> String {
        switch code {
        case StoreError.sqliteNotADatabase: return "\(path) is not a podfresh database (not an SQLite file)"
        case 14, 8, 3:  // SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM
            return
                "cannot open the database \(path)\(writing ? " for writing" : "") (\(message ?? "permission denied")); check the path and its permissions"
        case 11:  // SQLITE_CORRUPT
            return "the database \(path) is damaged (\(message ?? "corrupt")); restore a backup or start a new one"
        case 13:  // SQLITE_FULL
            return "the disk holding \(path) is full; free some space and try again"
        case 10:  // SQLITE_IOERR
            return
                "cannot read or write the database \(path) (\(message ?? "disk I/O error")); check the disk, its free space and the file size limit"
        default:
            return "database error on \(path): \(message ?? "SQLite error \(code)")"
        }
    }

    static func postgresURL(_ problem: StoreError.PostgresURLProblem) -> String {
        switch problem {
        case .notAPostgresURL:
            "not a PostgreSQL URL podfresh can read; write it postgres://user:password@host:port/database"
        case .unknownSSLMode(let value): "sslmode=\(value) in the PostgreSQL URL: give disable, prefer or require"
        case .unknownParameter(let name):
            "unknown parameter \(name) in the PostgreSQL URL (podfresh knows sslmode and connect_timeout)"
        case .badConnectTimeout(let value):
            "connect_timeout=\(value) in the PostgreSQL URL: give a whole number of seconds"
        }
    }

    /// A PostgreSQL error by its SQLSTATE (a refused login, a missing database), with the server's message.
    static func postgres(database: String, sqlState: String?, message: String) -> String {
        switch sqlState {
        case "28P01", "28000":  // invalid_password, invalid_authorization_specification
            "PostgreSQL refused the login to \(database): \(message); check the user and password"
        case "3D000":  // invalid_catalog_name
            "the PostgreSQL database \(database) does not exist: \(message); create it first"
        default:
            "PostgreSQL error on \(database): \(message)\(sqlState.map { " (SQLSTATE \($0))" } ?? "")"
        }
    }

    static func counts(_ counts: StoreError.TableCounts) -> String {
        "\(counts.subscriptions) subscriptions, \(counts.episodes) episodes, \(counts.runs) runs, \(counts.downloads) downloads"
    }
}
