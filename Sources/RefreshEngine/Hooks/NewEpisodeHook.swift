import FeedParsing
public import Foundation
public import Measures
import Subprocess
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The data handed to the `--exec` hook, one new episode.
public struct HookEpisode: Sendable, Hashable {
    public var feedTitle: String
    public var feedURL: String
    public var episodeTitle: String
    public var episodeURL: String
    public var enclosureURL: String
    public var enclosureType: String
    public var published: Date?
    public var guid: String
    public var identity: String
    public var duration: Double?
    /// The downloaded file (`PODFRESH_FILE`), when the hook runs after a download; empty otherwise.
    public var file: String = ""

    public init(
        feedTitle: String,
        feedURL: String,
        episodeTitle: String,
        episodeURL: String,
        enclosureURL: String,
        enclosureType: String,
        published: Date?,
        guid: String,
        identity: String,
        duration: Double?
    ) {
        self.feedTitle = feedTitle
        self.feedURL = feedURL
        self.episodeTitle = episodeTitle
        self.episodeURL = episodeURL
        self.enclosureURL = enclosureURL
        self.enclosureType = enclosureType
        self.published = published
        self.guid = guid
        self.identity = identity
        self.duration = duration
    }

    /// The `PODFRESH_*` environment variables.
    public var environment: [String: String] {
        var env = [
            "PODFRESH_FEED_TITLE": feedTitle, "PODFRESH_FEED_URL": feedURL, "PODFRESH_EPISODE_TITLE": episodeTitle,
            "PODFRESH_EPISODE_URL": episodeURL, "PODFRESH_ENCLOSURE_URL": enclosureURL,
            "PODFRESH_ENCLOSURE_TYPE": enclosureType, "PODFRESH_EPISODE_GUID": guid, "PODFRESH_EPISODE_ID": identity,
            "PODFRESH_PUBLISHED": "", "PODFRESH_DURATION": "", "PODFRESH_FILE": file,
        ]
        if let published {
            env["PODFRESH_PUBLISHED"] = RFC3339.string(from: published)
        }
        if let duration { env["PODFRESH_DURATION"] = String(Int(duration.rounded())) }
        // Environment values cannot hold NUL; nothing else needs escaping, because nothing is interpolated.
        return env.mapValues { $0.replacingOccurrences(of: "\u{0}", with: "") }
    }
}

/// How one run of the hook ended.
public struct HookResult: Sendable, Hashable {
    /// The shell's exit status; for a hook ended by a signal, 128 + the signal number, as shells report it.
    public var exitStatus: Int32
    /// The hook ran past its timeout, and its whole process group was stopped.
    public var timedOut: Bool
    /// The last bytes the hook wrote to standard error (also passed through as it ran).
    public var stderrTail: String
    /// A failure to start the hook at all.
    public var launchFailure: HookLaunchFailure?
    /// How long the hook was allowed (for the message).
    public var timeout: Duration?

    public init(
        exitStatus: Int32, timedOut: Bool, stderrTail: String, launchFailure: HookLaunchFailure?,
        timeout: Duration? = nil
    ) {
        self.exitStatus = exitStatus
        self.timedOut = timedOut
        self.stderrTail = stderrTail
        self.launchFailure = launchFailure
        self.timeout = timeout
    }

    /// True when the hook could not run, ran past its timeout, or exited with a status other than 0.
    public var failed: Bool { launchFailure != nil || timedOut || exitStatus != 0 }
}

/// Why the hook could not be started: the shell, which step failed, and the system's `errno` when it gave one.
/// ConsoleOutput words it. (A command the shell cannot find is not a launch failure: the shell exits with 127.)
public struct HookLaunchFailure: Sendable, Hashable {
    /// The step that failed.
    public enum Step: Sendable, Hashable {
        /// The shell does not exist (`ENOENT`) or cannot be executed (`EACCES`).
        case shellNotFound
        /// Creating the process (or its pipes) failed.
        case spawn
        /// Watching for the process's exit failed.
        case monitor
        /// Reading the process's output failed.
        case output
        /// Something else went wrong: named by `ErrorWords` (its description, or its type).
        case other(String)
    }

    /// The shell that was to run the command (`/bin/sh`).
    public var shell: String
    /// The step that failed.
    public var step: Step
    /// The system's error number, when the failure came with one.
    public var errno: Int32?

    public init(shell: String, step: Step, errno: Int32?) {
        self.shell = shell
        self.step = step
        self.errno = errno
    }

    /// The facts of an error from swift-subprocess (or any other error).
    init(shell: String, error: any Error) {
        guard let error = error as? SubprocessError else {
            self.init(shell: shell, step: .other(ErrorWords.describe(error)), errno: nil)
            return
        }
        let step: Step =
            switch error.code {
            case .executableNotFound: .shellNotFound
            case .spawnFailed: .spawn
            case .failedToMonitorProcess: .monitor
            case .failedToReadFromSubprocess, .asyncIOFailed: .output
            default: .other(ErrorWords.describe(error))
            }
        var code = error.underlyingError?.rawValue
        // swift-subprocess says ENOENT whether the shell is missing or not executable: ask the system which.
        if step == .shellNotFound, access(shell, X_OK) != 0 { code = lastErrno() }
        self.init(shell: shell, step: step, errno: code)
    }
}

/// One of the hook's two output streams.
public enum HookStream: Sendable, Hashable {
    case standardOutput
    case standardError
}

/// Where the hook's output goes: whole lines, each handed over in one call.
public struct HookOutput: Sendable {
    /// Called with one or more whole lines (each ending in a newline) from one stream.
    public var write: @Sendable (HookStream, [UInt8]) -> Void

    public init(write: @escaping @Sendable (HookStream, [UInt8]) -> Void) {
        self.write = write
    }

    /// podfresh's own standard output and standard error (cron mails them). Each line is one `write(2)`, as each
    /// line the renderer prints is, so on a pipe (lines up to 4 KiB) or a file the hook's lines and podfresh's never
    /// mix within a line.
    public static let standardStreams = HookOutput { stream, bytes in
        writeLines(stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO, bytes)
    }

    /// Both streams to podfresh's standard error: for `--json`, whose standard output holds only JSON Lines.
    public static let standardErrorOnly = HookOutput { _, bytes in
        writeLines(STDERR_FILENO, bytes)
    }
}

/// Runs the user's `--exec` command once per new episode: `/bin/sh -c COMMAND` with the episode only in
/// `PODFRESH_*` environment variables — never interpolated into the command, so hostile titles stay inert.
///
/// The hook runs in a process group of its own (`posix_spawn` with `POSIX_SPAWN_SETPGROUP`, through
/// swift-subprocess), so a timeout stops everything it started: SIGTERM to the group, then SIGKILL to whatever is
/// left half a second later. Standard input is `/dev/null`; standard output and standard error are passed through to
/// podfresh's, line by line. When the shell exits, podfresh stops reading at once, even if a background process the
/// hook started still holds the output open (such a process is left running, and its output is not passed on).
public enum NewEpisodeHook {
    /// The default of `--exec-timeout`.
    public static let defaultTimeout: Duration = .seconds(60)
    /// How long the group has between SIGTERM and SIGKILL.
    static let killGrace: Duration = .milliseconds(500)
    /// A line longer than this is passed on in pieces of this size.
    static let maxLineBytes = 64 * 1024

    /// Runs the hook for one episode and waits for it (at most `timeout` plus half a second).
    ///
    /// - Parameters:
    ///   - command: The `--exec` command, run with `/bin/sh -c`.
    ///   - episode: The episode, passed in `PODFRESH_*` environment variables.
    ///   - timeout: After this long the hook's process group is stopped (`--exec-timeout`).
    ///   - output: Where the hook's output lines go (default: podfresh's standard output and error).
    ///   - shell: The shell that runs `command` with `-c` (`/bin/sh`).
    ///   - clock: The clock the timeout and the grace before SIGKILL are measured on.
    /// - Returns: How the hook ended; it never throws, because a failing hook never fails the feed.
    public static func run(
        command: String,
        episode: HookEpisode,
        timeout: Duration = defaultTimeout,
        output: HookOutput = .standardStreams,
        shell: String = "/bin/sh",
        clock: AppClock = .system
    ) async -> HookResult {
        var environment: [Environment.Key: String?] = [:]
        for (name, value) in episode.environment {
            if let key = Environment.Key(rawValue: name) { environment[key] = value }
        }
        var options = PlatformOptions()
        // A new process group whose id is the shell's pid; `kill(-pid)` then reaches every process the hook started
        // (unless one deliberately moves to another group or session).
        options.processGroupID = 0
        // When podfresh itself is cancelled (a second Ctrl-C), the group goes too.
        options.teardownSequence = [
            .send(signal: .terminate, toProcessGroup: true, allowedDurationToNextStep: killGrace)
        ]
        let errorTail = TailBuffer(limit: 2000)
        do {
            let result = try await Subprocess.run(
                .path(FilePath(shell)),
                arguments: ["-c", command],
                environment: .inherit.updating(environment),
                platformOptions: options,
                input: .none,
                output: .sequence,
                error: .sequence
            ) { execution in
                await supervise(execution, timeout: timeout, clock: clock, output: output, errorTail: errorTail)
            }
            let status: Int32
            switch result.terminationStatus {
            case .exited(let code): status = code
            case .signaled(let signal): status = 128 + signal
            }
            return HookResult(
                exitStatus: status,
                timedOut: result.closureResult,
                stderrTail: errorTail.text,
                launchFailure: nil,
                timeout: timeout
            )
        } catch {
            return HookResult(
                exitStatus: -1,
                timedOut: false,
                stderrTail: errorTail.text,
                launchFailure: HookLaunchFailure(shell: shell, error: error),
                timeout: timeout
            )
        }
    }

    private enum Event: Sendable {
        case streamClosed
        case timedOut
        case cancelled
    }

    /// Passes both streams through until they close (or the shell exits), and stops the group at the timeout.
    /// Returns whether the timeout struck.
    private static func supervise(
        _ execution: Execution<NoInput, SequenceOutput, SequenceOutput>,
        timeout: Duration,
        clock: AppClock,
        output: HookOutput,
        errorTail: TailBuffer
    ) async -> Bool {
        await withTaskGroup(of: Event.self) { group in
            group.addTask {
                await pump(execution.standardOutput, to: .standardOutput, output: output, tail: nil)
                return .streamClosed
            }
            group.addTask {
                await pump(execution.standardError, to: .standardError, output: output, tail: errorTail)
                return .streamClosed
            }
            group.addTask {
                do {
                    try await clock.sleep(for: timeout)
                } catch {
                    return .cancelled
                }
                // The shell is at most a zombie until this closure returns (swift-subprocess reaps it afterwards),
                // so its pid, the group's id, cannot have been reused yet.
                try? execution.send(signal: .terminate, toProcessGroup: true)
                try? await clock.sleep(for: killGrace)
                try? execution.send(signal: .kill, toProcessGroup: true)
                return .timedOut
            }
            var open = 2
            var timedOut = false
            while let event = await group.next() {
                switch event {
                case .streamClosed:
                    open -= 1
                    // Both streams done: the shell exited. Stop the timer, unless it is already stopping the group.
                    if open == 0 && !timedOut { group.cancelAll() }
                case .timedOut:
                    timedOut = true
                case .cancelled:
                    break
                }
            }
            return timedOut
        }
    }

    /// Copies one stream to `output` in whole lines; a last line without a newline gets one.
    private static func pump(
        _ stream: SubprocessOutputSequence,
        to destination: HookStream,
        output: HookOutput,
        tail: TailBuffer?
    ) async {
        var pending: [UInt8] = []
        do {
            for try await buffer in stream {
                buffer.withUnsafeBytes { pending.append(contentsOf: $0) }
                if let lastNewline = pending.lastIndex(of: UInt8(ascii: "\n")) {
                    let lines = Array(pending[...lastNewline])
                    pending.removeSubrange(...lastNewline)
                    output.write(destination, lines)
                    tail?.append(lines)
                }
                while pending.count >= maxLineBytes {
                    let piece = Array(pending.prefix(maxLineBytes)) + [UInt8(ascii: "\n")]
                    pending.removeFirst(maxLineBytes)
                    output.write(destination, piece)
                    tail?.append(piece)
                }
            }
        } catch {
            // A read error ends the pass-through; whatever arrived is still flushed below.
        }
        if !pending.isEmpty {
            pending.append(UInt8(ascii: "\n"))
            output.write(destination, pending)
            tail?.append(pending)
        }
    }
}

/// The calling thread's `errno` (a name `HookLaunchFailure`'s own `errno` property does not hide).
private func lastErrno() -> Int32 { errno }

/// Writes whole lines to `descriptor`, one `write(2)` per line, retrying after signals and partial writes. A closed
/// or failing descriptor drops the rest: a hook's output is never worth failing the refresh for.
private func writeLines(_ descriptor: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var lineStart = 0
        while lineStart < raw.count {
            let newline = raw[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? (raw.count - 1)
            var offset = lineStart
            let end = newline + 1
            while offset < end {
                let written = write(descriptor, base + offset, end - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
            lineStart = end
        }
    }
}

/// The last `limit` bytes of a stream, for the failure message.
///
/// ## Why this class is `@unchecked Sendable`
/// `bytes` is read and written only inside `lock.withLock {}`.
private final class TailBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func append(_ more: [UInt8]) {
        lock.withLock {
            bytes.append(contentsOf: more.suffix(limit))
            if bytes.count > limit { bytes.removeFirst(bytes.count - limit) }
        }
    }

    var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
}
