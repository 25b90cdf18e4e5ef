public import FeedModels
import Foundation
public import Logging
import Measures
import PostgresNIO
import _ConnectionPoolModule

/// The podfresh store on PostgreSQL, for a fleet of workers sharing one database: subscriptions, episodes and runs
/// behind postgres-nio's connection pool, with bound parameters and one transaction per write.
///
/// It keeps the SQLite `FeedStore`'s guarantees: every merge is one transaction, nothing is ever deleted by a
/// merge, and merging the same check twice announces no episode twice (the subscription's row is locked for the
/// merge, so two workers merging one feed take turns, and the second finds the episodes the first stored). The
/// schema is created and migrated on first use (see `PostgresSchema`). All SQL for PostgreSQL lives in this module.
///
/// Open one with ``withStore(url:maximumConnections:logger:_:)``, which runs the pool for as long as the body runs.
public struct PostgresFeedStore: SubscriptionRepository, EpisodeRepository, RefreshRunRepository {
    let client: PostgresClient
    /// The database, for messages (never with its password).
    public let location: PostgresLocation
    let logger: Logger

    /// The schema version this build of podfresh writes and understands.
    public static var schemaVersion: Int { PostgresSchema.currentVersion }

    /// Connects to the database at `url`, creates or migrates its schema, runs `body` with the store, and closes
    /// the pool when `body` returns or throws.
    ///
    /// - Parameters:
    ///   - url: A `postgres://` or `postgresql://` URL (see ``PostgresLocation``).
    ///   - maximumConnections: The most connections the pool opens.
    ///   - logger: Where postgres-nio logs; nothing by default.
    /// - Throws: ``StoreError`` `.database` when the server cannot be reached (naming host and port), refuses the
    ///   login or database, or holds a schema newer than this podfresh knows; whatever `body` throws.
    public static func withStore<Result: Sendable>(
        url: String,
        maximumConnections: Int = 8,
        logger: Logger = Logger(label: "podfresh.postgres", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: (PostgresFeedStore) async throws -> Result
    ) async throws -> Result {
        let location = try PostgresLocation(url: url)
        try await migrate(location, logger: logger)
        let client = PostgresClient(
            configuration: location.clientConfiguration(maximumConnections: maximumConnections),
            backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(PostgresFeedStore(client: client, location: location, logger: logger))
        }
    }

    /// Migrates over a connection of its own, so that an unreachable server or a refused login is reported at
    /// once, before the pool starts (a pool retries connections in the background).
    private static func migrate(_ location: PostgresLocation, logger: Logger) async throws {
        let connection: PostgresConnection
        do {
            var configuration = try location.connectionConfiguration()
            configuration.options.connectTimeout = .seconds(location.connectTimeout ?? probeTimeout)
            connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            throw storeError(error, location: location)
        }
        do {
            try await PostgresSchema.migrate(on: connection, location: location, logger: logger)
        } catch {
            try? await connection.close()
            throw storeError(error, location: location)
        }
        try? await connection.close()
    }

    // MARK: - Running SQL

    /// Runs `body` in one transaction on a pooled connection; any error rolls it back. A server that is gone fails
    /// it in seconds (``guarded(_:)``).
    func transaction<T: Sendable>(_ body: @escaping (PostgresConnection) async throws -> T) async throws -> T {
        let body = UncheckedClosure(value: body)
        let (client, logger) = (self.client, self.logger)
        do {
            return try await guarded {
                try await client.withTransaction(logger: logger) { connection in try await body.value(connection) }
            }
        } catch  where Self.isCancellation(error) {
            throw CancellationError()
        } catch {
            throw Self.storeError(error, location: location)
        }
    }

    /// Runs one statement outside an explicit transaction and collects its rows. A server that is gone fails it in
    /// seconds (``guarded(_:)``).
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let (client, logger) = (self.client, self.logger)
        do {
            return try await guarded {
                var rows: [PostgresRow] = []
                for try await row in try await client.query(query, logger: logger) { rows.append(row) }
                return rows
            }
        } catch  where Self.isCancellation(error) {
            throw CancellationError()
        } catch {
            throw Self.storeError(error, location: location)
        }
    }

    /// Whether `error` is the task's cancellation, as thrown or as what failed a transaction: a `watch` or refresh
    /// being stopped while a statement ran. It stays a `CancellationError`, so stopping does not read as a database
    /// error (exit 70).
    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? PostgresTransactionError,
            let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError
        {
            return isCancellation(cause)
        }
        return false
    }

    /// A ``StoreError`` naming the database and the cause, for any error from postgres-nio; a ``StoreError``
    /// thrown inside a transaction comes out as it went in.
    static func storeError(_ error: any Error, location: PostgresLocation) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? PostgresTransactionError {
            if let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError {
                return storeError(cause, location: location)
            }
        }
        if let error = error as? PSQLError {
            if let server = error.serverInfo, let message = server[.message] {
                return StoreError(
                    .postgres(database: location.description, sqlState: server[.sqlState], message: message))
            }
            if error.code == .connectionError || error.code == .serverClosedConnection
                || error.code == .uncleanShutdown
            {
                return StoreError(
                    .postgresUnreachable(host: location.host, port: location.port, cause: connectionFailure(error)))
            }
            return StoreError(.postgres(database: location.description, sqlState: nil, message: "\(error.code)"))
        }
        // postgres-nio's pool gives up after failing to connect for a minute.
        if let error = error as? ConnectionPoolError, error == .connectionCreationCircuitBreakerTripped {
            return StoreError(
                .postgresLost(host: location.host, port: location.port, database: location.database))
        }
        return StoreError(
            .postgres(database: location.description, sqlState: nil, message: ErrorWords.describe(error)))
    }
}

// MARK: - Reading rows

/// Typed reads from one row by column name.
struct RowReader {
    let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) { self.row = row.makeRandomAccess() }

    func text(_ column: String) throws -> String? { try row[column].decode(String?.self) }
    func integer(_ column: String) throws -> Int? { try row[column].decode(Int?.self) }
    func int64(_ column: String) throws -> Int64? { try row[column].decode(Int64?.self) }
    func real(_ column: String) throws -> Double? { try row[column].decode(Double?.self) }
    func bool(_ column: String) throws -> Bool? { try row[column].decode(Bool?.self) }
    func date(_ column: String) throws -> Date? { try real(column).map(Date.init(timeIntervalSince1970:)) }
    func url(_ column: String) throws -> URL? { try text(column).flatMap(URL.init(string:)) }
}
