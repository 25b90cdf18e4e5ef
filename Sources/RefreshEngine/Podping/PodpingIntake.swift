public import FeedModels
public import Foundation
public import Podping

/// Turns blocks read from the chain into "due now": every feed address a believed notice names is matched against
/// the subscriptions (by the same URL normalisation as `add`, and through a feed's recorded move), and the feeds
/// matched are made due in the store (``AsyncPodpingRepository/recordPings(_:at:cooldown:)``). The refresh then
/// runs as usual; this only names feeds.
public struct PodpingIntake: Sendable {
    private let store: any AsyncPodpingRepository
    private let subscriptions: any AsyncSubscriptionRepository
    /// Whose notices are believed.
    public let trust: PodpingTrust
    /// A pinged feed is not fetched again sooner than this after its last check.
    public let cooldown: TimeInterval
    private let now: @Sendable () -> Date
    private let publish: @Sendable (DataFetchEvent) -> Void

    public init(
        store: any AsyncPodpingRepository, subscriptions: any AsyncSubscriptionRepository, trust: PodpingTrust,
        cooldown: TimeInterval = 30, now: @escaping @Sendable () -> Date,
        publish: @escaping @Sendable (DataFetchEvent) -> Void
    ) {
        self.store = store
        self.subscriptions = subscriptions
        self.trust = trust
        self.cooldown = cooldown
        self.now = now
        self.publish = publish
    }

    /// Publishes what `batch` read, records the believed pings of subscribed feeds, and makes those feeds due.
    /// - Returns: The feeds made due, with when.
    @discardableResult
    public func take(_ batch: PodpingBatch) async throws -> [Int64: Date] {
        if batch.startedAtHead { publish(.podping(.startedAtHead(block: batch.cursor))) }
        if batch.skippedBlocks > 0 {
            publish(
                .podping(
                    .skippedAhead(
                        from: batch.cursor - batch.skippedBlocks, to: batch.cursor, blocks: batch.skippedBlocks)))
        }
        guard !batch.blocks.isEmpty else { return [:] }
        var skips = PodpingSkips()
        for block in batch.blocks { skips.add(block.skipped) }
        let notices = batch.blocks.flatMap(\.notices)
        publish(
            .podping(
                .blocksRead(
                    PodpingBlocksRead(
                        count: batch.blocks.count, through: batch.cursor, head: batch.head,
                        lastBlockTime: batch.blocks.last?.time, notices: notices.count, tests: skips.tests,
                        refused: skips.refused))))
        guard !notices.isEmpty else { return [:] }
        let index = SubscriptionIndex(
            subscriptions: try await subscriptions.subscriptions(), states: try await store.podpingStates())
        var pings: [FeedPing] = []
        var matches: [PodpingMatch] = []
        for notice in notices {
            var matched = 0
            var untrusted = 0
            for iri in notice.iris {
                guard let entry = index.entry(for: iri) else { continue }
                matched += 1
                guard
                    trust.believes(
                        signers: notice.senders, feedAccounts: entry.state?.hiveAccounts ?? [],
                        usesPodping: entry.state?.usesPodping)
                else {
                    untrusted += 1
                    continue
                }
                pings.append(
                    FeedPing(
                        subscriptionID: entry.subscription.id, blockNumber: notice.blockNumber,
                        blockTime: notice.blockTime, reason: notice.reason))
                matches.append(
                    PodpingMatch(
                        feed: EpisodeUpdateService.target(for: entry.subscription), block: notice.blockNumber,
                        blockTime: notice.blockTime, reason: notice.reason, iri: iri, dueAt: nil))
            }
            publish(
                .podping(
                    .received(
                        PodpingReceipt(
                            block: notice.blockNumber, blockTime: notice.blockTime, senders: notice.senders,
                            operationID: notice.operationID, reason: notice.reason, medium: notice.medium,
                            iris: notice.iris.count, matched: matched, untrusted: untrusted))))
        }
        guard !pings.isEmpty else { return [:] }
        let due = try await store.recordPings(pings, at: now(), cooldown: cooldown)
        var told: Set<Int64> = []
        for var match in matches where told.insert(match.feed.id).inserted {
            match.dueAt = due[match.feed.id]
            publish(.podping(.matched(match)))
        }
        return due
    }
}

/// The subscriptions by every normalised address they answer to: the current URL and the one before the last move.
struct SubscriptionIndex {
    struct Entry {
        var subscription: Subscription
        var state: PodpingFeedState?
    }

    private var byURL: [String: Entry] = [:]

    init(subscriptions: [Subscription], states: [Int64: PodpingFeedState]) {
        for subscription in subscriptions where !subscription.isGone {
            let entry = Entry(subscription: subscription, state: states[subscription.id])
            if let old = subscription.movedFrom {
                byURL[FeedURL.normalizedString(old.absoluteString)] = entry
            }
        }
        // Current URLs win over an old one another feed moved away from.
        for subscription in subscriptions where !subscription.isGone {
            byURL[FeedURL.normalizedString(subscription.url.absoluteString)] = Entry(
                subscription: subscription, state: states[subscription.id])
        }
    }

    func entry(for iri: String) -> Entry? {
        byURL[FeedURL.normalizedString(iri.trimmingCharacters(in: .whitespacesAndNewlines))]
    }
}
