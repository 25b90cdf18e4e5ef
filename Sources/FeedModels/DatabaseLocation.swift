import Foundation

/// Where the database lives.
public enum DatabaseLocation {
    /// `--database` > `$PODFRESH_DATABASE` > `$XDG_DATA_HOME/podfresh/podfresh.sqlite` >
    /// `$HOME/.local/share/podfresh/podfresh.sqlite`.
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return (explicit as NSString).expandingTildeInPath }
        if let fromEnvironment = environment["PODFRESH_DATABASE"], !fromEnvironment.isEmpty {
            return (fromEnvironment as NSString).expandingTildeInPath
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/podfresh/podfresh.sqlite"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/podfresh/podfresh.sqlite"
    }

    /// The database a run uses, in the same order as ``resolve(explicit:environment:)``, with its backend decided
    /// from how it is written before anything touches the file system.
    ///
    /// - Throws: ``DatabaseLocationError`` for a URL whose scheme is neither PostgreSQL's nor `file`.
    public static func target(explicit: String?, environment: [String: String]) throws -> DatabaseTarget {
        do {
            if let explicit, !explicit.isEmpty { return try DatabaseTarget(explicit) }
        } catch var error as DatabaseLocationError {
            error.source = .explicit
            throw error
        }
        if let fromEnvironment = environment["PODFRESH_DATABASE"], !fromEnvironment.isEmpty {
            do {
                return try DatabaseTarget(fromEnvironment)
            } catch var error as DatabaseLocationError {
                error.source = .environment
                throw error
            }
        }
        return .sqlite(path: resolve(explicit: nil, environment: environment))
    }
}

/// Which database a run uses: an SQLite file or a PostgreSQL server.
public enum DatabaseTarget: Sendable, Hashable {
    /// An SQLite file (a plain path, `~/…`, or a `file://` URL).
    case sqlite(path: String)
    /// A PostgreSQL server, as its `postgres://` or `postgresql://` URL (`user:password@host:port/database`).
    case postgres(url: String)

    /// The URL schemes that name a PostgreSQL server.
    public static let postgresSchemes: Set<String> = ["postgres", "postgresql"]

    /// Reads a `--database` value or `PODFRESH_DATABASE`.
    ///
    /// Anything written `scheme://…` is a URL, decided by its scheme: PostgreSQL's two, or `file` (its path is an
    /// SQLite file). Anything else is a file path, so `~/podcasts:old/db.sqlite` stays a path.
    ///
    /// - Parameter text: The value as given.
    /// - Throws: ``DatabaseLocationError`` naming the scheme when it is none of those, or a `file://` URL names
    ///   another host.
    public init(_ text: String) throws {
        guard let scheme = Self.scheme(of: text) else {
            self = .sqlite(path: (text as NSString).expandingTildeInPath)
            return
        }
        if Self.postgresSchemes.contains(scheme) {
            self = .postgres(url: text)
        } else if scheme == "file", let url = URL(string: text),
            url.host.map({ $0.isEmpty || $0 == "localhost" }) ?? true,
            !url.path.isEmpty
        {
            self = .sqlite(path: url.path)
        } else if scheme == "file" {
            throw DatabaseLocationError(problem: .fileURLOnAnotherHost)
        } else {
            throw DatabaseLocationError(problem: .unknownScheme(scheme))
        }
    }

    /// The lowercased scheme of `text` when it is written `scheme://…` (RFC 3986 scheme characters), else nil.
    static func scheme(of text: String) -> String? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }
}

/// A database value that names no database podfresh can use (a usage error). It carries what is wrong and where
/// the value came from; the console words it (and never repeats a password from the value).
public struct DatabaseLocationError: Error, Hashable, CustomStringConvertible {
    /// What is wrong with the value.
    public enum Problem: Sendable, Hashable {
        /// A URL whose scheme (lowercased, without `://`) is neither PostgreSQL's nor `file`.
        case unknownScheme(String)
        /// A `file://` URL that names another host, or no path.
        case fileURLOnAnotherHost
    }

    /// Where the value came from.
    public enum Source: Sendable, Hashable {
        /// Given explicitly (the command line's database option).
        case explicit
        /// The `PODFRESH_DATABASE` environment variable.
        case environment
    }

    public let problem: Problem
    /// Where the value came from, when the caller said.
    public var source: Source?

    public init(problem: Problem, source: Source? = nil) {
        self.problem = problem
        self.source = source
    }

    /// The problem, for logs (the console words it for people).
    public var description: String {
        switch problem {
        case .unknownScheme(let scheme): "unknown database scheme \"\(scheme)://\""
        case .fileURLOnAnotherHost: "a file:// URL on another host"
        }
    }
}
