import Foundation
import Synchronization
import TestSupport
import Testing

/// One simulated internet for one test: a network namespace made by `Scripts/netsim.sh`, with `podfresh-netsim`
/// inside serving the hosts of a ``NetLayout``, and the built `podfresh` run inside it.
///
/// Needs root and working `ip netns`; ``unavailableReason`` says why not, and the suites skip with it.
struct SimulatedInternet {
    /// The namespace's short name (`Scripts/netsim.sh` prefixes it with `podfresh-`).
    let name: String
    /// A temporary folder with the corpus, the layout, the database and the namespace's state.
    let directory: URL
    let layout: NetLayout

    var databasePath: String { directory.appendingPathComponent("podfresh.sqlite").path }

    // MARK: - Where things are

    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// A built executable of this package: beside the test bundle (`.build/<triple>/debug/NAME`).
    static func builtExecutable(_ name: String) -> URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue
            {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/\(name)")
    }

    static let podfresh = builtExecutable("podfresh")
    static let simulator = builtExecutable("podfresh-netsim")
    static let script = packageRoot.appendingPathComponent("Scripts/netsim.sh").path

    /// Nil when namespaces can be made here (root, `ip netns add` works: checked by making one), else why not.
    static let unavailableReason: String? = {
        guard getuid() == 0 else { return "not running as root" }
        let result = try? Shell.runBlocking([script, "check"])
        guard let result else { return "Scripts/netsim.sh could not run" }
        return result.status == 0 ? nil : "ip netns does not work here: \(result.stdout)"
    }()

    static var isAvailable: Bool { unavailableReason == nil }

    // MARK: - Up and down

    /// Writes the corpus and the layout, brings the namespace up and subscribes a fresh database to every feed.
    ///
    /// - Parameter resolverOptions: the `options` line of the namespace's resolv.conf (nil: glibc's defaults, 5 s
    ///   timeout and 2 attempts).
    static func start(_ layout: NetLayout, resolverOptions: String? = nil) async throws -> SimulatedInternet {
        let id = UUID().uuidString.prefix(8).lowercased()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-internet-\(id)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("corpus/feeds"), withIntermediateDirectories: true)
        let internet = SimulatedInternet(name: "t\(id)", directory: directory, layout: layout)
        try layout.write(into: directory)
        var environment = [
            "NETSIM_BIN": simulator.path, "NETSIM_STATE": directory.appendingPathComponent("state").path,
        ]
        if let resolverOptions { environment["NETSIM_RESOLV_OPTIONS"] = resolverOptions }
        let up = try await Shell.run(
            [
                script, "up", internet.name, directory.appendingPathComponent("layout.json").path,
                directory.appendingPathComponent("corpus").path,
            ], environment: environment)
        guard up.status == 0 else {
            internet.stop()
            throw SimulationError("Scripts/netsim.sh up failed (\(up.status)): \(up.stdout) \(up.stderr)")
        }
        let imported = try await Shell.run([
            podfresh.path, "import", "--database", internet.databasePath,
            directory.appendingPathComponent("feeds.opml").path,
        ])
        guard imported.status == 0 else {
            internet.stop()
            throw SimulationError("podfresh import failed: \(imported.stderr)")
        }
        return internet
    }

    /// Stops the simulator, removes the namespace and the temporary folder.
    func stop() {
        _ = try? Shell.runBlocking(
            [Self.script, "down", name],
            environment: ["NETSIM_STATE": directory.appendingPathComponent("state").path])
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Running podfresh

    /// Runs `podfresh refresh --database … --all --json` with `arguments` inside the namespace, timing each line of
    /// its output as it arrives.
    func refresh(_ arguments: [String], timeout: Duration = .seconds(45)) async throws -> TimedRun {
        try await Shell.timed(
            [
                Self.script, "exec", name, Self.podfresh.path, "refresh", "--database", databasePath, "--all", "--json",
            ] + arguments,
            environment: ["NETSIM_STATE": directory.appendingPathComponent("state").path], timeout: timeout)
    }

    /// The simulator's counters since the last reset; `reset` zeroes them after reading.
    func statistics(reset: Bool = false) async throws -> NetStatistics {
        let result = try await Shell.run(
            [Self.script, "stats", name] + (reset ? ["reset"] : []),
            environment: ["NETSIM_STATE": directory.appendingPathComponent("state").path])
        guard result.status == 0 else { throw SimulationError("no statistics: \(result.stderr)") }
        return try JSONDecoder().decode(NetStatistics.self, from: Data(result.stdout.utf8))
    }

    /// Zeroes the simulator's counters (between a cold and a warm run).
    func resetStatistics() async throws { _ = try await statistics(reset: true) }

    /// The `podfresh --help` text of `refresh`.
    static func refreshHelp() async throws -> String {
        try await Shell.run([podfresh.path, "refresh", "--help"]).stdout
    }
}

struct SimulationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Layout

/// The hosts of a test: each with its own 127.x.y.z address, its feeds (small RSS documents written for the test)
/// and its behaviour.
struct NetLayout {
    struct Host {
        var name: String
        var feeds: Int
        var tls = false
        var h2 = false
        /// `ok`, `missing` (NXDOMAIN) or `silent` (no DNS answer ever).
        var dns = "ok"
        var dnsDelayMs: Int?
        /// The answer delay of each feed, cycled through.
        var delaysMs: [Int] = [0]
    }

    var hosts: [Host]
    var dnsDelayMs = 40
    var bytesPerSecond = 5_000_000

    /// The URL of feed `index` of `host`.
    func url(_ host: Host, _ index: Int) -> String {
        "\(host.tls ? "https" : "http")://\(host.name)/feeds/\(Self.feedName(host, index)).xml"
    }

    static func feedName(_ host: Host, _ index: Int) -> String {
        "\(host.name.replacingOccurrences(of: ".", with: "-"))-\(index)"
    }

    /// Every feed URL, host by host.
    var urls: [String] { hosts.flatMap { host in (0..<host.feeds).map { url(host, $0) } } }

    /// Writes `layout.json`, `feeds.opml` and `corpus/feeds/*.xml`.
    func write(into directory: URL) throws {
        var hostObjects: [[String: Any]] = []
        for (index, host) in hosts.enumerated() {
            var feeds: [[String: Any]] = []
            for i in 0..<host.feeds {
                let name = Self.feedName(host, i)
                try Self.rss(title: name).write(
                    to: directory.appendingPathComponent("corpus/feeds/\(name).xml"), atomically: true,
                    encoding: .utf8)
                feeds.append([
                    "path": "/feeds/\(name).xml", "file": "feeds/\(name).xml",
                    "delayMs": host.delaysMs[i % host.delaysMs.count],
                ])
            }
            var object: [String: Any] = [
                "name": host.name, "address": "127.2.\(index / 250).\(index % 250 + 1)", "tls": host.tls,
                "h2": host.h2, "dns": host.dns, "feeds": feeds,
            ]
            if let delay = host.dnsDelayMs { object["dnsDelayMs"] = delay }
            hostObjects.append(object)
        }
        let layout: [String: Any] = [
            "dns": ["delayMs": dnsDelayMs], "bytesPerSecond": bytesPerSecond, "hosts": hostObjects,
        ]
        try JSONSerialization.data(withJSONObject: layout, options: [.prettyPrinted, .sortedKeys])
            .write(to: directory.appendingPathComponent("layout.json"))
        var opml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\"><head><title>t</title></head><body>\n"
        for url in urls { opml += "<outline type=\"rss\" text=\"\(url)\" xmlUrl=\"\(url)\"/>\n" }
        opml += "</body></opml>\n"
        try opml.write(to: directory.appendingPathComponent("feeds.opml"), atomically: true, encoding: .utf8)
    }

    /// A small podcast feed with three episodes.
    static func rss(title: String) -> String {
        var items = ""
        for n in 1...3 {
            items += """
                <item><title>\(title) episode \(n)</title><guid>\(title)-\(n)</guid>
                <pubDate>Mon, 0\(n) Nov 2026 06:00:00 GMT</pubDate>
                <enclosure url="http://media.invalid/\(title)-\(n).mp3" length="1000" type="audio/mpeg"/></item>

                """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>\(title)</title><link>http://example.invalid/</link>
            <description>a test feed</description>
            \(items)</channel></rss>

            """
    }
}

// MARK: - Statistics

/// The counters `podfresh-netsim` serves at `/stats` (Scripts/NetSim/Statistics.swift).
struct NetStatistics: Decodable {
    struct Totals: Decodable {
        var seconds: Double
        var connections: Int
        var requests: Int
        var h2Requests: Int
        var ok: Int
        var notModified: Int
        var otherStatuses: Int
        var maxRequestsInFlightPerHost: Int
        var maxConnectionsOpenPerHost: Int
        var dnsQueries: Int
        var maxQueriesInFlight: Int
        var maxLookupsInFlight: Int
    }

    struct Host: Decodable {
        var connections: Int
        var maxOpenConnections: Int
        var requests: Int
        var h2Requests: Int
        var maxInFlight: Int
        var notModified: Int
        var statuses: [String: Int]
    }

    struct Name: Decodable {
        var queries: Int
        var a: Int
        var aaaa: Int
        var maxInFlight: Int
    }

    var totals: Totals
    var hosts: [String: Host]
    var names: [String: Name]

    /// A-record queries: one for each name resolution a client started (AAAA queries come beside them).
    var addressLookups: Int { names.values.reduce(0) { $0 + $1.a } }
}

// MARK: - Processes

/// What a process printed, each stdout line with the time since the start at which it arrived.
struct TimedRun: Sendable {
    var status: Int32
    var wallTime: Duration
    var lines: [(at: Duration, text: String)]
    var stderr: String

    /// The JSON Lines events printed, each with its arrival time.
    var events: [(at: Duration, event: [String: Any])] {
        lines.compactMap { line in
            guard let data = line.text.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return (line.at, object)
        }
    }

    /// Events named `name` (`feed_refreshed`, `feed_failed`, ...).
    func events(_ name: String) -> [(at: Duration, event: [String: Any])] {
        events.filter { $0.event["event"] as? String == name }
    }

    /// A short account for a failed expectation.
    var summary: String {
        "exit \(status) after \(wallTime); stderr: \(stderr.suffix(600))"
    }
}

/// Lines with their arrival times, appended by the task reading a pipe while the test waits for the process.
final class LineLog: Sendable {
    private let lines = Mutex<[(at: Duration, text: String)]>([])

    func append(_ at: Duration, _ text: String) { lines.withLock { $0.append((at, text)) } }
    var all: [(at: Duration, text: String)] { lines.withLock { $0 } }
}

enum Shell {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a command to its end on a thread of its own (see `onOwnThread`).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await onOwnThread { try runBlocking(arguments, environment: environment) }
    }

    /// Runs a command to its end, blocking the calling thread; output goes through files, so no pipe ever fills.
    static func runBlocking(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-sh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let err = folder.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// Runs a command, timing each stdout line as it arrives; killed after `timeout`.
    static func timed(
        _ arguments: [String], environment: [String: String], timeout: Duration
    ) async throws
        -> TimedRun
    {
        let clock = ContinuousClock()
        let start = clock.now
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        env["TERM"] = "dumb"
        process.environment = env
        let out = Pipe()
        let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errFile) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        let lines = LineLog()
        // Blocking reads, on a thread of their own.
        let reader = Task {
            try? await onOwnThread { readLines(out, into: lines, since: start, on: clock) }
        }
        while process.isRunning {
            if clock.now - start > timeout {
                process.terminate()
                Issue.record("\(arguments.joined(separator: " ")) did not finish within \(timeout)")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        process.waitUntilExit()
        let wall = clock.now - start
        await reader.value
        return TimedRun(
            status: process.terminationStatus, wallTime: wall, lines: lines.all,
            stderr: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "")
    }
}

/// Reads `pipe` to its end, logging each line with the time it arrived since `start`.
private func readLines(
    _ pipe: Pipe, into lines: LineLog, since start: ContinuousClock.Instant, on clock: ContinuousClock
) {
    var pending = Data()
    while true {
        let chunk = pipe.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        let now = clock.now - start
        pending.append(chunk)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
            pending.removeSubrange(pending.startIndex...newline)
            lines.append(now, text)
        }
    }
}
