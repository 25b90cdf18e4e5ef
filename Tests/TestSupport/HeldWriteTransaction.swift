/// Runs `body` while another process (Python's sqlite3 module) that opened `path` holds a write transaction:
/// `BEGIN IMMEDIATE` plus the given writes, not committed. The process is killed and awaited when `body` ends; while
/// `body` runs, its ``RunningProcess/status`` stays nil as long as it holds the transaction.
///
/// - Throws: ``HeldWriteTransactionError`` when the process did not say it holds the transaction within 30 s.
public func withHeldWriteTransaction<R>(
    path: String, sql: String, _ body: (RunningProcess) async throws -> R
) async throws -> R {
    let script = """
        import sqlite3, sys, time
        db = sqlite3.connect(sys.argv[1], isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        for statement in sys.argv[2].split(";"):
            if statement.strip():
                db.execute(statement)
        print("held", flush=True)
        time.sleep(120)
        """
    return try await withRunningProcess(
        "/usr/bin/python3", arguments: ["-c", script, path, sql], stopAfter: .zero
    ) { held in
        guard await held.waitForLine(containing: "held", within: .seconds(30)) else {
            throw HeldWriteTransactionError(output: held.transcript)
        }
        return try await body(held)
    }
}

/// The process meant to hold a write transaction did not say it does.
public struct HeldWriteTransactionError: Error, CustomStringConvertible {
    public var output: String
    public var description: String { "python3 did not hold a write transaction:\n\(output)" }
}
