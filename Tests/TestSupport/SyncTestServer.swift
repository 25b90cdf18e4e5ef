public import Foundation
import Synchronization

/// A gPodder-API server for the sync tests, run as a process of its own on 127.0.0.1: gpodder-fastapi-router (a real
/// gpodder.net-compatible server from PyPI, in the venv `Scripts/sync-test-venv.sh` makes) or the small Nextcloud
/// gPodder Sync server written from that app's published API (`Scripts/SyncServers/nextcloud_server.py`). Both take
/// faults through a control API of their own (`/_test/…`), and the "phone" of a test talks to them with curl.
public struct SyncTestServer: Sendable {
    /// Which kind of server.
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        case gpodder, nextcloud
        public var description: String { rawValue }
    }

    public let kind: Kind
    /// The server's base URL (`http://127.0.0.1:PORT`).
    public let url: URL
    public let port: Int
    public let user: String
    public let password: String
    /// The running process.
    public let process: RunningProcess

    /// The package root, found from this file's path.
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// The venv's python.
    public static var python: String { packageRoot.appendingPathComponent(".build-sync-venv/bin/python").path }

    private static let venvReady = Mutex<Task<Bool, Never>?>(nil)

    /// Whether the venv with gpodder-fastapi-router is there, making it (once per test process, through
    /// `Scripts/sync-test-venv.sh`, which needs PyPI) when it is not.
    public static func gpodderAvailable() async -> Bool {
        let task = venvReady.withLock { task in
            if let task { return task }
            let made = Task<Bool, Never> {
                guard
                    let outcome = try? await runProcess(
                        "/bin/bash", arguments: [packageRoot.appendingPathComponent("Scripts/sync-test-venv.sh").path],
                        within: .seconds(300))
                else { return false }
                return outcome.status == .exited(0)
            }
            task = made
            return made
        }
        return await task.value
    }

    /// Whether python3 is there for the Nextcloud server.
    public static var nextcloudAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") }

    // MARK: - The control API

    /// Makes the server answer the next `times` requests whose path contains `match` (and whose method is `method`,
    /// when given) with a fault: `status` (with `status`), `malformed` (JSON cut short), `delay` (`seconds`, then the
    /// request is served), `die` (the process exits before handling it), `die_after` (gpodder only: it exits after).
    public func inject(
        _ kind: String, match: String = "", method: String? = nil, times: Int = 1, status: Int? = nil,
        seconds: Double? = nil
    ) async throws {
        var fault: [String: Any] = ["kind": kind, "match": match, "times": times]
        if let method { fault["method"] = method }
        if let status { fault["status"] = status }
        if let seconds { fault["seconds"] = seconds }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: fault), as: UTF8.self)
        _ = try await curl(["-X", "POST", "-H", "Content-Type: application/json", "-d", body, "\(url)/_test/fault"])
    }

    /// The requests served so far (method and path), control requests left out.
    public func served() async throws -> [(method: String, path: String)] {
        let text = try await curl(["\(url)/_test/served"])
        let list = (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]) ?? []
        return list.map { ($0["method"] as? String ?? "", $0["path"] as? String ?? "") }
    }

    // MARK: - The phone

    /// The phone subscribes to `add` and unsubscribes from `remove` (gpodder: as device `device`).
    @discardableResult
    public func phoneChanges(
        add: [String] = [], remove: [String] = [], device: String = "phone"
    ) async throws
        -> [String: Any]
    {
        let body = String(
            decoding: try JSONSerialization.data(withJSONObject: ["add": add, "remove": remove]), as: UTF8.self)
        let path =
            kind == .gpodder
            ? "/api/2/subscriptions/\(user)/\(device).json" : "/index.php/apps/gpoddersync/subscription_change/create"
        let text = try await curl(
            [
                "-u", "\(user):\(password)", "-X", "POST", "-H", "Content-Type: application/json", "-d", body,
                "\(url)\(path)",
            ])
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    /// Every subscription the server holds for `device` (gpodder) or the user (nextcloud).
    public func phoneSubscriptions(device: String = "phone") async throws -> Set<String> {
        let path =
            kind == .gpodder
            ? "/api/2/subscriptions/\(user)/\(device).json?since=0"
            : "/index.php/apps/gpoddersync/subscriptions?since=0"
        let text = try await curl(["-u", "\(user):\(password)", "\(url)\(path)"])
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return Set(object?["add"] as? [String] ?? [])
    }

    /// The phone uploads episode actions (each a JSON object of the API: podcast, episode, guid, action, timestamp,
    /// position, total); on gpodder each is stamped `device`.
    public func phoneActions(_ actions: [[String: Any]], device: String = "phone") async throws {
        var list = actions
        if kind == .gpodder {
            list = list.map {
                var action = $0
                action["device"] = device
                return action
            }
        }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self)
        let path =
            kind == .gpodder
            ? "/api/2/episodes/\(user).json" : "/index.php/apps/gpoddersync/episode_action/create"
        _ = try await curl(
            [
                "-u", "\(user):\(password)", "-X", "POST", "-H", "Content-Type: application/json", "-d", body,
                "\(url)\(path)",
            ])
    }

    /// Every episode action the server holds, as the phone reads them (`since=0`).
    public func serverActions() async throws -> [[String: Any]] {
        let path =
            kind == .gpodder
            ? "/api/2/episodes/\(user).json?since=0" : "/index.php/apps/gpoddersync/episode_action?since=0"
        let text = try await curl(["-u", "\(user):\(password)", "\(url)\(path)"])
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return object?["actions"] as? [[String: Any]] ?? []
    }

    /// `date` as the API writes a timestamp (UTC `YYYY-MM-DDTHH:MM:SS`).
    public static func apiTimestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: date)
    }

    /// Registers `device` with the server (gpodder only; a phone does this once).
    public func registerPhone(_ device: String = "phone") async throws {
        guard kind == .gpodder else { return }
        _ = try await curl(
            [
                "-u", "\(user):\(password)", "-X", "POST", "-H", "Content-Type: application/json", "-d",
                "{\"caption\":\"phone\",\"type\":\"mobile\"}", "\(url)/api/2/devices/\(user)/\(device).json",
            ])
    }

    /// Runs curl, failing on a status of 400 or more; its standard output.
    public func curl(_ arguments: [String]) async throws -> String {
        let outcome = try await runProcess(
            "/usr/bin/curl", arguments: ["-sS", "--fail", "--max-time", "30"] + arguments, within: .seconds(40))
        guard outcome.status == .exited(0) else {
            throw SyncTestServerError.failed("curl \(arguments.joined(separator: " ")): \(outcome.standardError)")
        }
        return outcome.standardOutput
    }
}

/// The test server could not be started or asked.
public enum SyncTestServerError: Error, CustomStringConvertible {
    case failed(String)
    public var description: String {
        switch self {
        case .failed(let text): text
        }
    }
}

/// Runs a sync server of `kind` for the length of `body`, its state in `directory` (so a server started again on the
/// same folder and port has the same data), and stops it by its PID on the way out.
public func withSyncTestServer<R>(
    _ kind: SyncTestServer.Kind, directory: URL, port: Int = 0, user: String = "alice",
    password: String = "correct horse", _ body: (SyncTestServer) async throws -> R
) async throws -> R {
    let executable: String
    let arguments: [String]
    switch kind {
    case .gpodder:
        executable = SyncTestServer.python
        arguments = [
            SyncTestServer.packageRoot.appendingPathComponent("Scripts/SyncServers/gpodder_server.py").path, "--db",
            directory.appendingPathComponent("gpodder.db").path, "--port", "\(port)", "--user", user, "--password",
            password,
        ]
    case .nextcloud:
        executable = "/usr/bin/python3"
        arguments = [
            SyncTestServer.packageRoot.appendingPathComponent("Scripts/SyncServers/nextcloud_server.py").path,
            "--user", user, "--password", password, "--port", "\(port)", "--state",
            directory.appendingPathComponent("nextcloud.json").path,
        ]
    }
    return try await withRunningProcess(executable, arguments: arguments, stopAfter: .seconds(3)) { process in
        guard await process.waitForLine(containing: "listening ", within: .seconds(60)),
            let line = process.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }),
            let bound = Int(line.dropFirst("listening ".count))
        else {
            throw SyncTestServerError.failed("the \(kind) server did not start: \(process.transcript)")
        }
        let server = SyncTestServer(
            kind: kind, url: URL(string: "http://127.0.0.1:\(bound)")!, port: bound, user: user, password: password,
            process: process)
        return try await body(server)
    }
}
