import ArgumentParser
import ConsoleOutput
import FeedModels
import FeedStorage
import Foundation
import Measures
import RefreshEngine
import UnixSignals

extension RootCommand {
    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check subscribed feeds once and report new episodes.",
            discussion: """
                By default only feeds that are due are checked, with conditional GET. Name feeds (id, URL or part of \
                a title) to check just those now. For cron, use --quiet: it prints new episodes only (one line each) \
                and errors on stderr, and nothing at all when nothing happened; a feed's failure is printed once, \
                again only when it changes, and its recovery once (the exit status is still 1 while a feed fails). \
                On a terminal every line fits its width (an episode without its media URL); --wide prints them whole.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var fetch: FetchOptions
        @OptionGroup var schedule: ScheduleOptions
        @OptionGroup var fleet: FleetOptions
        @OptionGroup var downloading: DownloadAfterRefreshOptions

        @Argument(help: "Feeds to check now (id, URL or part of a title). Default: every feed that is due.")
        var feeds: [String] = []

        @Flag(help: "Check every subscription now, still with conditional GET.")
        var all = false

        @Flag(help: "Fetch every subscription now, unconditionally (ignore schedule and validators).")
        var force = false

        @Flag(help: "Touch no network: report from the store.")
        var offline = false

        @Flag(
            name: .shortAndLong,
            help:
                "Cron mode: print only new episodes and errors (a feed's failure once, again when it changes); nothing when nothing happened."
        )
        var quiet = false

        @Flag(help: "Print JSON Lines: one object per event and per new episode.")
        var json = false

        @OptionGroup var wide: WideOption

        @Option(help: "Run this command once per new episode, with the episode in PODFRESH_* environment variables.")
        var exec: String?

        @OptionGroup var hookTimeout: HookTimeoutOptions

        @OptionGroup var lock: RunLockOptions

        @OptionGroup var podping: PodpingOptions

        @OptionGroup var sync: SyncRunOptions

        func validate() throws {
            if [all, force, offline].filter({ $0 }).count > 1 {
                throw ValidationError("Please give at most one of --all, --force and --offline.")
            }
            if offline && exec != nil { throw ValidationError("--exec has nothing to run with --offline.") }
            if offline && downloading.download {
                throw ValidationError("--download needs the network; not with --offline.")
            }
            try fleet.validate(against: fetch)
            if quiet && json { throw ValidationError("Please give either --quiet or --json.") }
            if offline && podping.podping { throw ValidationError("--podping needs the network; not with --offline.") }
        }

        var policy: RefreshPolicy {
            if force { return .force }
            if offline { return .offline }
            if all { return .all }
            return .due
        }

        func run() async throws {
            let mode = OutputMode.detect(json: json, quiet: quiet)
            let runLock = try await acquireRunLock(global, wait: lock.wait)
            defer { runLock?.release() }
            let status = try await withRefreshEnvironment(
                global, fetch: fetch, schedule: schedule, output: mode, layout: OutputLayout(wide: wide.wide),
                hook: exec,
                hookTimeout: hookTimeout.execTimeout.duration,
                lease: fleet.lease.duration,
                downloads: downloading.settings(perHost: fetch.perHost, firstByte: fetch.firstByteTimeout.duration),
                followsPodping: podping.podping
            ) { environment in
                var feedIDs: [Int64]?
                if !feeds.isEmpty {
                    do {
                        feedIDs = try FeedSelector.resolve(feeds, in: try await environment.store.subscriptions()).map(
                            \.id)
                    } catch let error as FeedSelector.SelectionError {
                        environment.renderer.error(error.message)
                        return ExitCode.validationFailure
                    }
                }
                // Sync first once it is set up (never offline), so feeds the server names are fetched in this run.
                var subscriptionSync: SubscriptionSync?
                if !offline && !sync.noSync { subscriptionSync = try await environment.subscriptionSync() }
                let run = try await runRefresh(
                    environment, policy: policy, feedIDs: feedIDs, podping: podping.settings, sync: subscriptionSync)
                if run.summary.outcomes.isEmpty && (mode == .plain || mode == .tty) {
                    let count = try await environment.store.subscriptions().count
                    if count == 0 {
                        environment.renderer.error(SubscriptionList.noSubscriptions)
                    }
                }
                return exitStatus(for: run)
            }
            if status != .success { throw status }
        }
    }
}

/// A finished refresh, and the signal that stopped it early, if one did.
struct RefreshRunResult: Sendable {
    var summary: RefreshSummary
    /// SIGINT or SIGTERM, when the run was stopped before every feed was checked.
    var stoppedBy: UnixSignal?
    /// The sync before the refresh failed (it said so; the refresh went on with the local subscriptions).
    var syncFailed = false
}

/// Runs one refresh with the renderer listening, and waits until every event was drawn. The first SIGINT/SIGTERM
/// stops starting fetches and lets in-flight merges commit (and says what came of the run); a second exits at once
/// (``SignalShutdown``).
///
/// Each source of "due now" (with `podping`: the chain from the stored cursor) is read first, so that the feeds it
/// names are due.
func runRefresh(
    _ environment: RefreshEnvironment, policy: RefreshPolicy, feedIDs: [Int64]?, podping: PodpingSettings? = nil,
    sync: SubscriptionSync? = nil
) async throws -> RefreshRunResult {
    let sources = environment.dueSources(podping: podping, sync: sync)
    let shutdown = SignalShutdown()
    let renderer = environment.renderer
    let refresh = StoppableWork(
        onShutdown: {
            renderer.error(StopMessages.refreshStopping(signal: shutdown.signal.map { "\($0)" }))
        },
        work: {
            for source in sources { try await source.readSinceLast() }
            let summary = try await environment.service.refresh(policy: policy, feedIDs: feedIDs)
            // Plays the sync pulled for episodes of feeds it subscribed apply now that those feeds were fetched.
            if sync != nil, let actions = environment.syncStore as? any EpisodeActionRepository {
                _ = try await actions.applyWaitingEpisodeActions(subscriptionID: nil, at: environment.clock.date)
            }
            return summary
        })
    // Every event is drawn, whether the run ended, was stopped or failed.
    try await environment.withEvents { try await shutdown.run(refresh) }
    guard let finished = refresh.outcome else {
        preconditionFailure("the refresh service returned without a result")
    }
    // The signal is recorded before the group hears of the shutdown.
    var run = RefreshRunResult(summary: finished.result, stoppedBy: finished.stopped ? shutdown.signal : nil)
    run.syncFailed = sync?.lastOutcome?.failure != nil
    if let signal = run.stoppedBy {
        let unchecked = run.summary.outcomes.filter { $0.result == .cancelled }.count
        let checked = run.summary.outcomes.count - unchecked
        environment.renderer.error(
            StopMessages.refreshStopped(signal: "\(signal)", checked: checked, total: run.summary.outcomes.count))
    }
    return run
}

extension ExitCode {
    /// 128 + the signal, as a shell reports a process that a signal stopped.
    init(stoppedBy signal: UnixSignal) {
        self.init(128 + signal.rawValue)
    }
}

/// 128 + the signal when the run was stopped (it is incomplete); else 70 when the database failed under a feed
/// (``ExitStatus/forDatabaseFailures(in:)``), 0 when every feed was refreshed or unchanged (or the network was down
/// and nobody was blamed), 1 when any failed.
func exitStatus(for run: RefreshRunResult) -> ExitCode {
    if let signal = run.stoppedBy { return ExitCode(stoppedBy: signal) }
    if let databaseFailure = ExitStatus.forDatabaseFailures(in: run.summary) { return databaseFailure }
    if run.summary.downloads?.databaseFailed == true { return ExitStatus.internalError }
    if (run.summary.downloads?.failedCount ?? 0) > 0 { return ExitStatus.feedsFailed }
    if run.summary.networkOffline { return .success }
    return run.summary.failedCount > 0 || run.syncFailed ? ExitStatus.feedsFailed : .success
}

/// Takes the run lock beside an SQLite database, or explains who holds it. On PostgreSQL there is none: any number
/// of workers run at once and share the work through leases.
func acquireRunLock(_ global: GlobalOptions, wait: DurationArgument?) async throws -> RunLock? {
    guard case .sqlite(let databasePath) = try global.databaseTarget else { return nil }
    do {
        return try await RunLock.acquire(forDatabaseAt: databasePath, wait: wait?.duration)
    } catch let error as RunLockError {
        Console.standard.error(StoreMessages.runLockHeld(pid: error.pid, since: error.since, command: error.command))
        throw ExitStatus.locked
    }
}
