import Subprocess
import Synchronization
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// How a process ended: it exited with a code, or a signal killed it.
public enum ExitStatus: Hashable, Sendable, CustomStringConvertible {
    /// The process exited with this code.
    case exited(Int32)
    /// This signal ended the process.
    case signaled(Int32)

    public var description: String {
        switch self {
        case .exited(let code): "exited \(code)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }
}

/// What a process started by ``withRunningProcess(_:arguments:environment:workingDirectory:keepsStandardInputOpen:stopAfter:_:)``
/// is doing, for the scope's body: its output so far, a way to wait for a line or for its exit, and to signal it.
///
/// Valid only inside the scope: the process is reaped when the scope ends, and its PID may then be reused.
public final class RunningProcess: Sendable {
    /// One of the process's two outputs.
    public enum Stream: Sendable { case standardOutput, standardError }

    /// Everything here is guarded by the mutex. Waiters are woken (outside the lock) on every chunk of output, and
    /// finished once the process has ended and both outputs are drained: `status` is set last, so no output follows.
    private struct State {
        var standardOutput: [UInt8] = []
        var standardError: [UInt8] = []
        var status: ExitStatus?
        var inScope = true
        var waiters: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())
    private let execution: Execution<CustomWriteInput, SequenceOutput, SequenceOutput>

    /// The process's PID (held by it, or its zombie, until the scope ends).
    public let processIdentifier: Int32

    fileprivate init(_ execution: Execution<CustomWriteInput, SequenceOutput, SequenceOutput>) {
        self.execution = execution
        processIdentifier = execution.processIdentifier.value
    }

    // MARK: - Output

    /// What the process wrote to standard output so far.
    public var standardOutput: String { state.withLock { String(decoding: $0.standardOutput, as: UTF8.self) } }
    /// What the process wrote to standard error so far.
    public var standardError: String { state.withLock { String(decoding: $0.standardError, as: UTF8.self) } }
    /// Both outputs so far, labelled: for the message of an expectation.
    public var transcript: String { "stdout:\n\(standardOutput)\nstderr:\n\(standardError)" }

    /// The text of `stream` so far.
    public func text(_ stream: Stream) -> String {
        stream == .standardOutput ? standardOutput : standardError
    }

    /// Waits at most `timeout` until `predicate` holds for the text of `stream`; true when it does. Returns false
    /// early once the process has ended and its output no longer satisfies it. Never blocks a thread.
    public func wait(
        for stream: Stream = .standardOutput, within timeout: Duration, until predicate: (String) -> Bool
    ) async -> Bool {
        await waitUntil(within: timeout) { predicate($0.text(stream)) }
    }

    /// Waits at most `timeout` for a whole line (ended by a newline) of `stream` that contains `text`.
    public func waitForLine(
        containing text: String, in stream: Stream = .standardOutput, within timeout: Duration
    ) async -> Bool {
        await wait(for: stream, within: timeout) { output in
            output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains { $0.contains(text) }
        }
    }

    // MARK: - Exit

    /// How the process ended, once it has and its output is drained; nil while it runs.
    public var status: ExitStatus? { state.withLock { $0.status } }

    /// Waits at most `timeout` for the process to end; its status, or nil when it is still running.
    public func exit(within timeout: Duration) async -> ExitStatus? {
        _ = await waitUntil(within: timeout) { $0.status != nil }
        return status
    }

    // MARK: - Signals and input

    /// Sends `signal` to the process (through its pidfd where the kernel has one). A process that has ended is not
    /// signalled.
    public func send(_ signal: Int32) {
        let allowed = state.withLock { state in
            precondition(state.inScope, "RunningProcess used after its scope ended")
            return state.status == nil
        }
        guard allowed else { return }
        try? execution.send(signal: Signal(rawValue: signal))
    }

    /// Sends SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// Writes `bytes` to the process's standard input (started with `keepsStandardInputOpen`).
    public func write(_ bytes: [UInt8]) async throws {
        _ = try await execution.standardInputWriter.write(bytes)
    }

    /// Closes the process's standard input, so it reads end-of-file.
    public func closeStandardInput() async throws {
        try await execution.standardInputWriter.finish()
    }

    // MARK: - Inside the scope

    private struct Snapshot {
        var standardOutput: [UInt8]
        var standardError: [UInt8]
        var status: ExitStatus?

        func text(_ stream: Stream) -> String {
            String(decoding: stream == .standardOutput ? standardOutput : standardError, as: UTF8.self)
        }
    }

    private func waitUntil(within timeout: Duration, _ predicate: (Snapshot) -> Bool) async -> Bool {
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        continuation.yield()  // look once at once
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            if state.status == nil {
                state.waiters[state.nextWaiter] = continuation
            } else {
                continuation.finish()
            }
            return state.nextWaiter
        }
        defer { _ = state.withLock { $0.waiters.removeValue(forKey: id) } }
        let snapshot = {
            self.state.withLock {
                Snapshot(standardOutput: $0.standardOutput, standardError: $0.standardError, status: $0.status)
            }
        }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                continuation.finish()
            }
            defer { group.cancelAll() }
            for await _ in changes where predicate(snapshot()) { return true }
            return predicate(snapshot())
        }
    }

    private func wake(finishing: Bool = false) {
        let waiters = state.withLock { state in
            defer { if finishing { state.waiters = [:] } }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.yield()
            if finishing { waiter.finish() }
        }
    }

    /// Collects both outputs until they end (normally when the process ends: Subprocess then stops waiting for an
    /// end-of-file a grandchild could hold back), then records the exit status without reaping the process.
    fileprivate func follow() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.drain(self.execution.standardOutput, into: \.standardOutput) }
            group.addTask { await self.drain(self.execution.standardError, into: \.standardError) }
        }
        // Usually already ended; otherwise it closed both outputs and goes on, so look every 10 ms.
        while true {
            if let status = peekStatus() {
                state.withLock { $0.status = status }
                wake(finishing: true)
                return
            }
            if Task.isCancelled { try? execution.send(signal: .kill) }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    private func drain(_ sequence: SubprocessOutputSequence, into output: WritableKeyPath<State, [UInt8]>) async {
        do {
            for try await buffer in sequence {
                buffer.withUnsafeBytes { bytes in state.withLock { $0[keyPath: output].append(contentsOf: bytes) } }
                wake()
            }
        } catch {
            // The read failed: what was read is kept, and the exit is still awaited.
        }
    }

    /// The status of the process if it has ended, read with `WNOWAIT` so Subprocess still reaps it.
    private func peekStatus() -> ExitStatus? {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == -1 {
            guard errno == EINTR else { return nil }
        }
        guard info._sifields._sigchld.si_pid != 0 else { return nil }
        let code = info._sifields._sigchld.si_status
        return info.si_code == Int32(CLD_EXITED) ? .exited(code) : .signaled(code)
    }

    /// Ends the process unless it has ended: SIGTERM, then SIGKILL if it is still running after `grace`.
    fileprivate func stop(grace: Duration) async {
        if status != nil { return }
        send(SIGTERM)
        if await exit(within: grace) != nil { return }
        send(SIGKILL)
        _ = await exit(within: .seconds(60))
    }

    fileprivate func endScope() {
        state.withLock { $0.inScope = false }
    }
}

/// Starts `executable` with `arguments`, runs `body` while it runs, and before returning ends it (by its PID: SIGTERM,
/// then SIGKILL after `stopAfter`) unless it has ended, and awaits it, whether `body` returns, throws or failed an
/// expectation. Its output is read as it comes, so a full pipe never stops it, and nothing waits on a thread of the
/// cooperative pool.
///
/// - Parameters:
///   - environment: Variables set (or, with nil, removed) on top of this process's environment.
///   - keepsStandardInputOpen: When false the process reads end-of-file at once; when true, write to it with
///     ``RunningProcess/write(_:)``.
public func withRunningProcess<R>(
    _ executable: String, arguments: [String], environment: [String: String?] = [:],
    workingDirectory: String? = nil, keepsStandardInputOpen: Bool = false, stopAfter grace: Duration = .seconds(5),
    _ body: (RunningProcess) async throws -> R
) async throws -> R {
    var overrides: [Environment.Key: String?] = [:]
    for (name, value) in environment {
        if let key = Environment.Key(rawValue: name) { overrides[key] = value }
    }
    let configuration = Configuration(
        executable: .path(FilePath(executable)), arguments: Arguments(arguments),
        environment: .inherit.updating(overrides), workingDirectory: workingDirectory.map { FilePath($0) })
    var result: R?
    _ = try await Subprocess.run(configuration, input: .inputWriter, output: .sequence, error: .sequence) {
        execution in
        let running = RunningProcess(execution)
        defer { running.endScope() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await running.follow() }
            do {
                if !keepsStandardInputOpen { try await running.closeStandardInput() }
                result = try await body(running)
            } catch {
                await running.stop(grace: grace)
                try? await group.waitForAll()
                throw error
            }
            await running.stop(grace: grace)
            try await group.waitForAll()
        }
    }
    guard let result else { preconditionFailure("the body returned") }
    return result
}

/// What a process run to the end by ``runProcess(_:arguments:environment:workingDirectory:within:)`` printed and how
/// it ended.
public struct ProcessOutcome: Sendable {
    /// How it ended; nil when it was still running after the time allowed (it was then stopped).
    public var status: ExitStatus?
    /// Everything it wrote to standard output.
    public var standardOutput: String
    /// Everything it wrote to standard error.
    public var standardError: String
}

/// Runs `executable` to its end, at most `timeout` (then it is stopped), reading its output as it comes, without
/// blocking a thread of the cooperative pool: for the tools tests call (sqlite3, script, …).
public func runProcess(
    _ executable: String, arguments: [String], environment: [String: String?] = [:],
    workingDirectory: String? = nil, within timeout: Duration = .seconds(60)
) async throws -> ProcessOutcome {
    try await withRunningProcess(
        executable, arguments: arguments, environment: environment, workingDirectory: workingDirectory
    ) { process in
        let status = await process.exit(within: timeout)
        return ProcessOutcome(
            status: status, standardOutput: process.standardOutput, standardError: process.standardError)
    }
}
