import Foundation
import Subprocess
import SystemPackage
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

    /// Starts the binary without waiting (for `watch`).
    func start(
        _ arguments: [String], stdout: Pipe = Pipe(), stderr: Pipe = Pipe(), stdin: Pipe? = nil
    ) throws -> Process {
        let process = Process()
        if let command = launcher.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(launcher.dropFirst()) + [Self.binary.path] + arguments
        } else {
            process.executableURL = Self.binary
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["PODFRESH_DATABASE"] = databasePath
        env["TERM"] = "dumb"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.currentDirectoryURL = workingDirectory ?? Self.packageRoot
        process.standardInput = stdin ?? FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return process
    }

    /// Runs the binary to completion through swift-subprocess (killed after `timeout` seconds), collecting both
    /// outputs without holding a thread of the cooperative pool.
    func run(_ arguments: [String], timeout: Double = 60, input: Data? = nil) async throws -> ProcessResult {
        let executable: FilePath
        var commandArguments: [String]
        if let command = launcher.first {
            executable = FilePath(command)
            commandArguments = Array(launcher.dropFirst()) + [Self.binary.path] + arguments
        } else {
            executable = FilePath(Self.binary.path)
            commandArguments = arguments
        }
        var overrides: [Environment.Key: String?] = ["PODFRESH_DATABASE": databasePath, "TERM": "dumb"]
        for (name, value) in environment {
            if let key = Environment.Key(rawValue: name) { overrides[key] = value }
        }
        let configuration = Subprocess.Configuration(
            executable: .path(executable), arguments: Arguments(commandArguments),
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

    /// Waits, polling, for a process from ``start(_:stdout:stderr:stdin:)`` to end (at most `timeout` seconds), without
    /// blocking a thread of the cooperative pool as `waitUntilExit()` would.
    static func exit(of process: Process, timeout: Double = 60) async {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { Issue.record("the process did not end within \(timeout) s") }
        process.waitUntilExit()  // ended: returns at once, and makes its status readable
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}
