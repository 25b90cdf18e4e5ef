public import Foundation
import Glibc
import Synchronization

/// A throwaway PostgreSQL cluster for tests: `initdb` in a temporary folder, `pg_ctl start` on a free loopback port,
/// `pg_ctl stop -m immediate` and the folder deleted at the end.
///
/// PostgreSQL refuses to run as root (CI runs as root), so as root every server program runs as the `postgres`
/// system user that Debian's package creates (`runuser -u postgres --`), in a folder given to that user first. The
/// binaries are found under `/usr/lib/postgresql/*/bin` (the newest version), not on `PATH`;
/// `Scripts/install-deps.sh` installs the package when they are missing.
///
/// Starting a cluster costs seconds, so tests share one per test process (``shared()``, stopped when the process
/// exits) and take a fresh database each (``makeDatabase()``). The server listens on 127.0.0.1 only, with its socket
/// in the cluster's own folder (`-k`), trusts every local connection (no password), and runs with `fsync=off`: a
/// crash loses a test's data, never the machine's.
///
/// Every stored property is immutable except the "stopped" flag, which a `Mutex` guards, so the class is checked
/// `Sendable`.
public final class TestPostgres: Sendable {
    /// The cluster's superuser, who owns every test database.
    public let user = "postgres"
    /// The loopback address the server listens on.
    public let host = "127.0.0.1"
    /// The TCP port the server listens on.
    public let port: Int
    /// The temporary folder holding the cluster (`data/`), its socket and its log.
    public let directory: URL
    private let binaries: URL
    private let runAsPostgres: Bool
    private let stopped = Mutex(false)
    private let databaseCounter = Mutex(0)

    /// A problem starting or using the test cluster, with what the server or tool said.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, and the tool's own output.
        public let description: String
    }

    /// Creates and starts a cluster of its own; ``stop()`` stops it and deletes its folder.
    ///
    /// - Parameter password: When given, the cluster asks every connection for this password of the `postgres` user
    ///   (SCRAM), instead of trusting every local connection; ``psql(database:_:)`` and ``makeDatabase(prefix:)`` then
    ///   cannot log in.
    /// - Throws: ``Failure`` when PostgreSQL is not installed or the cluster does not start (the log is included).
    public init(password: String? = nil) throws {
        binaries = try Self.findBinaries()
        runAsPostgres = getuid() == 0
        directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("podfresh-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var startedPort: Int?
        do {
            var authentication = ["--auth=trust"]
            if let password {
                let file = directory.appendingPathComponent("password")
                try Data(password.utf8).write(to: file)
                authentication = ["--auth=scram-sha-256", "--pwfile=\(file.path)"]
            }
            if runAsPostgres { try Self.run("/usr/bin/chown", ["-R", "postgres", directory.path]) }
            try Self.run(
                Self.command(binaries, "initdb", asPostgres: runAsPostgres),
                [
                    "-D", directory.appendingPathComponent("data").path, "--username=postgres",
                    "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync",
                ] + authentication)
            // A port that was free a moment ago may be taken by the time the server binds it: try a few.
            var lastError: (any Error)?
            for _ in 0..<5 {
                let candidate = closedLoopbackPort()
                do {
                    try Self.run(
                        Self.command(binaries, "pg_ctl", asPostgres: runAsPostgres),
                        [
                            "start", "-w", "-t", "60", "-D", directory.appendingPathComponent("data").path,
                            "-l", directory.appendingPathComponent("server.log").path,
                            "-o",
                            "-p \(candidate) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off "
                                + "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
                        ])
                    startedPort = candidate
                    break
                } catch {
                    lastError = error
                }
            }
            guard let startedPort else {
                let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8))
                throw Failure(
                    description: "the test PostgreSQL did not start: \(lastError.map { "\($0)" } ?? "")\n\(log ?? "")")
            }
            port = startedPort
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit { stop() }

    /// Creates and starts a cluster of its own, as ``init(password:)`` does, on a thread of its own: `initdb` and
    /// `pg_ctl start` take seconds (a minute on a loaded machine), and waiting for them on a thread of the cooperative
    /// pool, which has one per core, stalled every other test of the process.
    public static func start(password: String? = nil) async throws -> TestPostgres {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try TestPostgres(password: password) }) }.start()
        }
    }

    // MARK: - One cluster per test process

    /// Started by the first caller of ``shared()``; later callers await the same start.
    private static let sharedCluster = Task { try await start() }
    /// The shared cluster once started, for the `atexit` handler.
    private static let startedCluster = Mutex<TestPostgres?>(nil)

    /// The cluster this test process shares, started on first use and stopped when the process exits.
    ///
    /// - Throws: ``Failure`` when it could not be started (every later call throws the same).
    public static func shared() async throws -> TestPostgres {
        let cluster = try await sharedCluster.value
        let first = startedCluster.withLock { started in
            defer { started = cluster }
            return started == nil
        }
        // A closure without captures is a C function pointer: it runs when the test process exits normally.
        if first { atexit { TestPostgres.startedCluster.withLock { $0?.stop() } } }
        return cluster
    }

    // MARK: - Databases

    /// Creates a new, empty database in the cluster and returns its URL
    /// (`postgres://postgres@127.0.0.1:PORT/NAME?connect_timeout=20`).
    ///
    /// - Parameter prefix: The start of the database's name, to tell tests apart in the server's log.
    public func makeDatabase(prefix: String = "test") async throws -> String {
        let number = databaseCounter.withLock { counter in
            counter += 1
            return counter
        }
        let name = "\(prefix)_\(getpid())_\(number)".lowercased()
            .map { $0.isLetter || $0.isNumber ? $0 : "_" }
        let database = String(name)
        let (createdb, host, port, user) = (binaries.appendingPathComponent("createdb").path, host, port, user)
        _ = try await onOwnThread { try Self.run(createdb, ["-h", host, "-p", "\(port)", "-U", user, database]) }
        return url(database: database)
    }

    /// The URL of `database` in this cluster. A connection may take 20 s (`connect_timeout`): the whole suite runs
    /// side by side on two cores, where the server's answer to a new connection can take longer than podfresh's 3 s
    /// probe allows.
    public func url(database: String) -> String {
        "postgres://\(user)@\(host):\(port)/\(database)?connect_timeout=20"
    }

    /// Runs SQL through `psql` (as a client over TCP, like any other) and returns what it printed, unaligned and
    /// without headers: one row per line, columns separated by `|`.
    @discardableResult
    /// `database` may be a name or the last part of a URL, query included (`NAME?connect_timeout=20`).
    public func psql(database: String, _ sql: String) async throws -> String {
        let database = String(database.prefix { $0 != "?" })
        let (psql, host, port, user) = (binaries.appendingPathComponent("psql").path, host, port, user)
        return try await onOwnThread {
            try Self.run(
                psql,
                [
                    "-h", host, "-p", "\(port)", "-U", user, "-d", database, "-X", "-A", "-t", "-v",
                    "ON_ERROR_STOP=1", "-c", sql,
                ]
            )
        }
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Stopping

    /// Stops the server at once (`pg_ctl stop -m immediate`) and deletes its folder. Stopping twice does nothing.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        _ = try? Self.run(
            Self.command(binaries, "pg_ctl", asPostgres: runAsPostgres),
            ["stop", "-m", "immediate", "-w", "-D", directory.appendingPathComponent("data").path])
        try? FileManager.default.removeItem(at: directory)
    }

    /// True while the server's `postmaster.pid` exists (it is removed when the server stops).
    public var isRunning: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/postmaster.pid").path)
    }

    // MARK: - Processes

    private static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        let installed = versions.filter {
            FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("\($0)/bin/initdb").path)
        }
        guard let newest = installed.max(by: { (Int($0) ?? 0) < (Int($1) ?? 0) }) else {
            throw Failure(
                description:
                    "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb); run Scripts/install-deps.sh")
        }
        return root.appendingPathComponent("\(newest)/bin")
    }

    /// The command line prefix that runs a server program: through `runuser -u postgres --` as root.
    private static func command(_ binaries: URL, _ name: String, asPostgres: Bool) -> [String] {
        let program = binaries.appendingPathComponent(name).path
        return asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] : [program]
    }

    private static func run(_ command: [String], _ arguments: [String]) throws {
        _ = try run(command[0], Array(command.dropFirst()) + arguments)
    }

    /// Runs a program to completion and returns what it printed on standard output.
    ///
    /// Not through Foundation's `Process`: on Linux it learns that a child ended when a socket the child inherited
    /// closes, and the server that `pg_ctl start` leaves running inherits that socket too, so `waitUntilExit()` would
    /// wait for the server to stop. Here `posix_spawn` starts `bash`, which closes every descriptor above 2 (none of
    /// the test process's sockets must live on in the server), moves to `/` (a folder the `postgres` user may enter)
    /// and runs the program; `waitpid` waits for that program alone. Its output goes to files, so a chatty program
    /// never blocks on a full pipe.
    @discardableResult
    private static func run(_ program: String, _ arguments: [String]) throws -> String {
        let base = NSTemporaryDirectory() + "podfresh-pg-output-\(UUID().uuidString)"
        let output = base + ".out"
        let errors = base + ".err"
        defer {
            unlink(output)
            unlink(errors)
        }
        let script = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; cd / && exec "$@""#
        let argv = ["/bin/bash", "-c", script, "bash", program] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(program): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED/WEXITSTATUS by hand: Swift does not import the macros.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard exitStatus == 0 else {
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Failure(
                description:
                    "\(([program] + arguments).joined(separator: " ")) exited \(exitStatus): \(said)\(printed)")
        }
        return printed
    }
}
