import ArgumentParser
import EpisodeDownloads
import Foundation
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

    func validate() throws {
        if let dir, dir.isEmpty || dir.contains("\0") {
            throw ValidationError("--dir \"\(dir)\" is not a directory path.")
        }
        if stallTimeout.seconds < 1 { throw ValidationError("Please give a --stall-timeout of at least 1s.") }
    }

    /// The default directory: `--dir` (relative to the current directory), else the environment's.
    var directory: URL {
        guard let dir else { return EpisodeDownloadSettings.defaultDirectory() }
        let path = (dir as NSString).expandingTildeInPath
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL
    }

    /// The settings of a run that downloads `jobs` files at once, at most `perHost` from one host.
    func settings(jobs: Int, perHost: Int) -> EpisodeDownloadSettings {
        EpisodeDownloadSettings(
            directory: directory, jobs: jobs, perHost: perHost,
            downloader: DownloadConfiguration(
                userAgent: PodfreshVersion.userAgent, stallTimeout: stallTimeout.duration))
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

    /// The run's download settings, nil without `--download`; `perHost` is `--per-host`.
    func settings(perHost: Int) -> EpisodeDownloadSettings? {
        download ? place.settings(jobs: downloadJobs, perHost: min(perHost, 16)) : nil
    }
}
