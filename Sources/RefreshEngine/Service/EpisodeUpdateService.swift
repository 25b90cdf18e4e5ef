public import FeedFetching
public import FeedModels
public import FeedParsing
public import Foundation
import Measures
import Synchronization

/// Which feeds a refresh checks, and how (the cache policies of the design notes).
public enum RefreshPolicy: String, Sendable, Hashable, CaseIterable {
    /// Feeds never checked or whose next check has passed; conditional GET.
    case due
    /// Every subscription now, still with conditional GET.
    case all
    /// Every subscription now, unconditionally: schedule and validators ignored.
    case force
    /// No network at all: answer from the store.
    case offline
}

/// Settings of the ``EpisodeUpdateService``.
public struct EpisodeUpdateConfiguration: Sendable {
    public var parserOptions: FeedParserOptions
    /// Scheduling rules (intervals, backoff, revalidation).
    public var schedulePolicy: SchedulePolicy
    /// `--exec`: a command run once per new episode, with the episode in environment variables.
    public var hookCommand: String?
    /// `--exec-timeout`: how long one run of the hook may take before its process group is stopped.
    public var hookTimeout: Duration = NewEpisodeHook.defaultTimeout
    /// Where the hook's output lines go (podfresh's standard output and error; only standard error for `--json`).
    public var hookOutput: HookOutput = .standardStreams
    /// Retry a transient transport failure (reset, timeout) once within the run.
    public var retryTransientFailures: Bool
    /// The delay before that retry, before jitter (a random 50–150 % of it is used).
    public var retryDelay: Duration
    /// The clock reading used for every timestamp (injected for tests).
    public var now: @Sendable () -> Date
    /// `--download`: after each feed's merge, download its new episodes (feeds whose downloads are on); nil: none.
    public var downloads: EpisodeDownloadSettings?
    /// How many fetched feeds are read, parsed and stored at once (``ProcessingSlots``); nil: as many as are fetched.
    public var processingSlots: Int? = ProcessingSlots.defaultCount

    public init(
        parserOptions: FeedParserOptions = .init(),
        schedulePolicy: SchedulePolicy = .init(),
        hookCommand: String? = nil,
        retryTransientFailures: Bool = true,
        retryDelay: Duration = .milliseconds(500),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.parserOptions = parserOptions
        self.schedulePolicy = schedulePolicy
        self.hookCommand = hookCommand
        self.retryTransientFailures = retryTransientFailures
        self.retryDelay = retryDelay
        self.now = now
    }
}

/// How a worker of a fleet claims feeds from a store several workers share (``FeedClaiming``).
public struct FleetSettings: Sendable, Hashable {
    /// This worker's name in leases (host name and process id).
    public var worker: String
    /// How long a lease lasts before other workers may take the feed (`--lease`).
    public var lease: Duration

    public init(worker: String, lease: Duration) {
        self.worker = worker
        self.lease = lease
    }

    /// This machine's host name and this process's id.
    public static var thisProcess: String {
        "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
    }
}

/// Runs a refresh: picks the feeds that are due, hands them to the ``DataFetchCoordinator``, merges each parsed feed
/// into the store in one transaction, and reports one ``RefreshOutcome`` per feed.
///
/// On a store several workers share (one that is ``FeedClaiming``), the service is one worker: it claims feeds under
/// a lease as fetch slots free up, stores a check only while its lease holds, and ends when nothing is left to claim.
public final class EpisodeUpdateService: Sendable {
    private let subscriptions: any AsyncSubscriptionRepository
    private let episodes: any AsyncEpisodeRepository
    private let runs: any AsyncRefreshRunRepository
    private let claims: (any FeedClaiming)?
    private let fleet: FleetSettings
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
        subscriptions: any AsyncSubscriptionRepository,
        episodes: any AsyncEpisodeRepository,
        runs: any AsyncRefreshRunRepository,
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
        subscriptions: any AsyncSubscriptionRepository,
        episodes: any AsyncEpisodeRepository,
        runs: any AsyncRefreshRunRepository,
        claims: (any FeedClaiming)?,
        fleet: FleetSettings,
        source: any FeedSource,
        coordinator: DataFetchCoordinator,
        configuration: EpisodeUpdateConfiguration,
        store: (any FeedRepositories)?
    ) {
        self.store = store
        self.subscriptions = subscriptions
        self.episodes = episodes
        self.runs = runs
        self.claims = claims
        self.fleet = fleet
        // The in-run retry of a transient failure is a wrapper around the source, not a branch of the refresh.
        self.source =
            configuration.retryTransientFailures
            ? RetryingFeedSource(wrapping: source, delay: configuration.retryDelay) : source
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
        let now = configuration.now()
        if let feedIDs {
            var selected: [Subscription] = []
            for id in feedIDs {
                if let subscription = try await subscriptions.subscription(id: id) { selected.append(subscription) }
            }
            return selected
        }
        switch policy {
        case .due: return try await subscriptions.dueSubscriptions(at: now)
        case .force: return try await subscriptions.subscriptions()
        case .all, .offline: return try await subscriptions.subscriptions().filter { !$0.isGone }
        }
    }

    /// Refreshes the feeds `policy` selects (or just `feedIDs`), publishing events through the coordinator, and
    /// records the run.
    ///
    /// - Throws: ``StoreError`` when the store cannot be read or the run cannot be recorded (on a shared store, also
    ///   when a claim fails; the fetches in flight finish first). Per-feed problems never throw: they are outcomes.
    public func refresh(policy: RefreshPolicy, feedIDs: [Int64]? = nil) async throws -> RefreshSummary {
        let startedAt = configuration.now()
        if policy == .offline {
            let selected = try await feedsToCheck(policy: policy, feedIDs: feedIDs)
            return answerOffline(
                HostSpreading.order(selected.map(Self.target(for:)), host: \.host), startedAt: startedAt)
        }

        var run = try await runs.beginRun(at: startedAt)
        let runID = run.id
        let deferred = DeferredFailures()
        let hooks = configuration.hookCommand.map { command in
            HookQueue(
                command: command, timeout: configuration.hookTimeout, output: configuration.hookOutput
            ) {
                [coordinator] feed, failure in coordinator.publish(.hookFailed(feed, failure))
            }
        }
        let outcomes: [RefreshOutcome]
        let claimFailure: StoreError?
        var downloadSummary: DownloadSummary?
        if let settings = configuration.downloads, let store {
            ((outcomes, claimFailure), downloadSummary) = try await EpisodeDownloadQueue.withQueue(
                store: store, settings: settings, hooks: hooks, now: configuration.now,
                publish: { [coordinator] event in coordinator.publish(event) }
            ) { queue in
                try await checkFeeds(
                    policy: policy, feedIDs: feedIDs, startedAt: startedAt, runID: runID, deferred: deferred,
                    after: AfterMerge(hooks: hooks, downloads: queue, publish: coordinator.publish))
            }
        } else {
            (outcomes, claimFailure) = try await checkFeeds(
                policy: policy, feedIDs: feedIDs, startedAt: startedAt, runID: runID, deferred: deferred,
                after: AfterMerge(hooks: hooks, downloads: nil, publish: coordinator.publish))
        }
        // Hooks run one at a time beside the fetches, never in a fetch slot; the run ends when the last has run.
        await hooks?.finish()

        // Unreachable hosts are recorded only once we know the network itself is up.
        let networkFetches = outcomes.filter { ["http", "https"].contains($0.feed.url.scheme?.lowercased() ?? "") }
        let unreachable = deferred.all()
        let networkOffline = !networkFetches.isEmpty && unreachable.count == networkFetches.count
        var finalOutcomes = outcomes
        if networkOffline {
            coordinator.publish(.networkOffline(fetches: networkFetches.count))
            let offlineIDs = Set(unreachable.map(\.subscriptionID))
            finalOutcomes = outcomes.map { outcome in
                var outcome = outcome
                if outcome.isFailure, offlineIDs.contains(outcome.feed.id) {
                    outcome.nextCheckAt = nil
                    outcome.nextCheckReason = .networkOffline
                }
                return outcome
            }
            // Nothing is recorded against these feeds; other workers may take them at once.
            if let claims {
                try? await claims.releaseLeases(unreachable.compactMap(\.lease))
            }
        } else if !unreachable.isEmpty {
            for check in unreachable {
                // The feed's own outcome already says it failed; a store error here must not stop the others.
                _ = try? await episodes.applyAsync(check)
            }
            coordinator.publish(.failuresConfirmed(outcomes.filter { $0.failure?.awaitsNetworkVerdict == true }))
        }

        var summary = RefreshSummary(
            outcomes: finalOutcomes, startedAt: startedAt, endedAt: configuration.now(),
            networkOffline: networkOffline, wasCancelled: Task.isCancelled)
        summary.downloads = downloadSummary
        if policy == .due, feedIDs == nil, finalOutcomes.isEmpty, claimFailure == nil {
            summary.nothingDue = try await nothingDue()
        }
        if let claimFailure {
            // The store went away between claims: what ran is reported, and the run fails as a whole.
            coordinator.publish(.batchCompleted(summary))
            throw claimFailure
        }
        run.endedAt = summary.endedAt
        run.feedsChecked = outcomes.filter { $0.result != .cancelled }.count
        run.feedsFailed = networkOffline ? 0 : summary.failedCount
        run.feedsNotModified = summary.notModifiedCount
        run.newEpisodes = summary.newEpisodeCount
        run.bytesDownloaded = deferred.bytesDownloaded
        run.bytesSaved = deferred.bytesSaved
        try await runs.finishRun(run)
        coordinator.publish(.batchCompleted(summary))
        return summary
    }

    /// Why nothing was due: when the first of the subscriptions is due next; nil without subscriptions.
    private func nothingDue() async throws -> RefreshSummary.NothingDue? {
        let all = try await subscriptions.subscriptions()
        guard !all.isEmpty else { return nil }
        let next = all.filter { !$0.isGone }.map { $0.nextCheckAt ?? configuration.now() }.min()
        guard let next, next < .distantFuture else { return .never }
        return .nextAt(next)
    }

    /// Checks the feeds (claiming them on a shared store), each merged and handed to `after`.
    private func checkFeeds(
        policy: RefreshPolicy, feedIDs: [Int64]?, startedAt: Date, runID: Int64, deferred: DeferredFailures,
        after: AfterMerge
    ) async throws -> ([RefreshOutcome], StoreError?) {
        if let claims {
            return await runClaiming(
                claims, policy: policy, feedIDs: feedIDs, startedAt: startedAt, runID: runID, deferred: deferred,
                after: after)
        }
        let selected = try await feedsToCheck(policy: policy, feedIDs: feedIDs)
        let targets = HostSpreading.order(selected.map(Self.target(for:)), host: \.host)
        let byID = Dictionary(selected.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let outcomes = await coordinator.run(
            targets, admitting: admitting,
            operation: { [self] target, slot in
                guard let subscription = byID[target.id] else {
                    return RefreshOutcome(
                        feed: target,
                        result: .failed(
                            RefreshFailure(.notChecked(.subscriptionNotFound))))
                }
                return await refreshOne(
                    subscription, lease: nil, slot: slot, policy: policy, runID: runID, deferred: deferred,
                    after: after)
            }, published: after.published)
        return (outcomes, nil)
    }

    // MARK: - A worker of a fleet

    /// Claims feeds from a shared store as fetch slots free up and refreshes each under its lease, until nothing is
    /// left to claim. Leases of feeds claimed but not checked (a stopped run) are given back.
    private func runClaiming(
        _ claims: any FeedClaiming, policy: RefreshPolicy, feedIDs: [Int64]?, startedAt: Date, runID: Int64,
        deferred: DeferredFailures, after: AfterMerge
    ) async -> (outcomes: [RefreshOutcome], failure: StoreError?) {
        var selection: ClaimSelection
        if let feedIDs {
            selection = .among(ids: feedIDs, notCheckedSince: startedAt)
        } else {
            switch policy {
            case .due, .offline: selection = .due
            case .all: selection = .all(includeGone: false, notCheckedSince: startedAt)
            case .force: selection = .all(includeGone: true, notCheckedSince: startedAt)
            }
        }
        // A run over every feed (or named ones) is the fleet's: workers started while it goes join it and check
        // only the feeds not checked since it started, so each feed is checked once per run.
        let pass = CheckPass(selection)
        var passStart: Date?
        if let pass {
            do {
                let start = try await claims.joinCheckPass(pass, lease: fleet.lease)
                passStart = start
                selection = CheckPass.selection(selection, since: start)
            } catch {
                return ([], StoreError.wrapping(error))
            }
        }
        let passTouches = PassTouches(every: fleet.lease / 4)
        let (claimSelection, runStart) = (selection, passStart)
        let book = ClaimBook()
        let perHost = coordinator.maxPerHost
        let ahead = coordinator.maxConcurrent
        let fleet = self.fleet
        let outcomes = await coordinator.run(
            claimingWith: { freeSlots in
                // A few feeds claimed ahead wait for the next free slot, so claims (which take turns across the fleet)
                // are a tenth as many as feeds; their leases count against their hosts from the claim.
                let request = ClaimRequest(
                    selection: claimSelection, limit: freeSlots + ahead, perHost: perHost, worker: fleet.worker,
                    lease: fleet.lease)
                let result: ClaimResult
                do {
                    if let pass, let runStart, passTouches.due() {
                        try await claims.touchCheckPass(pass, startedAt: runStart)
                    }
                    result = try await claims.claimFeeds(request)
                } catch {
                    book.fail(StoreError.wrapping(error))
                    return .exhausted
                }
                let fresh = book.take(result.claimed)
                if !fresh.repeated.isEmpty {
                    // A feed this run already checked came back (its check was not stored): not again in this run.
                    try? await claims.releaseLeases(fresh.repeated)
                }
                if fresh.feeds.isEmpty {
                    return result.waitingForHost > 0 && fresh.repeated.isEmpty ? .waiting : .exhausted
                }
                return .feeds(fresh.feeds.map { Self.target(for: $0.subscription) })
            },
            admitting: admitting,
            operation: { [self] target, slot in
                guard let (subscription, lease) = book.claimed(target.id) else {
                    return RefreshOutcome(
                        feed: target,
                        result: .failed(
                            RefreshFailure(.notChecked(.leaseNotFound))))
                }
                return await refreshOne(
                    subscription, lease: lease, slot: slot, policy: policy, runID: runID, deferred: deferred,
                    after: after)
            }, published: after.published)
        let unused = outcomes.filter { $0.result == .cancelled }.compactMap { book.claimed($0.feed.id)?.lease }
        if !unused.isEmpty { try? await claims.releaseLeases(unused) }
        if let pass, let passStart, unused.isEmpty, book.failure == nil, !Task.isCancelled {
            // Nothing was left to claim: the run is over, and a worker starting now begins the next.
            try? await claims.endCheckPass(pass, startedAt: passStart)
        }
        return (outcomes, book.failure)
    }

    private func answerOffline(_ targets: [FeedTarget], startedAt: Date) -> RefreshSummary {
        coordinator.publish(.batchStarted(total: targets.count))
        var outcomes: [RefreshOutcome] = []
        var progress = BatchProgress(total: targets.count)
        for target in targets {
            let outcome = RefreshOutcome(feed: target, result: .offline)
            outcomes.append(outcome)
            progress.finished += 1
            coordinator.publish(.fetchCompleted(outcome))
            coordinator.publish(.batchProgress(progress))
        }
        let summary = RefreshSummary(outcomes: outcomes, startedAt: startedAt, endedAt: configuration.now())
        coordinator.publish(.batchCompleted(summary))
        return summary
    }

    static func target(for subscription: Subscription) -> FeedTarget {
        FeedTarget(id: subscription.id, url: subscription.url, title: subscription.title)
    }

    // MARK: - One feed

    /// Whether the coordinator may start another fetch: while many answers already wait for a processing slot, one
    /// more fetch in flight would only add to them (nil: no processing slots, always).
    private var admitting: (@Sendable () -> Bool)? {
        guard let slots = processingSlots else { return nil }
        return { slots.admitsNow }
    }

    private func refreshOne(
        _ subscription: Subscription,
        lease: FeedLease?,
        slot: FetchSlot?,
        policy: RefreshPolicy,
        runID: Int64,
        deferred: DeferredFailures,
        after: AfterMerge
    ) async -> RefreshOutcome {
        let target = Self.target(for: subscription)
        let now = configuration.now()
        // Without validators every fetch is unconditional anyway; say so, so the revalidation clock starts.
        let unconditional =
            policy == .force
            || (subscription.etag == nil && subscription.lastModified == nil)
            || FeedScheduler.shouldRevalidate(
                lastUnconditionalAt: subscription.lastUnconditionalAt, now: now, policy: configuration.schedulePolicy)
        let request = FeedRequest(
            url: subscription.url, etag: subscription.etag, lastModified: subscription.lastModified,
            conditional: !unconditional, reusesConnection: !(slot?.isLastOfHost ?? false))
        // The first successful fetch of a subscription announces only its newest episodes; the rest is stored.
        let announceLimit = subscription.lastSuccessAt == nil ? max(0, subscription.backlog ?? 1) : nil
        // The feed holds a processing slot from its response head to the end of its merge.
        let permit = ProcessingPermit(processingSlots, urgent: slot?.isBusiestHost ?? false)
        defer { permit.giveBack() }
        do {
            let result = try await fetchFeed(request, permit: permit, slot: slot)
            if Task.isCancelled { return RefreshOutcome(feed: target, result: .cancelled) }
            switch result {
            case .notModified(let head):
                let schedule = await scheduleAfterSuccess(subscription, head: head, feed: nil, now: now)
                let check = FeedCheck(
                    subscriptionID: subscription.id, checkedAt: now, status: 304, result: .notModified,
                    movedTo: movedURL(subscription, head: head, feed: nil),
                    nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason, runID: runID, lease: lease)
                let merge = try await episodes.applyAsync(check)
                deferred.addSaved(subscription.lastBodyBytes ?? 0)
                await after.merged(subscription, as: target, announced: [], feedTitle: nil)
                return RefreshOutcome(
                    feed: target, result: .notModified, movedTo: merge.movedTo,
                    moveRefused: merge.moveRefused.map(MoveRefusal.taken),
                    nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason,
                    bytesSaved: subscription.lastBodyBytes ?? 0)
            case .fetched(let head, let consumer, let byteCount):
                deferred.addDownloaded(byteCount)
                let feed = try consumer.finish()
                let schedule = await scheduleAfterSuccess(subscription, head: head, feed: feed, now: now)
                let move = await checkedMove(subscription, head: head, feed: feed)
                let check = FeedCheck(
                    subscriptionID: subscription.id, checkedAt: now, status: head.status,
                    result: .fetched(
                        feed, etag: head.etag, lastModified: head.lastModified, unconditional: unconditional),
                    movedTo: move.target,
                    nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason, runID: runID,
                    bodyBytes: byteCount, announceLimit: announceLimit, lease: lease)
                let merge = try await episodes.applyAsync(check)
                let updated = FeedTarget(
                    id: subscription.id, url: merge.movedTo ?? subscription.url, title: feed.title ?? subscription.title
                )
                let announced = merge.newEpisodes.map {
                    EpisodeAnnouncement(feedID: $0.subscriptionID, episode: $0.episode)
                }
                await after.merged(subscription, as: updated, announced: announced, feedTitle: feed.title)
                var outcome = RefreshOutcome(
                    feed: updated,
                    result: .updated(newEpisodes: announced, updatedCount: merge.updatedCount),
                    movedTo: merge.movedTo, moveRefused: move.refused ?? merge.moveRefused.map(MoveRefusal.taken),
                    warnings: feed.warnings,
                    nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason)
                outcome.backlogCount = merge.backlogCount
                outcome.bytesFetched = byteCount
                return outcome
            }
        } catch is CancellationError {
            return RefreshOutcome(feed: target, result: .cancelled)
        } catch let error as StoreError where error.kind == .notFound {
            // Unsubscribed while it was being checked: nothing to store, nothing failed.
            return RefreshOutcome(feed: target, result: .removed)
        } catch let error as StoreError where error.kind == .leaseLost {
            return RefreshOutcome(feed: target, result: .dropped(error))
        } catch let error as FeedFetchError where error.kind == .gone {
            let check = FeedCheck(
                subscriptionID: subscription.id, checkedAt: now, status: error.status ?? 410,
                result: .gone(message: RefreshFailure(.fetch(error)).storedCause), runID: runID, lease: lease)
            do {
                _ = try await episodes.applyAsync(check)
            } catch let error as StoreError where error.kind == .leaseLost {
                return RefreshOutcome(feed: target, result: .dropped(error))
            } catch {
                return await failed(
                    target, subscription,
                    RefreshFailure(
                        .store(StoreError.wrapping(error))
                    ),
                    now: now, runID: runID, lease: lease, record: false)
            }
            return RefreshOutcome(feed: target, result: .gone(error), nextCheckReason: .gone)
        } catch let error as FeedFetchError {
            if Task.isCancelled { return RefreshOutcome(feed: target, result: .cancelled) }
            var failure = RefreshFailure(.fetch(error))
            if error.kind == .unreachable, ["http", "https"].contains(subscription.url.scheme?.lowercased() ?? "") {
                failure.awaitsNetworkVerdict = true
                deferred.add(
                    failureCheck(
                        subscription, failure, now: now, runID: runID, lease: lease, retryAfter: error.retryAfter))
                return await failed(
                    target, subscription, failure, now: now, runID: runID, lease: lease, record: false,
                    retryAfter: error.retryAfter)
            }
            return await failed(
                target, subscription, failure, now: now, runID: runID, lease: lease, retryAfter: error.retryAfter)
        } catch let error as FeedParseError {
            return await failed(
                target, subscription, RefreshFailure(.parse(error)), now: now, runID: runID, lease: lease)
        } catch let error as StoreError {
            return await failed(
                target, subscription, RefreshFailure(.store(error)),
                now: now, runID: runID, lease: lease, record: false)
        } catch {
            return await failed(
                target, subscription, RefreshFailure(.unexpected(reason: ErrorWords.describe(error))), now: now,
                runID: runID,
                lease: lease)
        }
    }

    /// Fetches and parses one feed; its host's slot is given back as soon as the host has answered (body in, or failed).
    private func fetchFeed(
        _ request: FeedRequest, permit: ProcessingPermit, slot: FetchSlot?
    ) async throws -> FeedFetchResult<
        FeedParserConsumer
    > {
        defer { slot?.releaseHost() }
        let options = configuration.parserOptions
        return try await source.fetch(request) { head in
            try await permit.take()
            return FeedParserConsumer(head: head, options: options)
        }
    }

    private func failureCheck(
        _ subscription: Subscription, _ failure: RefreshFailure, now: Date, runID: Int64, lease: FeedLease?,
        retryAfter: Date?
    ) -> FeedCheck {
        let schedule = FeedScheduler.decide(
            ScheduleInput(
                now: now, result: .failure, consecutiveFailures: subscription.failureCount + 1,
                isComplete: subscription.isComplete, retryAfter: retryAfter),
            policy: configuration.schedulePolicy)
        return FeedCheck(
            subscriptionID: subscription.id, checkedAt: now, status: failure.status,
            result: .failed(kind: failure.kind.rawValue, message: failure.storedCause),
            nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason, runID: runID, lease: lease)
    }

    /// Records a failure (unless `record` is false) and returns its outcome; a failure whose lease ran out is
    /// dropped instead.
    private func failed(
        _ target: FeedTarget, _ subscription: Subscription, _ failure: RefreshFailure,
        now: Date, runID: Int64, lease: FeedLease?, record: Bool = true, retryAfter: Date? = nil
    ) async -> RefreshOutcome {
        let check = failureCheck(subscription, failure, now: now, runID: runID, lease: lease, retryAfter: retryAfter)
        if record {
            do {
                _ = try await episodes.applyAsync(check)
            } catch let error as StoreError where error.kind == .leaseLost {
                return RefreshOutcome(feed: target, result: .dropped(error))
            } catch {
                // The feed's outcome says it failed; a store that cannot record that must not stop the others.
            }
        }
        return RefreshOutcome(
            feed: target, result: .failed(failure), nextCheckAt: check.nextCheckAt,
            nextCheckReason: check.nextCheckReason)
    }

    /// A permanent redirect, else `itunes:new-feed-url`, when it points somewhere new over http(s).
    private func movedURL(_ subscription: Subscription, head: FeedResponseHead, feed: ParsedFeed?) -> URL? {
        if let moved = head.permanentRedirect, moved != subscription.url { return moved }
        if let newURL = feed?.newFeedURL, ["http", "https"].contains(newURL.scheme?.lowercased() ?? ""),
            newURL != subscription.url, newURL != head.url
        {
            return newURL
        }
        return nil
    }

    private func scheduleAfterSuccess(
        _ subscription: Subscription, head: FeedResponseHead, feed: ParsedFeed?, now: Date
    ) async -> ScheduleDecision {
        let dates: [Date]
        if let feed {
            dates = feed.episodes.compactMap(\.published).sorted(by: >)
        } else {
            dates = (try? await episodes.recentPublishedDates(subscriptionID: subscription.id, limit: 20)) ?? []
        }
        let input = ScheduleInput(
            now: now, result: .success, consecutiveFailures: 0, recentPublishedDates: Array(dates.prefix(20)),
            ttlMinutes: feed.map(\.ttl) ?? subscription.ttlMinutes,
            syndicationUpdatePeriod: feed.map(\.syndicationUpdatePeriod) ?? subscription.syndicationUpdatePeriod,
            syndicationUpdateFrequency: feed.map(\.syndicationUpdateFrequency)
                ?? subscription.syndicationUpdateFrequency,
            podcastUpdateFrequency: feed.map(\.updateFrequency) ?? subscription.podcastUpdateFrequency,
            isComplete: feed?.complete ?? subscription.isComplete,
            maxAge: head.maxAge, expires: head.expires, retryAfter: head.retryAfter)
        return FeedScheduler.decide(input, policy: configuration.schedulePolicy)
    }

    // MARK: - Moves

    /// The move a check asks for, once it is known to lead to a feed. A permanent redirect is already checked: the
    /// body that just parsed came from its target. An `itunes:new-feed-url` (or `<redirect><newLocation>`) target is
    /// fetched and parsed first; a target that is not a feed, or that points straight back, keeps the old URL.
    private func checkedMove(
        _ subscription: Subscription, head: FeedResponseHead, feed: ParsedFeed
    ) async -> (target: URL?, refused: MoveRefusal?) {
        guard let target = movedURL(subscription, head: head, feed: feed) else { return (nil, nil) }
        if target == subscription.refusedMoveTarget { return (nil, nil) }
        if target == head.permanentRedirect { return (target, nil) }
        let options = configuration.parserOptions
        do {
            let result = try await source.fetch(FeedRequest(url: target, conditional: false)) { head in
                FeedParserConsumer(head: head, options: options)
            }
            guard case .fetched(_, let consumer, _) = result else {
                return (nil, .unaskedNotModified(target: target, staying: subscription.url))
            }
            let moved = try consumer.finish()
            if let back = moved.newFeedURL, back == subscription.url || back == head.url {
                return (nil, .pointsBack(target: target, staying: subscription.url))
            }
            return (target, nil)
        } catch is CancellationError {
            return (nil, nil)
        } catch {
            return (nil, .unreadable(target: target, staying: subscription.url, cause: RefreshFailure.Cause(error)))
        }
    }
}

/// Failures held back until the batch knows whether the whole network is down (the one place that holds them: output
/// waits for ``DataFetchEvent/networkOffline(fetches:)`` or ``DataFetchEvent/failuresConfirmed(_:)``), plus the run's
/// byte counts.
///
/// ## Why this class is `@unchecked Sendable`
/// Every property is read and written only inside `lock.withLock {}`.
private final class DeferredFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [FeedCheck] = []
    private var downloaded = 0
    private var saved = 0

    func add(_ check: FeedCheck) { lock.withLock { items.append(check) } }
    func all() -> [FeedCheck] { lock.withLock { items } }
    func addDownloaded(_ bytes: Int) { lock.withLock { downloaded += bytes } }
    func addSaved(_ bytes: Int) { lock.withLock { saved += bytes } }
    var bytesDownloaded: Int { lock.withLock { downloaded } }
    var bytesSaved: Int { lock.withLock { saved } }
}

/// When a worker next says its run over every feed is still going (``FeedClaiming/touchCheckPass(_:startedAt:)``):
/// at most every `every`, on a claim.
///
/// Checked `Sendable`: the time of the last touch sits in a `Mutex`.
final class PassTouches: Sendable {
    private let every: Duration
    private let last = Mutex(ContinuousClock.now)

    init(every: Duration) {
        self.every = every
    }

    /// True (and the clock restarted) when a touch is due.
    func due() -> Bool {
        let now = ContinuousClock.now
        return last.withLock { last in
            guard last.duration(to: now) >= every else { return false }
            last = now
            return true
        }
    }
}

/// The feeds a worker claimed in one run, with their leases.
///
/// ## Why this class is `@unchecked Sendable`
/// Every property is read and written only inside `lock.withLock {}`.
private final class ClaimBook: @unchecked Sendable {
    private let lock = NSLock()
    private var leases: [Int64: (subscription: Subscription, lease: FeedLease)] = [:]
    private var storeFailure: StoreError?

    /// Records newly claimed feeds; a feed this run already had comes back in `repeated` (its lease), not in `feeds`.
    func take(
        _ claimed: [(subscription: Subscription, lease: FeedLease)]
    ) -> (feeds: [(subscription: Subscription, lease: FeedLease)], repeated: [FeedLease]) {
        lock.withLock {
            var feeds: [(subscription: Subscription, lease: FeedLease)] = []
            var repeated: [FeedLease] = []
            for item in claimed {
                if leases[item.subscription.id] != nil {
                    repeated.append(item.lease)
                } else {
                    leases[item.subscription.id] = item
                    feeds.append(item)
                }
            }
            return (feeds, repeated)
        }
    }

    func claimed(_ id: Int64) -> (subscription: Subscription, lease: FeedLease)? { lock.withLock { leases[id] } }

    /// The first store error a claim met; the run stops claiming after it.
    func fail(_ error: StoreError) { lock.withLock { storeFailure = storeFailure ?? error } }
    var failure: StoreError? { lock.withLock { storeFailure } }
}
