import FeedModels
import Foundation
import Measures
import Synchronization

// MARK: - A worker of a fleet

extension FeedsToCheck {
    /// Claims feeds from a shared store as fetch slots free up and refreshes each under its lease, until nothing is
    /// left to claim. Leases of feeds claimed but not checked (a stopped run) are given back.
    func runClaiming(
        _ claims: any FeedClaiming, policy: RefreshPolicy, feedIDs: [Int64]?, startedAt: Date,
        on coordinator: DataFetchCoordinator, pacing: Pacing, check: @escaping Check
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
                return .feeds(fresh.feeds.map { FeedTarget(subscription: $0.subscription) })
            },
            admitting: pacing.admitting,
            operation: { target, slot in
                guard let (subscription, lease) = book.claimed(target.id) else {
                    return RefreshOutcome(
                        feed: target, result: .failed(RefreshFailure(.notChecked(.leaseNotFound))))
                }
                return await check(subscription, lease, slot)
            }, published: pacing.published)
        let unused = outcomes.filter { $0.result == .cancelled }.compactMap { book.claimed($0.feed.id)?.lease }
        if !unused.isEmpty { try? await claims.releaseLeases(unused) }
        if let pass, let passStart, unused.isEmpty, book.failure == nil, !Task.isCancelled {
            // Nothing was left to claim: the run is over, and a worker starting now begins the next.
            try? await claims.endCheckPass(pass, startedAt: passStart)
        }
        return (outcomes, book.failure)
    }
}

/// When a worker next says its run over every feed is still going (``FeedClaiming/touchCheckPass(_:startedAt:)``):
/// at most every `every`, on a claim.
///
/// Checked `Sendable`: the time of the last touch sits in a `Mutex`.
final class PassTouches: Sendable {
    private let every: Duration
    private let clock: AppClock
    private let last: Mutex<AppClock.Instant>

    init(every: Duration, clock: AppClock = .system) {
        self.every = every
        self.clock = clock
        last = Mutex(clock.now)
    }

    /// True (and the clock restarted) when a touch is due.
    func due() -> Bool {
        let now = clock.now
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
