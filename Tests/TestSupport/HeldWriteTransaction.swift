import Foundation

/// Another process (Python's sqlite3 module) that opens `path`, runs `BEGIN IMMEDIATE` plus the given writes, says
/// "held" and keeps the write transaction open until it is killed.
public final class HeldWriteTransaction {
    private let process = Process()

    public init(path: String, sql: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            for statement in sys.argv[2].split(";"):
                if statement.strip():
                    db.execute(statement)
            print("held", flush=True)
            time.sleep(120)
            """,
            path, sql,
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let said = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard said.contains("held") else { throw CocoaError(.fileReadUnknown) }
    }

    public var isHolding: Bool { process.isRunning }

    public func end() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
