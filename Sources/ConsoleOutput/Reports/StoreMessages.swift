public import FeedModels

/// What a user reads about a database that cannot be used: the store's message and, in the words of the options a
/// user types, what to do about it.
public enum StoreMessages {
    /// The store's problem on one line, then its remedy: `/tmp is a folder, not a database file; give a file path with
    /// --database`.
    public static func line(_ error: StoreError) -> String {
        guard let remedy = error.remedy else { return error.message }
        return error.message + "; " + text(remedy)
    }

    /// A remedy in the options' words.
    static func text(_ remedy: StoreError.Remedy) -> String {
        switch remedy {
        case .giveAFilePath: "give a file path with --database"
        case .useAnotherPath: "use another --database path"
        case .upgradeByWriting: "run a command that writes (e.g. `podfresh refresh --offline`) once to upgrade it"
        }
    }

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
}
