public import FeedFetching
public import FeedModels
import Foundation

/// Runs a refresh: picks the feeds that are due, hands them to the ``DataFetchCoordinator``, merges each parsed feed
/// into the store in one transaction, and reports one ``RefreshOutcome`` per feed.
///
/// It orchestrates four parts, each a type of its own: the feeds to check (``FeedsToCheck``: the policy, the feeds
/// named, or a fleet's claims), one feed's check (``FeedRefresh``: fetch → parse → merge → outcome), the network
/// verdict (``NetworkVerdict``) and the run's record (``RunBookkeeping``).
///
/// On a store several workers share (one that is ``FeedClaiming``), the service is one worker: it claims feeds under
/// a lease as fetch slots free up, stores a check only while its lease holds, and ends when nothing is left to claim.
public final class EpisodeUpdateService: Sendable {
    private let feeds: FeedsToCheck
    private let episodes: any EpisodeRepository
    private let bookkeeping: RunBookkeeping
    private let source: any FeedSource
    private let coordinator: DataFetchCoordinator
    private let configuration: EpisodeUpdateConfiguration
    /// The store as a whole, for downloads (set by the store initializer).
    private let store: (any FeedRepositories)?
    /// Bounds the feeds being read, parsed and stored at once (nil: no bound).
    private let processingSlots: ProcessingSlots?

    /// A service over one store that keeps subscriptions, episodes and runs (SQLite's `FeedStore`, or any other).
    /// When `claims` is given (a store several workers share), feeds are claimed under leases as `fleet` says.
    public convenience init(
        store: some FeedRepositories,
        claims: (any FeedClaiming)? = nil,
        fleet: FleetSettings = FleetSettings(worker: FleetSettings.thisProcess, lease: .seconds(300)),
        source: any FeedSource,
        coordinator: DataFetchCoordinator,
        configuration: EpisodeUpdateConfiguration = .init()
    ) {
        self.init(
            subscriptions: store, episodes: store, runs: store, claims: claims, fleet: fleet,
            source: source, coordinator: coordinator, configuration: configuration, store: store)
    }

    public convenience init(
        subscriptions: any SubscriptionRepository,
        episodes: any EpisodeRepository,
        runs: any RefreshRunRepository,
        claims: (any FeedClaiming)? = nil,
        fleet: FleetSettings = FleetSettings(worker: FleetSettings.thisProcess, lease: .seconds(300)),
        source: any FeedSource,
        coordinator: DataFetchCoordinator,
        configuration: EpisodeUpdateConfiguration = .init()
    ) {
        self.init(
            subscriptions: subscriptions, episodes: episodes, runs: runs, claims: claims, fleet: fleet, source: source,
            coordinator: coordinator, configuration: configuration, store: nil)
    }

    private init(
        subscriptions: any SubscriptionRepository,
        episodes: any EpisodeRepository,
        runs: any RefreshRunRepository,
        claims: (any FeedClaiming)?,
        fleet: FleetSettings,
        source: any FeedSource,
        coordinator: DataFetchCoordinator,
        configuration: EpisodeUpdateConfiguration,
        store: (any FeedRepositories)?
    ) {
        self.store = store
        feeds = FeedsToCheck(subscriptions: subscriptions, claims: claims, fleet: fleet, now: configuration.now)
        self.episodes = episodes
        bookkeeping = RunBookkeeping(runs: runs)
        // The in-run retry of a transient failure is a wrapper around the source, not a branch of the refresh.
        self.source =
            configuration.retryTransientFailures
            ? RetryingFeedSource(wrapping: source, delay: configuration.retryDelay, clock: configuration.clock) : source
        self.coordinator = coordinator
        self.configuration = configuration
        // The busiest host's answers may take as many slots beyond the count as it has connections.
        processingSlots = configuration.processingSlots.map {
            ProcessingSlots(count: $0, urgentExtra: coordinator.maxPerHost)
        }
    }

    /// The subscriptions a refresh with `policy` would check now. `feedIDs` narrows it to those, checked now whatever
    /// their schedule or state (a gone feed named by the user is checked again, and revives when it answers).
    /// Otherwise gone feeds are checked only by ``RefreshPolicy/force``. (On a shared store, other workers may take
    /// some of them.)
    public func feedsToCheck(policy: RefreshPolicy, feedIDs: [Int64]? = nil) async throws -> [Subscription] {
        try await feeds.list(policy: policy, feedIDs: feedIDs)
    }

    /// Refreshes the feeds `policy` selects (or just `feedIDs`), publishing events to the coordinator's hub, and
    /// records the run.
    ///
    /// - Throws: ``StoreError`` when the store cannot be read or the run cannot be recorded (on a shared store, also
    ///   when a claim fails; the fetches in flight finish first). Per-feed problems never throw: they are outcomes.
    public func refresh(policy: RefreshPolicy, feedIDs: [Int64]? = nil) async throws -> RefreshSummary {
        let startedAt = configuration.now()
        if policy == .offline {
            let selected = try await feeds.list(policy: policy, feedIDs: feedIDs)
            return answerOffline(
                HostSpreading.order(selected.map(FeedTarget.init(subscription:)), host: \.host), startedAt: startedAt)
        }

        let run = try await bookkeeping.begin(at: startedAt)
        let pinged = await configuration.pingedFeeds?() ?? []
        let verdict = NetworkVerdict()
        let tally = RunTally()
        let hooks = configuration.hookCommand.map { command in
            HookQueue(
                command: command, timeout: configuration.hookTimeout, output: configuration.hookOutput,
                clock: configuration.clock
            ) {
                [events] feed, failure in events.publish(.hookFailed(feed, failure))
            }
        }
        func checkFeeds(downloads: EpisodeDownloadQueue?) async throws -> ([RefreshOutcome], StoreError?) {
            let after = AfterMerge(hooks: hooks, downloads: downloads, publish: events.publish)
            let refresh = FeedRefresh(
                source: source, episodes: episodes, configuration: configuration, processingSlots: processingSlots,
                moves: MoveCheck(source: source, parserOptions: configuration.parserOptions), policy: policy,
                runID: run.id, verdict: verdict, tally: tally, after: after, pinged: pinged)
            return try await feeds.run(
                policy: policy, feedIDs: feedIDs, startedAt: startedAt, on: coordinator,
                pacing: FeedsToCheck.Pacing(admitting: admitting, published: after.published),
                check: { subscription, lease, slot in await refresh.check(subscription, lease: lease, slot: slot) })
        }
        let outcomes: [RefreshOutcome]
        let claimFailure: StoreError?
        var downloadSummary: DownloadSummary?
        if let settings = configuration.downloads, let store {
            ((outcomes, claimFailure), downloadSummary) = try await EpisodeDownloadQueue.withQueue(
                store: store, settings: settings, hooks: hooks, clock: configuration.clock,
                publish: events.publish
            ) { queue in
                try await checkFeeds(downloads: queue)
            }
        } else {
            (outcomes, claimFailure) = try await checkFeeds(downloads: nil)
        }
        // Hooks run one at a time beside the fetches, never in a fetch slot; the run ends when the last has run.
        await hooks?.finish()

        // Unreachable hosts are recorded only once we know the network itself is up.
        let decision = verdict.decide(outcomes)
        await NetworkVerdict.settle(
            decision, episodes: episodes, claims: feeds.claims, publish: events.publish)

        var summary = RefreshSummary(
            outcomes: decision.outcomes, startedAt: startedAt, endedAt: configuration.now(),
            networkOffline: decision.networkOffline, wasCancelled: Task.isCancelled)
        summary.downloads = downloadSummary
        if policy == .due, feedIDs == nil, decision.outcomes.isEmpty, claimFailure == nil {
            summary.nothingDue = try await feeds.nothingDue()
        }
        if let claimFailure {
            // The store went away between claims: what ran is reported, and the run fails as a whole.
            events.publish(.batchCompleted(summary))
            throw claimFailure
        }
        try await bookkeeping.finish(run, summary: summary, tally: tally)
        events.publish(.batchCompleted(summary))
        return summary
    }

    /// Where the run's events go besides the coordinator's own: downloads, hooks, the verdict, the batch's end.
    private var events: EventHub { coordinator.events }

    /// Whether the coordinator may start another fetch: while many answers already wait for a processing slot, one
    /// more fetch in flight would only add to them (nil: no processing slots, always).
    private var admitting: (@Sendable () -> Bool)? {
        guard let slots = processingSlots else { return nil }
        return { slots.admitsNow }
    }

    /// `--offline`: every selected feed is answered from the store, without a fetch.
    private func answerOffline(_ targets: [FeedTarget], startedAt: Date) -> RefreshSummary {
        events.publish(.batchStarted(total: targets.count))
        var outcomes: [RefreshOutcome] = []
        var progress = BatchProgress(total: targets.count)
        for target in targets {
            let outcome = RefreshOutcome(feed: target, result: .offline)
            outcomes.append(outcome)
            progress.finished += 1
            events.publish(.fetchCompleted(outcome))
            events.publish(.batchProgress(progress))
        }
        let summary = RefreshSummary(outcomes: outcomes, startedAt: startedAt, endedAt: configuration.now())
        events.publish(.batchCompleted(summary))
        return summary
    }
}
