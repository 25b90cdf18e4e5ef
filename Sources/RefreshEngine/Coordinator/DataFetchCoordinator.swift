import Foundation
public import Measures

/// Runs feed fetches as background tasks with a global and a per-host concurrency limit, never fetching one feed
/// twice at once, and publishes its fetch ``DataFetchEvent``s to its ``EventHub``.
///
/// The work done per feed (fetch, parse, merge) is the caller's `operation`; the coordinator owns only *when* it runs
/// and what is said about it.
///
/// ## Why this class is `@unchecked Sendable`
/// All mutable state (`state`, `slotWaiters`) is touched only inside `lock.withLock {}`, and the lock is never held
/// across an `await`. Fetch events are published while the lock is held (``EventHub/publish(_:)`` never suspends nor
/// calls out), which keeps them in the order of the state changes they report (progress never goes backwards).
public final class DataFetchCoordinator: @unchecked Sendable {
    /// The most feeds fetched at the same time.
    public let maxConcurrent: Int
    /// The most feeds of one host fetched at the same time, unless ``multiplexedLimit`` says the host takes more.
    public let maxPerHost: Int
    /// How many feeds of a host may be fetched at once over one multiplexed (HTTP/2) connection, or nil when the host
    /// is not known to multiplex: asked each time a feed of the host could start, so a host's limit rises once its
    /// first answer came over HTTP/2 (and falls back if a later one does not).
    private let multiplexedLimit: (@Sendable (_ host: String) -> Int?)?

    /// Where the fetch events go (shared with whatever else the command publishes).
    public let events: EventHub
    private let clock: AppClock

    private let lock = NSLock()
    private var state = State()
    /// Batches waiting for a slot that other batches hold: woken whenever any fetch finishes.
    private var slotWaiters: [UUID: AsyncStream<Void>.Continuation] = [:]

    /// - Parameters:
    ///   - maxConcurrent: The global limit (`--jobs`).
    ///   - maxPerHost: The per-host limit (`--per-host`).
    ///   - events: Where the fetch events are published.
    ///   - clock: The clock a claiming run waits on between claims that found nothing free.
    ///   - multiplexedLimit: For a host, the requests its connection carries at once when it multiplexes them
    ///     (HTTP/2's stream limit), nil otherwise; a multiplexing host's limit is the larger of this and `maxPerHost`,
    ///     and the global limit still holds. Called under the coordinator's lock: it must return at once.
    public init(
        maxConcurrent: Int = 5, maxPerHost: Int = 2, events: EventHub = EventHub(), clock: AppClock = .system,
        multiplexedLimit: (@Sendable (_ host: String) -> Int?)? = nil
    ) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.maxPerHost = max(1, maxPerHost)
        self.events = events
        self.clock = clock
        self.multiplexedLimit = multiplexedLimit
    }

    /// Publishes a fetch event while the caller holds `lock`, in the order of the state changes.
    private func publishLocked(_ event: DataFetchEvent) {
        events.publish(event)
    }

    // MARK: - State

    /// The ids being fetched now (by any batch).
    public var activeFeedIDs: Set<Int64> { lock.withLock { state.active } }

    /// The coordinator's shared state. Mutating methods return what the caller must do next, so decisions are made
    /// under the lock and carried out outside it.
    struct State {
        var active: Set<Int64> = []
        var runningPerHost: [String: Int] = [:]
        var running: [Int64: FeedTarget] = [:]
        /// Running feeds that gave their host's slot back early (``FetchSlot/releaseHost()``).
        var hostReleased: Set<Int64> = []
        /// Running feeds that were the last of their host's waiting feeds when claimed.
        var lastOfHost: Set<Int64> = []
        /// Running feeds claimed as the busiest host's (step 1 of ``claimNext(from:globalLimit:perHost:holdingBack:)``),
        /// whose answers a refresh processes without waiting behind others'.
        var busiestHost: Set<Int64> = []

        /// Claims the pending feed to start next, or nil when none can start now. In order:
        /// 1. a feed of the host with the most work left (feeds waiting and running), when it has room: the busiest
        ///    host's queue is a run's critical path, so it starts first and never waits behind hosts with less to do;
        /// 2. the first feed of a host this batch has not asked yet: how long a server takes to answer is
        ///    known only once it has, a slow server holds up the run from the moment it is asked, and a request
        ///    waiting for its answer costs only a connection; so every host is asked once before any but the busiest
        ///    is asked again;
        /// 3. a feed of the host with the most work left among those with room.
        /// Within a host, feeds start in the pending order. A host whose connection carries more at once
        /// (`multiplexed(host)`, HTTP/2's stream limit) may run past `perHost` up to that, in step 3 only: every host
        /// is asked once before, and a run that holds back never does (its answers would only wait for the CPU, and
        /// hold memory while they wait).
        ///
        /// With `holdingBack` (the refresh admits no new fetch now: answers already wait for the CPU), only steps 1
        /// and 2 apply: the critical path keeps moving, and every host is still asked once. A host's first answer
        /// comes only after its server's own delay (up to the run's slowest), so asking it later would add the wait
        /// to the run's end; its second feed waits with the rest.
        mutating func claimNext(
            from pending: inout PendingFeeds, globalLimit: Int, perHost: Int, holdingBack: Bool = false,
            multiplexed: (String) -> Int? = { _ in nil }
        ) -> FeedTarget? {
            guard running.count < globalLimit, !pending.isEmpty else { return nil }
            // One pass over the hosts with feeds waiting. Ties go to the host whose oldest waiting feed came first.
            var most = runningPerHost.values.max() ?? 0
            var busiest: (host: String, left: Int, order: Int)?
            var firstUnasked: (host: String, left: Int, order: Int)?
            // The busiest host with room only under its multiplexed limit (past `perHost`): it comes after every
            // host was asked once, and not while the run holds back.
            var busiestMultiplexed: (host: String, left: Int, order: Int)?
            for (host, queue) in pending.hosts where queue.waiting > 0 {
                let runningNow = runningPerHost[host, default: 0]
                let left = queue.waiting + runningNow
                most = max(most, left)
                let order = queue.firstOrder
                guard runningNow < perHost else {
                    if runningNow < multiplexed(host) ?? 0,
                        busiestMultiplexed.map({ left > $0.left || (left == $0.left && order < $0.order) }) ?? true
                    {
                        busiestMultiplexed = (host, left, order)
                    }
                    continue
                }
                if busiest.map({ left > $0.left || (left == $0.left && order < $0.order) }) ?? true {
                    busiest = (host, left, order)
                }
                if !queue.asked, firstUnasked.map({ $0.order > order }) ?? true { firstUnasked = (host, left, order) }
            }
            let chosen: (host: String, left: Int, order: Int)?
            var isBusiest = false
            if let busiest, busiest.left == most {
                chosen = busiest
                isBusiest = true
            } else if holdingBack {
                chosen = firstUnasked
            } else if let firstUnasked {
                chosen = firstUnasked
            } else if let busiestMultiplexed, busiestMultiplexed.left >= busiest?.left ?? 0 {
                chosen = busiestMultiplexed
                isBusiest = busiestMultiplexed.left == most
            } else {
                chosen = busiest
            }
            guard let chosen else { return nil }
            let feed = pending.removeFirst(of: chosen.host)
            let runningNow = runningPerHost[chosen.host, default: 0]
            if chosen.left - runningNow == 1 { lastOfHost.insert(feed.id) }
            if isBusiest { busiestHost.insert(feed.id) }
            running[feed.id] = feed
            runningPerHost[chosen.host, default: 0] += 1
            return feed
        }

        /// Releases what ``claimNext(from:globalLimit:perHost:)`` claimed for feed `id`: its slot under the host it
        /// was claimed for, whatever URL the feed has by the time it finishes (a feed may move to another host
        /// during its fetch).
        mutating func release(id: Int64) {
            active.remove(id)
            guard let claimed = running.removeValue(forKey: id) else { return }
            lastOfHost.remove(id)
            busiestHost.remove(id)
            if hostReleased.remove(id) == nil { releaseHostSlot(of: claimed) }
        }

        /// Gives back the host slot of running feed `id` while it keeps its place among the running (once).
        mutating func releaseHost(id: Int64) {
            guard let claimed = running[id], hostReleased.insert(id).inserted else { return }
            releaseHostSlot(of: claimed)
        }

        private mutating func releaseHostSlot(of claimed: FeedTarget) {
            runningPerHost[claimed.host, default: 1] -= 1
            if runningPerHost[claimed.host] == 0 { runningPerHost[claimed.host] = nil }
        }
    }

    // MARK: - Running a batch

    /// Runs `operation` once for each feed, at most ``maxConcurrent`` at once and ``maxPerHost`` per host, in the order
    /// given as far as the limits allow. Publishes `batchStarted`, `fetchStarted`, `fetchCompleted`/`fetchFailed`/
    /// `fetchCancelled` and `batchProgress` (not `batchCompleted`: the caller publishes that with its summary).
    ///
    /// A feed already being fetched (by another batch) is refused and reported cancelled. When the calling task is
    /// cancelled, no new fetch starts; fetches in flight run to their end (fetch, parse, merge), and feeds never
    /// started are reported cancelled.
    ///
    /// - Returns: One outcome per feed, in completion order.
    /// - Parameter published: Called with each outcome right after it is published (so what it starts is told
    ///   after the feed's own events).
    public func run(
        _ feeds: [FeedTarget],
        operation: @escaping @Sendable (FeedTarget) async -> RefreshOutcome,
        published: (@Sendable (RefreshOutcome) -> Void)? = nil
    ) async -> [RefreshOutcome] {
        await run(
            initial: feeds, claim: nil, admitting: nil, operation: { feed, _ in await operation(feed) },
            published: published)
    }

    /// Runs `operation` once for each feed as ``run(_:operation:published:)`` does, with two more controls for a
    /// refresh whose feeds are parsed and stored after they arrive:
    ///
    /// - `admitting` is asked before each fetch starts; while it says no, only the busiest host's feeds and the
    ///   first feed of each host not yet asked start (the run's critical path keeps moving, and no server's own
    ///   delay is added to the run's end; no feed holds its host's slot while it waits to be admitted).
    /// - `operation` is given the feed's ``FetchSlot``: once the host has answered, ``FetchSlot/releaseHost()`` lets
    ///   the host's next feed start while this one is parsed and stored. The busiest host's queue is the run's
    ///   critical path, so its slots must turn over at the pace of its answers, not of the database.
    public func run(
        _ feeds: [FeedTarget],
        admitting: (@Sendable () -> Bool)?,
        operation: @escaping @Sendable (FeedTarget, FetchSlot) async -> RefreshOutcome,
        published: (@Sendable (RefreshOutcome) -> Void)? = nil
    ) async -> [RefreshOutcome] {
        await run(initial: feeds, claim: nil, admitting: admitting, operation: operation, published: published)
    }

    /// Runs feeds that `claim` hands out as fetch slots free up: the way a worker of a fleet takes work from a shared
    /// store, claiming only as many feeds as it can start now. `claim` is called with the number of free slots and
    /// answers with feeds, with ``FeedSupply/waiting`` (more work may be claimable soon: asked again when a fetch
    /// finishes, or after `retryDelay`), or with ``FeedSupply/exhausted``. The batch ends when the supply is
    /// exhausted and nothing runs; its `total` counts the feeds claimed so far.
    ///
    /// Stopping works as for ``run(_:operation:)``: no new claim, fetches in flight finish, and claimed feeds never
    /// started are reported cancelled.
    public func run(
        claimingWith claim: @escaping @Sendable (_ freeSlots: Int) async -> FeedSupply,
        retryDelay: Duration = .milliseconds(250),
        admitting: (@Sendable () -> Bool)? = nil,
        operation: @escaping @Sendable (FeedTarget, FetchSlot) async -> RefreshOutcome,
        published: (@Sendable (RefreshOutcome) -> Void)? = nil
    ) async -> [RefreshOutcome] {
        await run(
            initial: [], claim: (claim, retryDelay), admitting: admitting, operation: operation, published: published)
    }

    /// Runs feeds that `claim` hands out, as ``run(claimingWith:retryDelay:admitting:operation:published:)`` does,
    /// for an operation that needs no ``FetchSlot``.
    public func run(
        claimingWith claim: @escaping @Sendable (_ freeSlots: Int) async -> FeedSupply,
        retryDelay: Duration = .milliseconds(250),
        operation: @escaping @Sendable (FeedTarget) async -> RefreshOutcome,
        published: (@Sendable (RefreshOutcome) -> Void)? = nil
    ) async -> [RefreshOutcome] {
        await run(
            initial: [], claim: (claim, retryDelay), admitting: nil, operation: { feed, _ in await operation(feed) },
            published: published)
    }

    /// Gives back the host slot of running feed `id` (see ``FetchSlot/releaseHost()``).
    fileprivate func releaseHost(of id: Int64) {
        lock.withLock { state.releaseHost(id: id) }
    }

    private func run(
        initial feeds: [FeedTarget],
        claim: (supply: @Sendable (Int) async -> FeedSupply, retryDelay: Duration)?,
        admitting: (@Sendable () -> Bool)?,
        operation: @escaping @Sendable (FeedTarget, FetchSlot) async -> RefreshOutcome,
        published: (@Sendable (RefreshOutcome) -> Void)?
    ) async -> [RefreshOutcome] {
        var progress = BatchProgress(total: 0)
        var outcomes: [RefreshOutcome] = []
        var pending = PendingFeeds()
        /// Takes feeds into the batch: a feed active elsewhere is refused (reported cancelled), the others wait for a
        /// slot.
        func accept(_ feeds: [FeedTarget], startingBatch: Bool) {
            let refused: [FeedTarget] = lock.withLock {
                var refused: [FeedTarget] = []
                var seen: Set<Int64> = []
                for feed in feeds where seen.insert(feed.id).inserted && !pending.contains(id: feed.id) {
                    if state.active.contains(feed.id) {
                        refused.append(feed)
                    } else {
                        state.active.insert(feed.id)
                        pending.append(feed)
                    }
                    progress.total += 1
                }
                if startingBatch { publishLocked(.batchStarted(total: progress.total)) }
                return refused
            }
            for feed in refused {
                outcomes.append(RefreshOutcome(feed: feed, result: .cancelled))
                progress.finished += 1
                events.publish(.fetchCancelled(feed))
            }
        }
        accept(feeds, startingBatch: claim == nil)
        var exhausted = claim == nil
        var waiting = false

        // Another batch may hold every slot this one could use; it then waits to be woken when a fetch finishes.
        let (slotFreed, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let waiterID = UUID()
        lock.withLock { slotWaiters[waiterID] = wake }
        defer {
            lock.withLock { _ = slotWaiters.removeValue(forKey: waiterID) }
            wake.finish()
        }
        // A feed that gives its host slot back early wakes the batch, so the host's next feed starts at once.
        let (hostFreed, signalHostFreed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        defer { signalHostFreed.finish() }
        await withTaskGroup(of: Step.self) { group in
            var inFlight = 0
            func listenForFreedHosts() {
                group.addTask {
                    var freed = hostFreed.makeAsyncIterator()
                    return await freed.next() == nil ? .stopped : .hostFreed
                }
            }
            listenForFreedHosts()
            defer { group.cancelAll() }
            var slotFreedEvents = slotFreed.makeAsyncIterator()
            func startWhatFits() {
                while !Task.isCancelled {
                    let admitted = admitting?() ?? true
                    let next: FetchSlot? = lock.withLock {
                        guard
                            let feed = state.claimNext(
                                from: &pending, globalLimit: maxConcurrent, perHost: maxPerHost, holdingBack: !admitted,
                                multiplexed: { multiplexedLimit?($0) })
                        else { return nil }
                        progress.running = Array(state.running.values).sorted { $0.id < $1.id }
                        publishLocked(.fetchStarted(feed))
                        publishLocked(.batchProgress(progress))
                        // A batch of known feeds knows when a host has nothing more waiting; a batch that claims
                        // from a shared store may be handed more of the host's feeds later.
                        return FetchSlot(
                            feed: feed, coordinator: self,
                            isBusiestHost: state.busiestHost.contains(feed.id),
                            isLastOfHost: claim == nil && state.lastOfHost.contains(feed.id), wake: signalHostFreed)
                    }
                    guard let slot = next else { return }
                    let feed = slot.feed
                    inFlight += 1
                    group.addTask {
                        if Task.isCancelled { return .finished(RefreshOutcome(feed: feed, result: .cancelled)) }
                        // A fetch that has started runs to its end even when the run is stopped (an unstructured
                        // task does not inherit the cancellation): its merge commits and nothing is left half-done.
                        // Stopping only keeps new fetches from starting.
                        return .finished(await Task { await operation(feed, slot) }.value)
                    }
                }
            }
            /// Asks the supply for as many feeds as there are free slots, when it may have some.
            func claimMore() async {
                guard let claim, !exhausted, !Task.isCancelled, pending.isEmpty else { return }
                let free = lock.withLock { maxConcurrent - state.running.count }
                guard free > 0 else { return }
                switch await claim.supply(free) {
                case .feeds(let feeds):
                    waiting = false
                    accept(feeds, startingBatch: false)
                    if feeds.isEmpty { exhausted = true }
                case .waiting:
                    waiting = true
                case .exhausted:
                    waiting = false
                    exhausted = true
                }
            }

            if claim != nil {
                await claimMore()
                lock.withLock { publishLocked(.batchStarted(total: progress.total)) }
            }
            startWhatFits()
            while true {
                if pending.isEmpty && inFlight == 0 {
                    if exhausted || Task.isCancelled { break }
                    if waiting, let claim {
                        // Work exists that others hold (a host at its fleet-wide limit): ask again shortly.
                        do { try await clock.sleep(for: claim.retryDelay) } catch { break }
                        await claimMore()
                        startWhatFits()
                        continue
                    }
                    if claim != nil {
                        await claimMore()
                        startWhatFits()
                        if pending.isEmpty && inFlight == 0 && !waiting { break }
                        continue
                    }
                }
                if inFlight == 0 {
                    // Nothing of ours runs and nothing fits: other batches hold the slots. Wait for one to free
                    // (the wait ends at once when this task is cancelled, and the feeds left are then cancelled).
                    guard !Task.isCancelled, await slotFreedEvents.next() != nil else { break }
                    startWhatFits()
                    continue
                }
                let step = await group.next()
                guard case .finished(let outcome) = step else {
                    if step == nil { break }
                    if step == .hostFreed {
                        listenForFreedHosts()
                        startWhatFits()
                    }
                    // .stopped: the run was cancelled; the fetches in flight still finish.
                    continue
                }
                inFlight -= 1
                outcomes.append(outcome)
                lock.withLock {
                    state.release(id: outcome.feed.id)
                    for waiter in slotWaiters.values { waiter.yield() }
                    progress.finished += 1
                    progress.newEpisodes += outcome.newEpisodeCount
                    if outcome.isFailure { progress.failures += 1 }
                    progress.running = Array(state.running.values).sorted { $0.id < $1.id }
                    switch outcome.result {
                    case .failed: publishLocked(.fetchFailed(outcome))
                    case .cancelled: publishLocked(.fetchCancelled(outcome.feed))
                    default: publishLocked(.fetchCompleted(outcome))
                    }
                    publishLocked(.batchProgress(progress))
                }
                published?(outcome)
                await claimMore()
                startWhatFits()
            }
        }

        // Feeds never started. Only a stopped run may leave feeds unchecked, and then they are cancelled; any other
        // feed left over is a failure, never a silent skip.
        if !pending.isEmpty {
            let stopped = Task.isCancelled
            lock.withLock {
                for feed in pending.removeAll() {
                    state.active.remove(feed.id)
                    let outcome = RefreshOutcome(feed: feed, result: stopped ? .cancelled : .failed(Self.notStarted))
                    outcomes.append(outcome)
                    progress.finished += 1
                    if stopped {
                        publishLocked(.fetchCancelled(feed))
                    } else {
                        progress.failures += 1
                        publishLocked(.fetchFailed(outcome))
                    }
                }
                publishLocked(.batchProgress(progress))
            }
        }
        return outcomes
    }

    /// What a batch's task group hears: a feed finished, a host slot was given back early, or the batch's signal
    /// ended.
    private enum Step: Sendable, Equatable {
        case finished(RefreshOutcome)
        case hostFreed
        case stopped
    }

    /// The failure of a feed the batch ended without starting although nobody stopped it.
    static let notStarted = RefreshFailure(.notChecked(.noFetchSlot))
}

/// A running fetch's hold on its host's slot under ``DataFetchCoordinator``'s per-host limit.
public struct FetchSlot: Sendable {
    let feed: FeedTarget
    let coordinator: DataFetchCoordinator
    /// True when the feed was started as the busiest host's (the host with the most work left had room): its queue is
    /// the run's critical path, so a refresh lets its answers be processed without waiting behind others'.
    public let isBusiestHost: Bool
    /// True when no other feed of this feed's host waits in the batch: once this fetch is over, nothing in the run
    /// will ask the host again, so its connection need not be kept open.
    public let isLastOfHost: Bool
    let wake: AsyncStream<Void>.Continuation

    /// Gives the host's slot back while the feed keeps its place among the running: call it once the host has
    /// answered (the body has arrived, or the fetch failed), before the parse and the merge. Calling it again, or
    /// after the feed has finished, does nothing.
    public func releaseHost() {
        coordinator.releaseHost(of: feed.id)
        wake.yield()
    }
}

/// What a worker's claim on a shared store handed to ``DataFetchCoordinator/run(claimingWith:retryDelay:operation:)``.
public enum FeedSupply: Sendable {
    /// Feeds now leased to this worker (none: nothing left to claim).
    case feeds([FeedTarget])
    /// Nothing claimable now, but work remains that may become claimable soon (a host at its fleet-wide limit).
    case waiting
    /// Nothing left to claim.
    case exhausted
}
