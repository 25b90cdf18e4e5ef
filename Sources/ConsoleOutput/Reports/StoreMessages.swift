public import FeedModels
import FeedParsing
public import Foundation

/// What a user reads about a database value that names no usable database (a store's own errors are
/// ``StoreErrorText``'s).
public enum StoreMessages {
    /// A database value that names no usable database, naming where it came from (the value itself is not repeated:
    /// it may hold a password).
    public static func location(_ error: DatabaseLocationError) -> String {
        let source =
            switch error.source {
            case .environment: "PODFRESH_DATABASE: "
            case .explicit: "--database: "
            case nil: ""
            }
        switch error.problem {
        case .unknownScheme(let scheme):
            return source
                + "unknown database scheme \"\(scheme)://\"; give a file path (SQLite) or a postgres:// or postgresql:// URL (PostgreSQL)"
        case .fileURLOnAnotherHost:
            return source + "a file:// URL must name a file on this machine (file:///path/to/podfresh.sqlite)"
        }
    }

    /// Another refresh or watch holds the database's run lock: who, as its lock file says, and what to do.
    ///
    /// - Parameters:
    ///   - pid: The holder's process id.
    ///   - since: When the holder started.
    ///   - command: The holder's command line.
    public static func runLockHeld(pid: Int32?, since: Date?, command: String?) -> String {
        var text = "another podfresh"
        if let command { text += " (\(command))" }
        if let pid { text += " with PID \(pid)" }
        if let since { text += " started \(LocalTime.string(since))" }
        return text + " is using this database; try again later, or pass --wait to wait for it"
    }
}
