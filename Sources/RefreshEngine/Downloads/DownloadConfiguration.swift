public import EpisodeDownloads
public import Foundation
public import HTTPTransport

/// How a run downloads episodes: where files go by default, how many at once, and the downloader's limits.
public struct EpisodeDownloadSettings: Sendable {
    /// Where files go for a feed without a folder of its own (`PODFRESH_DOWNLOADS`, `--dir`).
    public var directory: URL
    /// How files are named for a feed without a template of its own.
    public var fileNameTemplate: String
    /// Downloads at once (`--jobs`).
    public var jobs: Int
    /// Downloads at once from one host (`--per-host`).
    public var perHost: Int
    /// The `MediaDownloader`'s limits (timeouts, redirects, free-space margin).
    public var downloader: DownloadConfiguration
    /// At most this often a download's progress is published.
    public var progressInterval: Duration
    /// The network downloads go through: the feed fetches' own in `refresh --download` (one resolver, one pool per
    /// host); nil makes a network for the downloads alone.
    public var network: HTTPNetwork?

    public init(
        directory: URL, fileNameTemplate: String = FileNaming.defaultTemplate, jobs: Int = 3, perHost: Int = 2,
        downloader: DownloadConfiguration = DownloadConfiguration(), progressInterval: Duration = .milliseconds(250)
    ) {
        self.directory = directory
        self.fileNameTemplate = fileNameTemplate
        self.jobs = jobs
        self.perHost = perHost
        self.downloader = downloader
        self.progressInterval = progressInterval
    }

    /// The default download directory: `PODFRESH_DOWNLOADS`, else `$XDG_DATA_HOME/podfresh/episodes` (XDG's default
    /// for `XDG_DATA_HOME` is `~/.local/share`).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = environment["PODFRESH_DOWNLOADS"], !explicit.isEmpty {
            return URL(fileURLWithPath: (explicit as NSString).expandingTildeInPath).standardizedFileURL
        }
        let base: String
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = data
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = home + "/.local/share"
        }
        return URL(fileURLWithPath: base).appendingPathComponent("podfresh/episodes").standardizedFileURL
    }
}

/// `--exec` settings for a queue of its own (`podfresh download --exec`).
public struct HookSettings: Sendable {
    public var command: String
    public var timeout: Duration
    public var output: HookOutput

    public init(
        command: String, timeout: Duration = NewEpisodeHook.defaultTimeout, output: HookOutput = .standardStreams
    ) {
        self.command = command
        self.timeout = timeout
        self.output = output
    }
}
