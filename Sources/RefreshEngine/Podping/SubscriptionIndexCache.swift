import FeedModels
public import Foundation
import Synchronization

/// The podping reader's index of subscription addresses, kept between blocks: building it reads every subscription
/// and normalises every URL, which a block with notices (one every few seconds) need not pay for. It is built again
/// when the subscriptions' ``SubscriptionsMark`` (one cheap query per block with notices) says one was added,
/// removed, moved or gone, and at the latest `maxAge` after it was built, for a change the mark cannot see (a move to
/// an address of the same length).
public final class SubscriptionIndexCache: Sendable {
    /// How long an index is kept while the mark stays the same.
    public static let defaultMaxAge: TimeInterval = 60

    private struct Built {
        var index: SubscriptionIndex
        var mark: SubscriptionsMark
        var at: Date
    }

    private struct State {
        var built: Built?
        var builds = 0
    }

    private let state = Mutex(State())
    let maxAge: TimeInterval

    init(maxAge: TimeInterval) { self.maxAge = maxAge }

    /// How many times the index was built.
    var builds: Int { state.withLock { $0.builds } }

    /// The index, built again when the subscriptions changed or it is older than ``maxAge``.
    func current(
        subscriptions: any SubscriptionRepository, store: any PodpingRepository, now: Date
    ) async throws -> SubscriptionIndex {
        let mark = try await store.subscriptionsMark()
        if let built = state.withLock({ $0.built }), built.mark == mark, now.timeIntervalSince(built.at) < maxAge,
            now >= built.at
        {
            return built.index
        }
        let index = SubscriptionIndex(subscriptions: try await subscriptions.subscriptions())
        state.withLock {
            $0.built = Built(index: index, mark: mark, at: now)
            $0.builds += 1
        }
        return index
    }
}
