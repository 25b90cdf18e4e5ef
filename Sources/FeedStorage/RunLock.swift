import FeedModels
import FeedParsing
public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why the run lock could not be taken: who holds it, as far as its lock file says. ConsoleOutput words it
/// (`StoreMessages.runLockHeld`).
public struct RunLockError: Error, Hashable, CustomStringConvertible {
    /// The holder's process id, as it wrote it into the lock file.
    public let pid: Int32?
    /// When the holder started.
    public let since: Date?
    /// The holder's command line.
    public let command: String?
    /// For logs and debugging only; ConsoleOutput words it for users.
    public var description: String {
        "RunLockError(pid: \(pid.map(String.init) ?? "nil"), since: \(since.map(RFC3339.string(from:)) ?? "nil"), "
            + "command: \(command ?? "nil"))"
    }
}

/// An exclusive lock beside the database (`<database>.lock`), so one refresh or watch runs at a time.
///
/// It is an `flock` on an open file, not a PID file: the kernel releases it when the holder exits or is killed, so a
/// stale lock never blocks. The holder writes its PID, start time and command line into the file for the message
/// others see.
///
/// ## Why this class is `@unchecked Sendable`
/// The descriptor is written only in `init` and in `release()`, which runs under `lock`.
public final class RunLock: @unchecked Sendable {
    private let lock = NSLock()
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { release() }

    /// Takes the lock for the database at `path`.
    ///
    /// - Parameter wait: nil to try once; otherwise how long to keep trying (polling every 100 ms).
    /// - Throws: ``RunLockError`` naming the holder when the lock stays taken; ``StoreError`` `.database` when the
    ///   database is another program's SQLite file, or when the lock file cannot be opened at all (a read-only
    ///   folder, a parent that is a file): a problem with the database's location, not a busy database, and waiting
    ///   would not help.
    public static func acquire(forDatabaseAt path: String, wait: Duration?) async throws -> RunLock {
        let lockPath = path + ".lock"
        // No lock file beside another program's SQLite file: it is refused before anything is created. (Any other
        // problem with the file is the store's to report, when it opens it.)
        if case .foreign? = try? FeedStore.existingSchema(at: path) { throw FeedStore.foreignDatabase(path) }
        try? FileManager.default.createDirectory(
            at: URL(fileURLWithPath: lockPath).deletingLastPathComponent(), withIntermediateDirectories: true)
        let deadline = wait.map { ContinuousClock.now.advanced(by: $0) }
        while true {
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw StoreError(.cannotOpenLockFile(path: lockPath, reason: String(cString: strerror(errno))))
            }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                let info =
                    "\(getpid())\n\(Date().timeIntervalSince1970)\n\(CommandLine.arguments.joined(separator: " "))\n"
                _ = ftruncate(fd, 0)
                _ = info.withCString { pwrite(fd, $0, strlen($0), 0) }
                return RunLock(descriptor: fd)
            }
            close(fd)
            if let deadline, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            throw holderError(lockPath)
        }
    }

    static func holderError(_ lockPath: String) -> RunLockError {
        let lines = ((try? String(contentsOfFile: lockPath, encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init)
        return RunLockError(
            pid: lines.first.flatMap { Int32($0) },
            since: lines.count > 1 ? Double(lines[1]).map(Date.init(timeIntervalSince1970:)) : nil,
            command: lines.count > 2 ? String(lines[2].prefix(200)) : nil)
    }

    /// Releases the lock (also done when the object goes away or the process ends).
    public func release() {
        lock.withLock {
            guard descriptor >= 0 else { return }
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }
}
