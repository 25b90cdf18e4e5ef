import ArgumentParser
import ConsoleOutput
import FeedModels
import FeedStorage
import Foundation
import RefreshEngine
import RefreshMetrics
import ServiceLifecycle

extension RootCommand {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep refreshing: check whatever is due, sleep until the next feed is due, repeat.",
            discussion: """
                Runs until stopped. SIGINT or SIGTERM stops starting fetches, lets in-flight merges commit and exits \
                0; a second signal exits at once. When the network is down it says so once, blames no feed, and \
                tries again later. A feed's failure is printed once, not every cycle (each cycle counts those still \
                failing as before), a changed cause once more, and a recovery once. On a terminal every line fits \
                its width; --wide prints them whole.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var fetch: FetchOptions
        @OptionGroup var schedule: ScheduleOptions
        @OptionGroup var fleet: FleetOptions
        @OptionGroup var downloading: DownloadAfterRefreshOptions

        @Option(
            help: "Check every feed on a fixed cycle of this length instead of each feed's own schedule (e.g. 30m).")
        var interval: DurationArgument?

        @Flag(
            name: .shortAndLong,
            help: "Print only new episodes and errors (a feed's failure once, and again only when it changes).")
        var quiet = false

        @Flag(help: "Print JSON Lines: one object per event and per new episode.")
        var json = false

        @OptionGroup var wide: WideOption

        @Option(help: "Run this command once per new episode, with the episode in PODFRESH_* environment variables.")
        var exec: String?

        @OptionGroup var hookTimeout: HookTimeoutOptions

        @OptionGroup var lock: RunLockOptions

        @Option(
            help: ArgumentHelp(
                "Serve Prometheus metrics at http://HOST:PORT/metrics while watching (e.g. 127.0.0.1:9464; port 0: any free port). Off unless given.",
                valueName: "host:port"))
        var metrics: String?

        @OptionGroup var podping: PodpingOptions

        @OptionGroup var sync: SyncRunOptions

        @OptionGroup var syncInterval: SyncIntervalOptions

        func validate() throws {
            if let interval, interval.seconds < 1 { throw ValidationError("Please give an --interval of at least 1s.") }
            if quiet && json { throw ValidationError("Please give either --quiet or --json.") }
            try fleet.validate(against: fetch)
            if let metrics { _ = try Self.metricsAddress(metrics) }
        }

        /// The `--metrics` value as an address, or a usage error that names it.
        static func metricsAddress(_ text: String) throws -> MetricsAddress {
            do {
                return try MetricsAddress(parsing: text)
            } catch {
                throw ValidationError(MetricsText.invalidAddress(text, error))
            }
        }

        func run() async throws {
            let mode = OutputMode.detect(json: json, quiet: quiet)
            let metricsAddress = try metrics.map(Self.metricsAddress)
            let runLock = try await acquireRunLock(global, wait: lock.wait)
            defer { runLock?.release() }
            let interval = self.interval
            try await withRefreshEnvironment(
                global, fetch: fetch, schedule: schedule, output: mode,
                layout: OutputLayout(quietRepeats: true, wide: wide.wide), hook: exec,
                hookTimeout: hookTimeout.execTimeout.duration,
                lease: fleet.lease.duration,
                downloads: downloading.settings(perHost: fetch.perHost, firstByte: fetch.firstByteTimeout.duration),
                followsPodping: podping.podping
            ) { environment in
                // A fixed cycle does not wait for --min-interval: said once, at the start (through the renderer, so
                // a terminal wraps it), so a fast poll is a choice.
                if let interval, interval.seconds < schedule.minInterval.seconds {
                    environment.renderer.error(
                        WatchMessages.intervalBelowMinimum(
                            interval.description, minimum: schedule.minInterval.description))
                }
                var subscriptionSync: SubscriptionSync?
                if !sync.noSync {
                    subscriptionSync = try await environment.subscriptionSync(
                        interval: .seconds(syncInterval.syncInterval.seconds))
                }
                let service = WatchService(
                    environment: environment, interval: interval?.seconds,
                    sources: environment.dueSources(podping: podping.settings, sync: subscriptionSync))
                // What the last cycle published is printed before the error that ends watch (exit 70).
                try await environment.withEvents {
                    if let metricsAddress {
                        try await withMetrics(at: metricsAddress, environment) {
                            try await SignalShutdown().run(service)
                        }
                    } else {
                        try await SignalShutdown().run(service)
                    }
                }
            }
        }
    }
}

/// `podfresh watch` as a service: refresh what is due, sleep, repeat, until a graceful shutdown.
///
/// Graceful shutdown cancels the loop (`cancelWhenGracefulShutdown`), which is how the engine stops: the refresh in
/// progress starts no new fetch, lets those in flight finish and commit their merges, and returns; a sleep ends at
/// once. The loop is not a timer sequence with `cancelOnGracefulShutdown()`: that would end only between cycles, and
/// a cycle over many feeds must stop starting fetches at once.
struct WatchService: Service {
    let environment: RefreshEnvironment
    /// A fixed cycle in seconds (`--interval`), or nil for each feed's own schedule.
    let interval: Double?
    /// The sources of "due now" (`--podping`): each is followed beside the loop, and wakes it when it makes feeds due.
    var sources: [any DueSource] = []

    func run() async throws {
        let renderer = environment.renderer
        try await withGracefulShutdownHandler {
            try await cancelWhenGracefulShutdown { [environment, interval, sources] in
                let wake = WakeSignal()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for source in sources {
                        group.addTask { await source.follow(madeDue: wake.signal) }
                    }
                    defer { group.cancelAll() }
                    try await Self.loop(environment, interval: interval, woken: wake)
                }
            }
        } onGracefulShutdown: {
            renderer.error(StopMessages.watchStopping)
        }
    }

    /// Refresh what is due, sleep until the next feed is due (waking at least every minute to notice
    /// subscriptions added meanwhile), repeat until cancelled. With a fixed cycle (`interval`), a feed a ping made
    /// due is fetched at once between cycles (`woken` cuts the sleep short); the cycle keeps its own schedule.
    ///
    /// - Throws: ``StoreError`` when the database fails (gone, damaged, full), ``WatchStopped`` when a cycle fails
    ///   with an error of another kind: watch ends with 70, as every command does, and whatever supervises it (systemd's `Restart=`) starts it again, instead of a worker that looks
    ///   alive while it stores nothing.
    static func loop(
        _ environment: RefreshEnvironment, interval: Double?, woken: WakeSignal = WakeSignal()
    ) async throws {
        var offlineRetry: Double = 30
        var nextCycle = environment.now()
        // The first thing watch says, on every output, is what it checks now or when it checks next.
        var announced = false
        while !Task.isCancelled {
            do {
                let policy: RefreshPolicy = interval == nil ? .due : .all
                // nil: a whole cycle; otherwise only these feeds, which pings made due between fixed cycles.
                var pinged: [Int64]?
                var checking = 0
                if environment.now() >= nextCycle {
                    checking = try await environment.service.feedsToCheck(policy: policy).count
                } else if interval != nil {
                    pinged = try await pingedFeeds(environment)
                    checking = pinged?.count ?? 0
                }
                let run = checking > 0
                if run {
                    environment.events.publish(.checking(feeds: checking))
                    let summary = try await environment.service.refresh(
                        policy: pinged == nil ? policy : .due, feedIDs: pinged)
                    if Task.isCancelled { return }
                    if let failure = summary.outcomes.lazy.compactMap(\.failure)
                        .first(where: { $0.kind == .store(.database) }), case .store(let error) = failure.cause
                    {
                        throw error
                    }
                    if pinged == nil {
                        if summary.networkOffline {
                            nextCycle = environment.now().addingTimeInterval(offlineRetry)
                            offlineRetry = min(offlineRetry * 2, 600)
                        } else {
                            offlineRetry = 30
                            nextCycle = interval.map { environment.now().addingTimeInterval($0) } ?? environment.now()
                        }
                    }
                    let next = try await nextDue(environment, interval: interval, cycle: nextCycle)
                    // Through the event stream, so it follows this cycle's own events.
                    environment.events.publish(.idle(nextCheck: next))
                    Allocator.returnFreedMemory()
                }
                let next = try await nextDue(environment, interval: interval, cycle: nextCycle)
                if !announced && !run { environment.events.publish(.idle(nextCheck: next)) }
                announced = true
                let now = environment.now()
                let wake = min(next ?? .distantFuture, now.addingTimeInterval(60))
                // In a fleet, a feed due now may be another worker's until its merge: look again a second later.
                let seconds = max(environment.claims == nil ? 0.2 : 1, wake.timeIntervalSince(now))
                try await woken.sleep(seconds: seconds, on: environment.clock)
            } catch is CancellationError {
                return
            } catch let error as StoreError {
                throw error
            } catch {
                throw WatchStopped(cause: error)
            }
        }
    }

    /// The feeds a source of "due now" made due by now (their next check's reason ``ScheduleReason/isPushed``), and
    /// those never checked (subscribed meanwhile: by the sync server, `add --no-fetch` or `import`).
    static func pingedFeeds(_ environment: RefreshEnvironment) async throws -> [Int64] {
        try await environment.store.dueSubscriptions(at: environment.now())
            .filter { $0.nextCheckReason?.isPushed == true || $0.lastCheckedAt == nil }.map(\.id)
    }

    /// The earliest time any feed is due (with a fixed cycle: the next cycle, or sooner a feed a ping made due).
    static func nextDue(_ environment: RefreshEnvironment, interval: Double?, cycle: Date) async throws -> Date? {
        let live = try await environment.store.subscriptions().filter { !$0.isGone }
        if interval != nil {
            let pinged = live.lazy.filter { $0.nextCheckReason?.isPushed == true || $0.lastCheckedAt == nil }
                .map { $0.nextCheckAt ?? .distantPast }
            return min(cycle, pinged.min() ?? cycle)
        }
        let dates = live.map { $0.nextCheckAt ?? .distantPast }
        guard let earliest = dates.min() else { return nil }
        return max(earliest, cycle)
    }
}

/// A `watch` cycle failed as a whole with an error that is not the store's own: `watch` ends with 70, naming it.
struct WatchStopped: Error {
    /// Why the cycle failed.
    let cause: any Error
}
