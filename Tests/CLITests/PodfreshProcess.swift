import Foundation
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

    /// Runs the binary to completion (killed after `timeout` seconds).
    func run(_ arguments: [String], timeout: Double = 60, input: Data? = nil) async throws -> ProcessResult {
        let out = Pipe()
        let err = Pipe()
        let inputPipe = input.map { _ in Pipe() }
        let process = try start(arguments, stdout: out, stderr: err, stdin: inputPipe)
        if let input, let inputPipe {
            // Written from another task so a large input never blocks this one; closing the pipe is the end of file.
            Task.detached {
                inputPipe.fileHandleForWriting.write(input)
                try? inputPipe.fileHandleForWriting.close()
            }
        }
        // Read both pipes while the process runs so a full pipe never blocks it.
        async let stdoutData = Task.detached { out.fileHandleForReading.readDataToEndOfFile() }.value
        async let stderrData = Task.detached { err.fileHandleForReading.readDataToEndOfFile() }.value
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                Issue.record("podfresh \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            stdout: String(decoding: await stdoutData, as: UTF8.self),
            stderr: String(decoding: await stderrData, as: UTF8.self))
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}
