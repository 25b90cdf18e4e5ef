import ArgumentParser
import EpisodeDownloads
import Foundation
import HTTPTransport
import RefreshEngine

/// Where downloaded files go, shared by `download`, `refresh --download` and `watch --download`.
struct DownloadPlaceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where files go for feeds without a folder of their own (`podfresh set FEED --dir`). Default: "
                + "$PODFRESH_DOWNLOADS, else $XDG_DATA_HOME/podfresh/episodes (here: "
                + "\(EpisodeDownloadSettings.defaultDirectory().path)).",
            valueName: "dir"))
    var dir: String?

    @Option(
        help: ArgumentHelp(
            "Give up on a download when no byte arrives for this long (its .part is kept to resume).",
            valueName: "duration"))
    var stallTimeout = DurationArgument("60s")

    @Option(
        help: ArgumentHelp(
            "Give up on a download whose body averages less than this over each --min-rate-window, a trickle that "
                + "never stalls (e.g. 4KB/s, 500B/s; 0 turns it off; its .part is kept to resume).",
            valueName: "rate"))
    var minRate = RateArgument("4KB/s")

    @Option(help: ArgumentHelp("The window --min-rate is averaged over.", valueName: "duration"))
    var minRateWindow = DurationArgument("60s")

    func validate() throws {
        if let dir, dir.isEmpty || dir.contains("\0") {
            throw ValidationError("--dir \"\(dir)\" is not a directory path.")
        }
        if stallTimeout.seconds < 1 { throw ValidationError("Please give a --stall-timeout of at least 1s.") }
        guard minRateWindow.seconds >= 1, minRateWindow.seconds.isFinite else {
            throw ValidationError("Please give a --min-rate-window of at least 1s, such as 60s.")
        }
    }

    /// The default directory: `--dir` (relative to the current directory), else the environment's.
    var directory: URL {
        guard let dir else { return EpisodeDownloadSettings.defaultDirectory() }
        let path = (dir as NSString).expandingTildeInPath
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL
    }

    /// The settings of a run that downloads `jobs` files at once, at most `perHost` from one host, giving up on a
    /// server that has not begun to answer within `firstByte`.
    func settings(jobs: Int, perHost: Int, firstByte: Duration) -> EpisodeDownloadSettings {
        EpisodeDownloadSettings(
            directory: directory, jobs: jobs, perHost: perHost,
            downloader: DownloadConfiguration(
                userAgent: PodfreshVersion.userAgent, firstByteTimeout: firstByte, stallTimeout: stallTimeout.duration,
                minimumRate: minRate.bytesPerSecond > 0
                    ? MinimumRate(bytesPerSecond: minRate.bytesPerSecond, window: minRateWindow.duration) : nil))
    }
}

/// `--download` for `refresh` and `watch`.
struct DownloadAfterRefreshOptions: ParsableArguments {
    @Flag(
        help: """
            After each feed's merge, download its new episodes if the feed's downloads are on (`podfresh set FEED \
            --download on`), and resume earlier downloads of it that failed.
            """)
    var download = false

    @Option(help: "With --download: the most files downloaded at the same time (1–16).")
    var downloadJobs: Int = 3

    @OptionGroup var place: DownloadPlaceOptions

    func validate() throws {
        guard (1...16).contains(downloadJobs) else {
            throw ValidationError("Please give a --download-jobs between 1 and 16.")
        }
        if !download && place.dir != nil { throw ValidationError("--dir goes with --download.") }
    }

    /// The run's download settings, nil without `--download`; `perHost` is `--per-host`, `firstByte` the feeds'
    /// `--first-byte-timeout` (one limit for both).
    func settings(perHost: Int, firstByte: Duration) -> EpisodeDownloadSettings? {
        download ? place.settings(jobs: downloadJobs, perHost: min(perHost, 16), firstByte: firstByte) : nil
    }
}

/// A rate as a user types it: `4000`, `4k`, `4KB/s`, `1.5MB/s`, `500B/s`; `0` or `off` for none. K and M are
/// thousands and millions (as ``Measure`` prints sizes).
struct RateArgument: ExpressibleByArgument, Hashable, Sendable, CustomStringConvertible {
    var bytesPerSecond: Int
    private var text: String

    /// A rate written as a user would type it, for defaults: `--help` shows exactly this.
    init(_ text: String) {
        guard let parsed = Self(argument: text) else { preconditionFailure("not a rate: \(text)") }
        self = parsed
    }

    init?(argument: String) {
        text = argument.trimmingCharacters(in: .whitespaces)
        var value = text.lowercased()
        if value == "off" || value == "none" {
            bytesPerSecond = 0
            return
        }
        if value.hasSuffix("/s") { value.removeLast(2) }
        if value.hasSuffix("b") { value.removeLast() }
        var factor = 1.0
        if value.hasSuffix("k") {
            factor = 1_000
            value.removeLast()
        } else if value.hasSuffix("m") {
            factor = 1_000_000
            value.removeLast()
        }
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite, number >= 0,
            number * factor < 1e12
        else { return nil }
        bytesPerSecond = Int((number * factor).rounded())
    }

    var description: String { text }
}
