import Foundation
import Measures
import RefreshEngine
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects what a hook writes, call by call.
///
/// ## Why this class is `@unchecked Sendable`
/// `calls` is read and written only inside `lock.withLock {}`.
final class HookOutputRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [(HookStream, [UInt8])] = []

    var output: HookOutput { HookOutput { stream, bytes in self.lock.withLock { self.calls.append((stream, bytes)) } } }

    func chunks(_ stream: HookStream) -> [String] {
        lock.withLock { calls.filter { $0.0 == stream }.map { String(decoding: $0.1, as: UTF8.self) } }
    }

    func text(_ stream: HookStream) -> String { chunks(stream).joined() }
}

private let episode = HookEpisode(
    feedTitle: "Night Shift",
    feedURL: "https://n.example/feed.xml",
    episodeTitle: "Episode $(one)",
    episodeURL: "",
    enclosureURL: "https://n.example/1.mp3",
    enclosureType: "audio/mpeg",
    published: nil,
    guid: "g1",
    identity: "g1",
    duration: 61
)

/// Whether a process is gone: no such pid, or only a zombie waiting for a parent that is not ours to reap it.
func processIsGone(_ pid: pid_t) -> Bool {
    if kill(pid, 0) != 0 { return errno == ESRCH }
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    // The state follows the parenthesised command name: "123 (sleep) Z ...".
    guard let close = stat.lastIndex(of: ")") else { return false }
    return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
}

/// Waits (up to 20 seconds, on a busy machine) for every process to be gone: SIGKILL is delivered at once, but a killed
/// orphan is reaped by init a moment later. Returns whether they all went.
func allGone(_ pids: [pid_t]) async -> Bool {
    let deadline = Date().addingTimeInterval(20)
    while !pids.allSatisfy(processIsGone) && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
    return pids.allSatisfy(processIsGone)
}

/// Pids written one per line by a hook.
func pids(in path: String) -> [pid_t] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
}

private func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-hook-\(UUID().uuidString)-\(name)").path
}

/// Waits (in real time) until a hook has written `count` pids to `path`.
private func hookStarted(_ path: String, count: Int) async -> Bool {
    await waitUntil { pids(in: path).count >= count }
}

/// The `--exec` hook runner, with real shells and real processes. Timeouts run on a manual clock: a test moves it
/// past the timeout once the hook is running, so what it asserts is the order of events, not how busy the machine is.
@Suite(.timeLimit(.minutes(1)))
struct NewEpisodeHookTests {
    @Test func aTimedOutHookIsStoppedTogetherWithEveryProcessItStarted() async throws {
        let pidFile = temporaryPath("pids")
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        // A background child, a grandchild in a subshell, and a foreground sleep that outlives the timeout.
        let command = """
            sleep 30 & echo $! >> '\(pidFile)'
            ( sleep 30 & echo $! >> '\(pidFile)'; wait ) &
            echo $$ >> '\(pidFile)'
            sleep 30
            """
        let recorder = HookOutputRecorder()
        let clock = ManualClock()
        let run = Task {
            await NewEpisodeHook.run(
                command: command, episode: episode, timeout: .seconds(1), output: recorder.output,
                clock: .manual(clock))
        }
        // Every process is running before the clock moves past the timeout.
        try #require(await hookStarted(pidFile, count: 3))
        let result = await drivingClock(clock) { await run.value }
        #expect(result.timedOut)
        #expect(result.failed && result.timeout == .seconds(1), "\(result)")
        // The timeout, and at most the grace before SIGKILL (none if SIGTERM ended every process at once).
        #expect(clock.offset >= .seconds(1) && clock.offset <= .milliseconds(1500), "\(clock.offset)")
        let started = pids(in: pidFile)
        #expect(started.count == 3)
        _ = await allGone(started)
        for pid in started {
            #expect(processIsGone(pid), "process \(pid) is still running")
        }
    }

    @Test func aHookThatIgnoresSIGTERMIsKilled() async throws {
        let pidFile = temporaryPath("pids")
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        let command =
            "trap '' TERM; sh -c 'trap \"\" TERM; echo $$ >> \(pidFile); sleep 30' & echo $$ >> '\(pidFile)'; wait"
        let clock = ManualClock()
        let run = Task {
            await NewEpisodeHook.run(
                command: command, episode: episode, timeout: .milliseconds(500), output: HookOutputRecorder().output,
                clock: .manual(clock))
        }
        // Every process is running before the clock moves past the timeout.
        try #require(await hookStarted(pidFile, count: 2))
        let result = await drivingClock(clock) { await run.value }
        #expect(result.timedOut)
        let started = pids(in: pidFile)
        #expect(started.count == 2, "\(started)")
        #expect(await allGone(started), "\(started)")
    }

    @Test func theHooksOutputIsPassedThroughInWholeLines() async throws {
        let recorder = HookOutputRecorder()
        let command = """
            printf 'one\\ntw'; sleep 0.2; printf 'o\\nthr'; sleep 0.2; printf 'ee'
            echo "warning: $PODFRESH_EPISODE_TITLE" >&2
            """
        let result = await NewEpisodeHook.run(command: command, episode: episode, output: recorder.output)
        #expect(!result.failed, "\(result)")
        #expect(recorder.text(.standardOutput) == "one\ntwo\nthree\n")
        #expect(
            recorder.chunks(.standardOutput).allSatisfy { $0.hasSuffix("\n") },
            "\(recorder.chunks(.standardOutput))"
        )
        #expect(recorder.text(.standardError) == "warning: Episode $(one)\n")
    }

    @Test func aBackgroundProcessLeftByTheHookDoesNotHoldUpTheRun() async throws {
        let pidFile = temporaryPath("pids")
        defer {
            for pid in pids(in: pidFile) { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(atPath: pidFile)
        }
        // The background sleep keeps the output pipes open; podfresh must not wait for it. The clock never moves, so
        // the hook's timeout cannot end the wait either.
        let result = await NewEpisodeHook.run(
            command: "sleep 30 & echo $! > '\(pidFile)'; echo started",
            episode: episode,
            output: HookOutputRecorder().output,
            clock: .manual(ManualClock())
        )
        #expect(!result.failed && !result.timedOut, "\(result)")
        let background = try #require(pids(in: pidFile).first)
        #expect(!processIsGone(background), "the run waited for the background process to end")
    }

    @Test func aFailingHookReportsItsStatusAndLastErrorLine() async throws {
        let recorder = HookOutputRecorder()
        let result = await NewEpisodeHook.run(
            command: "echo first >&2; echo 'no space left' >&2; exit 3",
            episode: episode,
            output: recorder.output
        )
        #expect(result.failed && result.exitStatus == 3 && result.stderrTail.hasSuffix("no space left\n"), "\(result)")
        #expect(recorder.text(.standardError) == "first\nno space left\n")
    }
}

/// A hook that cannot even start is a typed launch failure naming the shell and the system's reason.
@Suite(.timeLimit(.minutes(1)))
struct NewEpisodeHookLaunchTests {
    @Test func aShellThatDoesNotExistIsALaunchFailureWithENOENT() async {
        let shell = temporaryPath("no-such-shell")
        let result = await NewEpisodeHook.run(command: "true", episode: episode, shell: shell)
        #expect(result.failed)
        #expect(result.launchFailure == HookLaunchFailure(shell: shell, step: .shellNotFound, errno: ENOENT))
    }

    @Test func aShellThatIsNotExecutableIsALaunchFailureWithEACCES() async throws {
        let shell = temporaryPath("not-executable")
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: shell))
        defer { try? FileManager.default.removeItem(atPath: shell) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: shell)
        let result = await NewEpisodeHook.run(command: "true", episode: episode, shell: shell)
        #expect(result.launchFailure == HookLaunchFailure(shell: shell, step: .shellNotFound, errno: EACCES))
    }

    @Test func aCommandTheShellCannotFindIsNotALaunchFailureButStatus127() async {
        let result = await NewEpisodeHook.run(
            command: "/no/such/command-\(UUID().uuidString)", episode: episode, output: HookOutputRecorder().output)
        #expect(result.launchFailure == nil && result.exitStatus == 127)
    }
}
