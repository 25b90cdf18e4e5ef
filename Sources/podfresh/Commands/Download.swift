import ArgumentParser
import ConsoleOutput
import FeedModels
import FeedStorage
import Foundation
import RefreshEngine

extension RootCommand {
    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download episodes' media files: every file complete or absent, resumable, kept tidy.",
            discussion: """
                Downloads the media file (its audio, else video, enclosure) of each episode not downloaded yet, \
                newest first: the newest N of \
                each feed (--latest; default the feed's `--keep N`; every episode of a feed whose downloads are on \
                and that keeps all, the default; else 1), without FEED of every feed whose downloads are on \
                (`podfresh set FEED --download on`). A feed's downloads run from the time they were turned on: the \
                episodes that arrived since, and of the older ones the newest (`set FEED --backlog N|all` for more); \
                --latest N takes the newest N whenever they arrived. A file is written to NAME.part, synced and renamed only when \
                it is complete; an interrupted download is resumed next time. A file you delete by hand is not \
                downloaded again unless you give --again. A broken link (404, 410, a page instead of media) waits \
                1 h, then 4 h, 16 h … up to a week before it is tried again, unless you give --retry; any other \
                failure (a host that does not resolve, a timeout, a 5xx) waits 15 min, doubling up to 4 h; --quiet \
                says a failure once, and again when it changes. On PostgreSQL each episode is claimed under a lease, so \
                commands on several machines download it once. Exit status: 0 every selected episode is on disk \
                (or waits after a failure), 1 one or more downloads failed (the others are kept), 64 usage \
                error, 70 database error, 74 standard output cannot be written (a full disk), 75 another podfresh holds \
                the database, 130/143 stopped by SIGINT/SIGTERM, 141 standard output is a pipe nobody reads any more \
                (74 and 141 stop the downloads as SIGTERM does).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: "Feeds to download from (id, URL or part of a title). Default: every feed whose downloads are on.")
        var feeds: [String] = []

        @Option(
            help: ArgumentHelp(
                "Download the newest N episodes of each feed, also those from before its downloads were turned on (default: its --keep N; all since its downloads were turned on when it keeps all; else 1).",
                valueName: "N"))
        var latest: Int?

        @Flag(
            help: "Download again files you deleted by hand (or that were removed as past --keep) among those newest.")
        var again = false

        @Flag(
            help:
                "Try now the downloads that wait after a failure (a broken link: 404, 410, a page instead of media; a host that did not resolve or answer)."
        )
        var retry = false

        @OptionGroup var place: DownloadPlaceOptions

        @Option(help: "The most files downloaded at the same time (1–16).")
        var jobs: Int = 3

        @Option(
            help: ArgumentHelp(
                "Give up on a server that has not begun to answer a request within this long (connecting included).",
                valueName: "duration"))
        var firstByteTimeout = DurationArgument("30s")

        @Option(help: "The most files downloaded at the same time from one host (1–16).")
        var perHost: Int = 2

        @Flag(
            name: .shortAndLong,
            help: "Cron mode: print only files downloaded and errors; nothing when nothing happened.")
        var quiet = false

        @Flag(help: "Print JSON Lines: one object per download event.")
        var json = false

        @Option(
            help:
                "Run this command after each file downloaded, with the episode in PODFRESH_* environment variables and the file in PODFRESH_FILE."
        )
        var exec: String?

        @OptionGroup var hookTimeout: HookTimeoutOptions

        @OptionGroup var lock: RunLockOptions

        func validate() throws {
            if let latest, latest < 1 { throw ValidationError("Please give a --latest of 1 or more.") }
            guard (1...16).contains(jobs) else { throw ValidationError("Please give a --jobs between 1 and 16.") }
            guard (1...16).contains(perHost) else {
                throw ValidationError("Please give a --per-host between 1 and 16.")
            }
            if quiet && json { throw ValidationError("Please give either --quiet or --json.") }
            guard firstByteTimeout.seconds >= 0.1 else {
                throw ValidationError("Please give a --first-byte-timeout of at least 100ms, such as 30s.")
            }
        }

        func run() async throws {
            let mode = OutputMode.detect(json: json, quiet: quiet)
            let runLock = try await acquireRunLock(global, wait: lock.wait)
            defer { runLock?.release() }
            let status = try await withStore(global) { store -> ExitCode in
                let renderer = ConsoleRenderer(mode: mode)
                let subscriptions = try await store.repositories.subscriptions()
                let selected: [Subscription]
                if feeds.isEmpty {
                    selected = subscriptions.filter(\.downloadsEnabled)
                    if selected.isEmpty {
                        if mode != .quiet {
                            renderer.error(
                                subscriptions.isEmpty
                                    ? SubscriptionList.noSubscriptions
                                    : SubscriptionMessages.noDownloadsOn
                            )
                        }
                        return .success
                    }
                } else {
                    do {
                        selected = try FeedSelector.resolve(feeds, in: subscriptions)
                    } catch let error as FeedSelector.SelectionError {
                        renderer.error(error.message)
                        return ExitCode.validationFailure
                    }
                }
                let hook = exec.map { exec in
                    HookSettings(
                        command: exec, timeout: hookTimeout.execTimeout.duration,
                        output: mode == .json ? .standardErrorOnly : .standardStreams)
                }
                let updates = UIUpdateService()
                renderer.attach(to: updates)
                let events = EventHub()
                let settings = place.settings(jobs: jobs, perHost: perHost, firstByte: firstByteTimeout.duration)
                let store = store.repositories
                let (latest, again, retry) = (self.latest, self.again, self.retry)
                let service = StoppableWork(
                    onShutdown: {
                        renderer.error(StopMessages.downloadStopping)
                    },
                    work: {
                        let (_, summary) = try await EpisodeDownloadQueue.withQueue(
                            store: store, settings: settings, hook: hook, events: events
                        ) { queue in
                            for feed in selected {
                                let episodes = try await queue.plan(
                                    feed, newest: DownloadPlan.downloadWindow(latest: latest, subscription: feed),
                                    again: again, retry: retry, wholeCatalogue: latest != nil, saysOlder: true)
                                queue.enqueue(episodes, of: feed)
                            }
                        }
                        return summary
                    })
                let shutdown = SignalShutdown()
                try await withEvents(events, drawnThrough: updates) { try await shutdown.run(service) }
                if let signal = shutdown.signal { return ExitCode(stoppedBy: signal) }
                if service.outcome?.result.databaseFailed == true { return ExitStatus.internalError }
                return (service.outcome?.result.failedCount ?? 0) > 0 ? ExitStatus.feedsFailed : .success
            }
            if status != .success { throw status }
        }
    }
}
