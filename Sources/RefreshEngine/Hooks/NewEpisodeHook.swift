public import Foundation

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

    public init(
        feedTitle: String, feedURL: String, episodeTitle: String, episodeURL: String, enclosureURL: String,
        enclosureType: String, published: Date?, guid: String, identity: String, duration: Double?
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
            "PODFRESH_PUBLISHED": "", "PODFRESH_DURATION": "",
        ]
        if let published {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            env["PODFRESH_PUBLISHED"] = formatter.string(from: published)
        }
        if let duration { env["PODFRESH_DURATION"] = String(Int(duration.rounded())) }
        // Environment values cannot hold NUL; nothing else needs escaping, because nothing is interpolated.
        return env.mapValues { $0.replacingOccurrences(of: "\u{0}", with: "") }
    }
}

/// How one run of the hook ended.
public struct HookResult: Sendable, Hashable {
    public var exitStatus: Int32
    public var timedOut: Bool
    /// The last lines the hook wrote to standard error.
    public var stderrTail: String
    /// A failure to start the hook at all.
    public var launchError: String?

    /// nil when the hook succeeded; otherwise what went wrong, on one line.
    public var problemDescription: String? {
        if let launchError { return "could not run: \(launchError)" }
        if timedOut { return "timed out and was stopped" }
        guard exitStatus != 0 else { return nil }
        let tail = stderrTail.split(separator: "\n").last.map { ": \($0)" } ?? ""
        return "exited with status \(exitStatus)\(tail)"
    }
}

/// Runs the user's `--exec` command once per new episode: `/bin/sh -c COMMAND` with the episode only in
/// `PODFRESH_*` environment variables — never interpolated into the command, so hostile titles stay inert.
/// Standard input is empty; the hook's output is kept, and its last error lines are reported when it fails.
public enum NewEpisodeHook {
    public static func run(command: String, episode: HookEpisode, timeout: Duration = .seconds(60)) async -> HookResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(episode.environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let finished = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in
            finished.continuation.yield()
            finished.continuation.finish()
        }
        do {
            try process.run()
        } catch {
            return HookResult(exitStatus: -1, timedOut: false, stderrTail: "", launchError: error.localizedDescription)
        }
        let reader = Task.detached { errors.fileHandleForReading.readDataToEndOfFile() }
        let timedOut = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in finished.stream {}
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return !Task.isCancelled
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if timedOut {
            process.terminate()
            try? await Task.sleep(for: .milliseconds(200))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        let data = await reader.value
        let tail = String(decoding: data.suffix(2000), as: UTF8.self)
        return HookResult(exitStatus: process.terminationStatus, timedOut: timedOut, stderrTail: tail, launchError: nil)
    }
}
