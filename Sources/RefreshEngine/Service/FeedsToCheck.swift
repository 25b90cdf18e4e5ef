import FeedModels
import Foundation

/// The feeds a refresh checks, as one supply whatever their source: those the policy and the feeds named select, or,
/// on a store several workers share (one that is ``FeedClaiming``), those this worker claims under leases as fetch
/// slots free up (``FeedsToCheck/runClaiming(_:policy:feedIDs:startedAt:on:check:)``).
struct FeedsToCheck: Sendable {
    let subscriptions: any SubscriptionRepository
    let claims: (any FeedClaiming)?
    let fleet: FleetSettings
    let now: @Sendable () -> Date

    /// One feed checked: its subscription, its lease on a shared store, and its fetch slot.
    typealias Check = @Sendable (Subscription, FeedLease?, FetchSlot) async -> RefreshOutcome

    /// How the coordinator runs the feeds: whether it may start another fetch now, and what happens right after
    /// each outcome is published.
    struct Pacing: Sendable {
        var admitting: (@Sendable () -> Bool)?
        var published: @Sendable (RefreshOutcome) -> Void
    }

    /// The subscriptions a refresh with `policy` would check now. `feedIDs` narrows it to those, checked now whatever
    /// their schedule or state (a gone feed named by the user is checked again, and revives when it answers).
    /// Otherwise gone feeds are checked only by ``RefreshPolicy/force``.
    func list(policy: RefreshPolicy, feedIDs: [Int64]? = nil) async throws -> [Subscription] {
        if let feedIDs {
            var selected: [Subscription] = []
            for id in feedIDs {
                if let subscription = try await subscriptions.subscription(id: id) { selected.append(subscription) }
            }
            return selected
        }
        switch policy {
        case .due: return try await subscriptions.dueSubscriptions(at: now())
        case .force: return try await subscriptions.subscriptions()
        case .all, .offline: return try await subscriptions.subscriptions().filter { !$0.isGone }
        }
    }

    /// Runs `check` on every feed to check, through `coordinator`, spread over hosts.
    ///
    /// - Returns: The outcomes, and on a shared store the store error that stopped claiming (the fetches in flight
    ///   finished first).
    /// - Throws: ``StoreError`` when the subscriptions cannot be read.
    func run(
        policy: RefreshPolicy, feedIDs: [Int64]?, startedAt: Date, on coordinator: DataFetchCoordinator,
        pacing: Pacing, check: @escaping Check
    ) async throws -> (outcomes: [RefreshOutcome], failure: StoreError?) {
        if let claims {
            return await runClaiming(
                claims, policy: policy, feedIDs: feedIDs, startedAt: startedAt, on: coordinator, pacing: pacing,
                check: check)
        }
        let selected = try await list(policy: policy, feedIDs: feedIDs)
        let targets = HostSpreading.order(selected.map(FeedTarget.init(subscription:)), host: \.host)
        let byID = Dictionary(selected.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let outcomes = await coordinator.run(
            targets, admitting: pacing.admitting,
            operation: { target, slot in
                guard let subscription = byID[target.id] else {
                    return RefreshOutcome(
                        feed: target, result: .failed(RefreshFailure(.notChecked(.subscriptionNotFound))))
                }
                return await check(subscription, nil, slot)
            }, published: pacing.published)
        return (outcomes, nil)
    }

    /// Why nothing was due: when the first of the subscriptions is due next; nil without subscriptions.
    func nothingDue() async throws -> RefreshSummary.NothingDue? {
        let all = try await subscriptions.subscriptions()
        guard !all.isEmpty else { return nil }
        let next = all.filter { !$0.isGone }.map { $0.nextCheckAt ?? now() }.min()
        guard let next, next < .distantFuture else { return .never }
        return .nextAt(next)
    }
}

extension FeedTarget {
    /// The feed a subscription is: its id, address and title.
    init(subscription: Subscription) {
        self.init(id: subscription.id, url: subscription.url, title: subscription.title)
    }
}
