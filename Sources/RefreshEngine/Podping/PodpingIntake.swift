public import FeedModels
public import Foundation
public import Podping

/// Turns blocks read from the chain into "due now": every feed address a believed notice names is matched against
/// the subscriptions (by the same URL normalisation as `add`, and through a feed's recorded move), and the feeds
/// matched are made due in the store (``PodpingRepository/recordPings(_:at:cooldown:)``). The refresh then
/// runs as usual; this only names feeds.
public struct PodpingIntake: Sendable {
    private let store: any PodpingRepository
    private let subscriptions: any SubscriptionRepository
    /// Whose notices are believed.
    public let trust: PodpingTrust
    /// A pinged feed is not fetched again sooner than this after its last check.
    public let cooldown: TimeInterval
    private let now: @Sendable () -> Date
    private let publish: @Sendable (PodpingEvent) -> Void
    /// The subscriptions by address, kept between blocks.
    private let index: SubscriptionIndexCache

    /// - Parameter indexMaxAge: How long the index of subscription addresses is kept while the subscriptions'
    ///   ``SubscriptionsMark`` stays the same (a backstop for a change the mark cannot see).
    public init(
        store: any PodpingRepository, subscriptions: any SubscriptionRepository, trust: PodpingTrust,
        cooldown: TimeInterval = 30, indexMaxAge: TimeInterval = SubscriptionIndexCache.defaultMaxAge,
        now: @escaping @Sendable () -> Date, publish: @escaping @Sendable (PodpingEvent) -> Void
    ) {
        self.store = store
        self.subscriptions = subscriptions
        self.trust = trust
        self.cooldown = cooldown
        self.now = now
        self.publish = publish
        index = SubscriptionIndexCache(maxAge: indexMaxAge)
    }

    /// How many times the index of subscription addresses was built (it is kept while the subscriptions stay the
    /// same).
    public var indexBuilds: Int { index.builds }

    /// Publishes what `batch` read, records the believed pings of subscribed feeds, and makes those feeds due.
    /// - Returns: The feeds made due, with when.
    @discardableResult
    public func take(_ batch: PodpingBatch) async throws -> [Int64: Date] {
        if batch.startedAtHead { publish(.startedAtHead(block: batch.cursor)) }
        if batch.skippedBlocks > 0 {
            publish(

                .skippedAhead(
                    from: batch.cursor - batch.skippedBlocks, to: batch.cursor, blocks: batch.skippedBlocks))
        }
        guard !batch.blocks.isEmpty else { return [:] }
        var skips = PodpingSkips()
        for block in batch.blocks { skips.add(block.skipped) }
        let notices = batch.blocks.flatMap(\.notices)
        publish(

            .blocksRead(
                PodpingBlocksRead(
                    count: batch.blocks.count, through: batch.cursor, head: batch.head,
                    lastBlockTime: batch.blocks.last?.time, notices: notices.count, tests: skips.tests,
                    refused: skips.refused)))
        guard !notices.isEmpty else { return [:] }
        let index = try await self.index.current(subscriptions: subscriptions, store: store, now: now())
        var named: Set<Int64> = []
        for notice in notices {
            for iri in notice.iris { if let entry = index.entry(for: iri) { named.insert(entry.id) } }
        }
        // Only the feeds named: what they say of podping decides whether a notice is believed.
        let states = named.isEmpty ? [:] : try await store.podpingStates(subscriptionIDs: named.sorted())
        var pings: [FeedPing] = []
        var matches: [PodpingMatch] = []
        for notice in notices {
            var matched = 0
            var untrusted = 0
            for iri in notice.iris {
                guard let entry = index.entry(for: iri) else { continue }
                matched += 1
                let state = states[entry.id]
                guard
                    trust.believes(
                        signers: notice.senders, feedAccounts: state?.hiveAccounts ?? [],
                        usesPodping: state?.usesPodping)
                else {
                    untrusted += 1
                    continue
                }
                pings.append(
                    FeedPing(
                        subscriptionID: entry.id, blockNumber: notice.blockNumber,
                        blockTime: notice.blockTime, reason: notice.reason))
                matches.append(
                    PodpingMatch(
                        feed: entry.target, block: notice.blockNumber,
                        blockTime: notice.blockTime, reason: notice.reason, iri: iri, dueAt: nil))
            }
            publish(

                .received(
                    PodpingReceipt(
                        block: notice.blockNumber, blockTime: notice.blockTime, senders: notice.senders,
                        operationID: notice.operationID, reason: notice.reason, medium: notice.medium,
                        iris: notice.iris.count, matched: matched, untrusted: untrusted)))
        }
        guard !pings.isEmpty else { return [:] }
        let due = try await store.recordPings(pings, at: now(), cooldown: cooldown)
        var told: Set<Int64> = []
        for var match in matches where told.insert(match.feed.id).inserted {
            match.dueAt = due[match.feed.id]
            publish(.matched(match))
        }
        return due
    }
}

/// The subscriptions by every normalised address they answer to: the current URL and the one before the last move.
struct SubscriptionIndex: Sendable {
    struct Entry: Sendable {
        var id: Int64
        var target: FeedTarget
    }

    private var byURL: [String: Entry] = [:]

    init(subscriptions: [Subscription]) {
        let live = subscriptions.filter { !$0.isGone }
        for subscription in live {
            if let old = subscription.movedFrom {
                byURL[FeedURL.normalizedString(old.absoluteString)] = Entry(
                    id: subscription.id, target: FeedTarget(subscription: subscription))
            }
        }
        // Current URLs win over an old one another feed moved away from.
        for subscription in live {
            byURL[FeedURL.normalizedString(subscription.url.absoluteString)] = Entry(
                id: subscription.id, target: FeedTarget(subscription: subscription))
        }
    }

    func entry(for iri: String) -> Entry? {
        byURL[FeedURL.normalizedString(iri.trimmingCharacters(in: .whitespacesAndNewlines))]
    }
}
