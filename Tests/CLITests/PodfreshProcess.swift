import Foundation
import Subprocess
import SystemPackage
import TestSupport
import Testing

/// What one run of the built `podfresh` binary printed and how it exited.
struct ProcessResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Runs the real `podfresh` binary (built next to the test bundle) against a private database.
struct Podfresh: Sendable {
    /// A temporary folder holding the database; removed by ``cleanUp()``.
    let directory: URL
    var environment: [String: String] = [:]
    /// A command the binary is started through (e.g. `setpriv` to run it as another user); empty to run it directly.
    var launcher: [String] = []
    /// The folder the binary runs in; nil for the package root.
    var workingDirectory: URL?

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var databasePath: String { directory.appendingPathComponent("podfresh.sqlite").path }

    /// The package root, found from this file's path.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// The built binary: beside the test bundle (`.build/<triple>/debug/podfresh`).
    static let binary: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("podfresh")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue
            {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/podfresh")
    }()

    /// The executable, its arguments and the environment overrides of one launch of the binary with `arguments`
    /// (through ``launcher`` when set).
    private func launch(
        _ arguments: [String]
    ) -> (executable: String, arguments: [String], environment: [String: String?]) {
        var overrides: [String: String?] = ["PODFRESH_DATABASE": databasePath, "TERM": "dumb"]
        for (name, value) in environment { overrides[name] = value }
        if let command = launcher.first {
            return (command, Array(launcher.dropFirst()) + [Self.binary.path] + arguments, overrides)
        }
        return (Self.binary.path, arguments, overrides)
    }

    /// Starts the binary with `arguments` (for `watch`, signals, runs side by side) and runs `body` while it runs;
    /// on the way out, however `body` ends, the process is stopped (SIGTERM, then SIGKILL) unless it has ended, and
    /// awaited. See ``withRunningProcess(_:arguments:environment:workingDirectory:keepsStandardInputOpen:stopAfter:_:)``.
    func withRunning<R>(
        _ arguments: [String], keepsStandardInputOpen: Bool = false, _ body: (RunningProcess) async throws -> R
    ) async throws -> R {
        let launch = launch(arguments)
        return try await withRunningProcess(
            launch.executable, arguments: launch.arguments, environment: launch.environment,
            workingDirectory: (workingDirectory ?? Self.packageRoot).path,
            keepsStandardInputOpen: keepsStandardInputOpen, body)
    }

    /// Starts one process for each of `commands`, in order, and runs `body` while they run; each is stopped and
    /// awaited on the way out as by ``withRunning(_:keepsStandardInputOpen:_:)``.
    func withRunning<R>(
        all commands: [[String]], _ body: ([RunningProcess]) async throws -> R
    ) async throws -> R {
        func start(_ index: Int, _ started: [RunningProcess]) async throws -> R {
            guard index < commands.count else { return try await body(started) }
            return try await withRunning(commands[index]) { try await start(index + 1, started + [$0]) }
        }
        return try await start(0, [])
    }

    /// Runs the binary to completion through swift-subprocess (killed after `timeout` seconds), collecting both
    /// outputs without holding a thread of the cooperative pool.
    func run(_ arguments: [String], timeout: Double = 60, input: Data? = nil) async throws -> ProcessResult {
        let launch = launch(arguments)
        var overrides: [Environment.Key: String?] = [:]
        for (name, value) in launch.environment {
            if let key = Environment.Key(rawValue: name) { overrides[key] = value }
        }
        let configuration = Subprocess.Configuration(
            executable: .path(FilePath(launch.executable)), arguments: Arguments(launch.arguments),
            environment: .inherit.updating(overrides),
            workingDirectory: FilePath((workingDirectory ?? Self.packageRoot).path))
        let limit = 64 * 1024 * 1024
        let bytes = input.map(Array.init) ?? []
        let result = try await withThrowingTaskGroup(of: ProcessResult?.self) { group in
            group.addTask {
                let run = try await Subprocess.run(
                    configuration, input: .array(bytes), output: .string(limit: limit), error: .string(limit: limit))
                let status: Int32
                switch run.terminationStatus {
                case .exited(let code): status = code
                case .signaled(let signal): status = 128 + signal
                }
                return ProcessResult(
                    status: status, stdout: run.standardOutput, stderr: run.standardError)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(timeout))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let result else {
            Issue.record("podfresh \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
            return ProcessResult(status: -1, stdout: "", stderr: "")
        }
        return result
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}
