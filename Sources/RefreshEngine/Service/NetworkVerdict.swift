import FeedModels
import Foundation

/// Whether the network itself was down during a run, so that no feed is blamed for it.
///
/// A feed whose host could not be reached is not recorded as failing at once: its check is held here (the one place
/// that holds them; output waits for ``DataFetchEvent/networkOffline(fetches:)`` or
/// ``DataFetchEvent/failuresConfirmed(_:)``). When the run ends, ``decide(_:)`` says what they were: every network
/// fetch of the run failed that way, so the network was offline and nothing is recorded; or some host answered, so
/// the held failures are the feeds' own and are recorded then.
///
/// ## Why this class is `@unchecked Sendable`
/// `held` is read and written only inside `lock.withLock {}`.
final class NetworkVerdict: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [FeedCheck] = []

    /// What the run's end makes of the held failures.
    struct Decision: Sendable {
        /// Every network fetch failed to reach its host: the network was down.
        var networkOffline: Bool
        /// The fetches over the network (http and https; files are not).
        var networkFetches: Int
        /// The checks held back: recorded when the network was up, dropped when it was not.
        var unreachable: [FeedCheck]
        /// The outcomes as they stand: an unreachable feed of an offline run has no next check of its own (the whole
        /// run is tried again) and says why.
        var outcomes: [RefreshOutcome]
    }

    /// Holds a feed's failure to reach its host until the run's end.
    func hold(_ check: FeedCheck) { lock.withLock { held.append(check) } }

    /// The verdict on a run that ended with `outcomes`.
    func decide(_ outcomes: [RefreshOutcome]) -> Decision {
        Self.decide(outcomes, unreachable: lock.withLock { held })
    }

    /// The verdict when `unreachable` were held back from a run that ended with `outcomes`.
    static func decide(_ outcomes: [RefreshOutcome], unreachable: [FeedCheck]) -> Decision {
        let networkFetches = outcomes.filter { $0.feed.url.isHTTP }.count
        let networkOffline = networkFetches > 0 && unreachable.count == networkFetches
        guard networkOffline else {
            return Decision(
                networkOffline: false, networkFetches: networkFetches, unreachable: unreachable, outcomes: outcomes)
        }
        let offlineIDs = Set(unreachable.map(\.subscriptionID))
        let adjusted = outcomes.map { outcome in
            var outcome = outcome
            if outcome.isFailure, offlineIDs.contains(outcome.feed.id) {
                outcome.nextCheckAt = nil
                outcome.nextCheckReason = .networkOffline
            }
            return outcome
        }
        return Decision(
            networkOffline: true, networkFetches: networkFetches, unreachable: unreachable, outcomes: adjusted)
    }

    /// Carries out `decision`: says the network was offline and gives the held feeds' leases back (other workers may
    /// take them at once), or records the held failures and confirms them.
    static func settle(
        _ decision: Decision, episodes: any EpisodeRepository, claims: (any FeedClaiming)?,
        publish: @Sendable (DataFetchEvent) -> Void
    ) async {
        if decision.networkOffline {
            publish(.networkOffline(fetches: decision.networkFetches))
            if let claims {
                try? await claims.releaseLeases(decision.unreachable.compactMap(\.lease))
            }
        } else if !decision.unreachable.isEmpty {
            for check in decision.unreachable {
                // The feed's own outcome already says it failed; a store error here must not stop the others.
                _ = try? await episodes.apply(check)
            }
            publish(.failuresConfirmed(decision.outcomes.filter { $0.failure?.awaitsNetworkVerdict == true }))
        }
    }
}
