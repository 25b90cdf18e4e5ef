import FeedModels
public import Foundation
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL database is and how to reach it, read from a `postgres://` or `postgresql://` URL:
/// `postgres://user:password@host:port/database?sslmode=disable|prefer|require&connect_timeout=SECONDS`.
///
/// The user defaults to `$USER`, the host to `localhost`, the port to 5432, the database to the user's name, and
/// `sslmode` to `prefer` (TLS when the server offers it), as `libpq` does. `connect_timeout` bounds every connection
/// attempt, the pool's and the probe's that tells a server gone (as in `libpq`, at least 2 s). The password never
/// appears in ``description``.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// How the connection uses TLS.
    public enum TLSMode: String, Sendable, Hashable {
        /// Never TLS.
        case disable
        /// TLS when the server offers it (the default).
        case prefer
        /// TLS or no connection.
        case require
    }

    /// The server's host name or address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The user to log in as.
    public var username: String
    var password: String?
    /// The database's name.
    public var database: String
    /// How the connection uses TLS.
    public var tlsMode: TLSMode
    /// `connect_timeout`: how long one connection attempt may take, in seconds; nil for podfresh's defaults.
    public var connectTimeout: Int64?

    /// Reads a PostgreSQL URL.
    ///
    /// - Throws: ``StoreError`` `.database` when it is not a `postgres://`/`postgresql://` URL podfresh can use
    ///   (the message never repeats the password).
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(), DatabaseTarget.postgresSchemes.contains(scheme)
        else {
            throw StoreError(.postgresURL(.notAPostgresURL))
        }
        username = components.percentEncodedUser?.removingPercentEncoding ?? environment["USER"] ?? "postgres"
        password = components.percentEncodedPassword?.removingPercentEncoding
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        port = components.port ?? 5432
        let path = components.percentEncodedPath.removingPercentEncoding ?? components.path
        let name = path.hasPrefix("/") ? String(path.dropFirst()) : path
        database = name.isEmpty ? username : name
        tlsMode = .prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                switch item.value {
                case "disable": tlsMode = .disable
                case "allow", "prefer": tlsMode = .prefer
                case "require", "verify-ca", "verify-full": tlsMode = .require
                default:
                    throw StoreError(.postgresURL(.unknownSSLMode(item.value ?? "")))
                }
            case "connect_timeout":
                guard let seconds = item.value.flatMap({ Int64($0) }), seconds > 0 else {
                    throw StoreError(.postgresURL(.badConnectTimeout(item.value ?? "")))
                }
                connectTimeout = max(2, seconds)
            default:
                throw StoreError(.postgresURL(.unknownParameter(item.name)))
            }
        }
    }

    /// `postgres://user@host:port/database`, without the password.
    public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }

    var tls: PostgresConnection.Configuration.TLS {
        get throws {
            switch tlsMode {
            case .disable: return .disable
            case .prefer: return .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        }
    }

    var clientTLS: PostgresClient.Configuration.TLS {
        switch tlsMode {
        case .disable: return .disable
        case .prefer: return .prefer(.makeClientConfiguration())
        case .require: return .require(.makeClientConfiguration())
        }
    }

    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: try tls)
    }

    func clientConfiguration(maximumConnections: Int) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(connectTimeout ?? 10)
        return configuration
    }
}
