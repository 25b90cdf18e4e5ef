import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads a podfresh database file directly through the system's libsqlite3 (loaded with `dlopen`), independent of
/// GRDB and of ``FeedStorage``: for `PRAGMA integrity_check` and for facts the store's API does not expose.
struct SQLiteProbe {
    private typealias Open =
        @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>, Int32, UnsafePointer<CChar>?) ->
        Int32
    private typealias Prepare =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>, Int32, UnsafeMutablePointer<OpaquePointer?>,
            UnsafeMutablePointer<UnsafePointer<CChar>?>?
        ) -> Int32
    private typealias Step = @convention(c) (OpaquePointer?) -> Int32
    private typealias ColumnCount = @convention(c) (OpaquePointer?) -> Int32
    private typealias ColumnText = @convention(c) (OpaquePointer?, Int32) -> UnsafePointer<UInt8>?
    private typealias Finalize = @convention(c) (OpaquePointer?) -> Int32
    private typealias Close = @convention(c) (OpaquePointer?) -> Int32
    private typealias BusyTimeout = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias ErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?

    /// The library handle as a bit pattern (an `Int` is `Sendable`; the handle is never freed).
    private static let library: Int = Int(bitPattern: dlopen("libsqlite3.so.0", RTLD_NOW))

    private static func symbol<T>(_ name: String, as type: T.Type) throws -> T {
        guard let library = UnsafeMutableRawPointer(bitPattern: library), let pointer = dlsym(library, name) else {
            throw ProbeError("libsqlite3: no \(name)")
        }
        return unsafeBitCast(pointer, to: type)
    }

    /// Runs one statement on the file at `path` and returns every row as text columns.
    static func query(_ path: String, _ sql: String) throws -> [[String?]] {
        let open = try symbol("sqlite3_open_v2", as: Open.self)
        let prepare = try symbol("sqlite3_prepare_v2", as: Prepare.self)
        let step = try symbol("sqlite3_step", as: Step.self)
        let columnCount = try symbol("sqlite3_column_count", as: ColumnCount.self)
        let columnText = try symbol("sqlite3_column_text", as: ColumnText.self)
        let finalize = try symbol("sqlite3_finalize", as: Finalize.self)
        let closeDB = try symbol("sqlite3_close", as: Close.self)
        let busy = try symbol("sqlite3_busy_timeout", as: BusyTimeout.self)
        let errmsg = try symbol("sqlite3_errmsg", as: ErrorMessage.self)

        var db: OpaquePointer?
        // Read-write, so that a WAL left by a killed process can be recovered; nothing here writes.
        let SQLITE_OPEN_READWRITE: Int32 = 0x0000_0002
        guard open(path, &db, SQLITE_OPEN_READWRITE, nil) == 0 else {
            let message = errmsg(db).map { String(cString: $0) } ?? "?"
            _ = closeDB(db)
            throw ProbeError("cannot open \(path): \(message)")
        }
        defer { _ = closeDB(db) }
        _ = busy(db, 10_000)
        var statement: OpaquePointer?
        guard prepare(db, sql, -1, &statement, nil) == 0 else {
            throw ProbeError("cannot prepare \(sql): \(errmsg(db).map { String(cString: $0) } ?? "?")")
        }
        defer { _ = finalize(statement) }
        var rows: [[String?]] = []
        while true {
            let rc = step(statement)
            if rc == 101 { break }  // SQLITE_DONE
            guard rc == 100 else {  // SQLITE_ROW
                throw ProbeError("step failed (\(rc)): \(errmsg(db).map { String(cString: $0) } ?? "?")")
            }
            let n = columnCount(statement)
            rows.append((0..<n).map { index in columnText(statement, index).map { String(cString: $0) } })
        }
        return rows
    }

    /// `PRAGMA integrity_check` joined into one string: "ok" for a healthy file.
    static func integrityCheck(_ path: String) throws -> String {
        try query(path, "PRAGMA integrity_check").compactMap { $0.first ?? nil }.joined(separator: "; ")
    }
}

/// Reading the database file failed.
struct ProbeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
