import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where the binary's standard output goes in ``Podfresh/run(_:standardOutput:timeout:)``: each a way output stops
/// being writable that a user meets in a pipeline, a cron job or a daemon.
enum BrokenStandardOutput: Sendable, CustomTestStringConvertible {
    /// A pipe whose reader closed it before the first byte (`| head -0`, a consumer that failed at once).
    case pipeClosedAtOnce
    /// A pipe, shrunk to one page, whose reader closes it after the first line (`| head -1`). A command that writes
    /// more than a page after its first line then meets EPIPE for sure.
    case pipeClosedAfterFirstLine
    /// `/dev/full`: every write fails with ENOSPC, as on a full disk.
    case full
    /// Descriptor 1 closed when the process starts (`>&-`).
    case closed

    var testDescription: String {
        switch self {
        case .pipeClosedAtOnce: "a pipe closed at once"
        case .pipeClosedAfterFirstLine: "a pipe closed after the first line"
        case .full: "/dev/full"
        case .closed: "a closed stdout"
        }
    }
}

/// How a run with a broken standard output ended.
struct BrokenOutputResult: Sendable {
    /// The exit status, or 128 + the signal that ended the process (132 for the trap this guards against).
    var status: Int32
    /// Whether a signal ended it.
    var signaled: Bool
    /// The first line read from the pipe (``BrokenStandardOutput/pipeClosedAfterFirstLine`` only).
    var firstLine: String?
    var stderr: String
}

extension Podfresh {
    /// Runs the binary with `arguments` and its standard output broken as `output`; standard error is collected, and
    /// standard input is `/dev/null`. The process is killed after `timeout` (its status then says so).
    func run(
        _ arguments: [String], standardOutput output: BrokenStandardOutput, timeout: Duration = .seconds(120)
    ) async throws -> BrokenOutputResult {
        var environment = ProcessInfo.processInfo.environment
        environment["PODFRESH_DATABASE"] = databasePath
        environment["TERM"] = "dumb"
        for (name, value) in self.environment { environment[name] = value }
        let errorPath = directory.appendingPathComponent("stderr-\(UUID().uuidString)").path
        let launch = BrokenOutputLaunch(
            executable: Self.binary.path, arguments: arguments,
            environment: environment.map { "\($0.key)=\($0.value)" }, errorPath: errorPath, output: output,
            timeout: timeout)
        var result = try await withCheckedThrowingContinuation { continuation in
            // Blocking reads and waits: on a thread of their own, not the cooperative pool's.
            Thread { continuation.resume(with: Result { try launch.run() }) }.start()
        }
        result.stderr = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return result
    }
}

/// glibc's `pipe2`, which Swift's Glibc module leaves out (it needs `_GNU_SOURCE`): a pipe whose ends are
/// close-on-exec from the start, with no window for another test's spawn to inherit them.
@_silgen_name("pipe2")
private func systemPipe2(_ descriptors: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; behind `_GNU_SOURCE` too): the child closes
/// every descriptor from `from` on.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func systemAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32

/// `F_SETPIPE_SZ` (`F_LINUX_SPECIFIC_BASE + 7`), also behind `_GNU_SOURCE`.
private let setPipeSize: Int32 = 1024 + 7

/// One spawn of the binary with `posix_spawn`, so that its descriptor 1 can be closed, `/dev/full`, or a pipe this
/// side closes.
private struct BrokenOutputLaunch: Sendable {
    var executable: String
    var arguments: [String]
    var environment: [String]
    var errorPath: String
    var output: BrokenStandardOutput
    var timeout: Duration

    struct SpawnFailed: Error, CustomStringConvertible {
        var description: String
    }

    func run() throws -> BrokenOutputResult {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Both ends close on exec, so that no other process the tests start holds the reader open.
        var pipe: [Int32] = [-1, -1]
        switch output {
        case .pipeClosedAtOnce, .pipeClosedAfterFirstLine:
            guard systemPipe2(&pipe, O_CLOEXEC) == 0 else {
                throw SpawnFailed(description: "pipe2: errno \(errno)")
            }
            _ = fcntl(pipe[1], setPipeSize, 4096)
            // dup2 leaves the copy open across exec.
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        case .full:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/full", O_WRONLY, 0)
        case .closed:
            posix_spawn_file_actions_addclose(&actions, 1)
        }
        // Nothing else of this process reaches the child: a listening socket of another test, inherited, would go
        // on accepting connections after that test closed it.
        _ = systemAddCloseFrom(&actions, 3)
        if output == .pipeClosedAtOnce {
            close(pipe[0])
            pipe[0] = -1
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // SIGPIPE as a shell leaves it (the default: a write to a pipe nobody reads kills), whatever this process
        // does with it: podfresh must ignore it itself.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        if pipe[1] >= 0 { close(pipe[1]) }
        guard spawned == 0 else {
            if pipe[0] >= 0 { close(pipe[0]) }
            throw SpawnFailed(description: "posix_spawn \(executable): errno \(spawned)")
        }
        let deadline = ContinuousClock.now + timeout
        var firstLine: String?
        if output == .pipeClosedAfterFirstLine {
            firstLine = readLine(from: pipe[0], until: deadline)
            close(pipe[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                Issue.record("podfresh \(arguments.joined(separator: " ")) did not end within \(timeout)")
                break
            }
            usleep(20_000)
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import from the macros.
        let signal = status & 0x7f
        if signal == 0 {
            return BrokenOutputResult(status: (status >> 8) & 0xff, signaled: false, firstLine: firstLine, stderr: "")
        }
        return BrokenOutputResult(status: 128 + signal, signaled: true, firstLine: firstLine, stderr: "")
    }

    /// Reads byte by byte up to the first newline (so that nothing after it is taken from the pipe), or to the end.
    private func readLine(from descriptor: Int32, until deadline: ContinuousClock.Instant) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while ContinuousClock.now < deadline {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) >= 0 || errno == EINTR else { break }
            if ready.revents == 0 { continue }
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { break }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
