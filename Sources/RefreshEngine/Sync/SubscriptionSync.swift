public import FeedModels
public import Foundation
public import GPodderSync
public import Measures
import Synchronization

/// How podfresh syncs (`sync setup`, `--sync-interval`).
public struct SyncSettings: Sendable {
    /// The server client, with the set-up and its password.
    public var client: SyncServerClient
    /// How often `watch` syncs.
    public var interval: Duration
    /// How long this worker's hold on syncing lasts without renewal (on a shared store).
    public var lease: TimeInterval
    /// This worker's name, for the lease.
    public var worker: String
    /// Why the set-up cannot be used (its password is missing): each sync fails with it, saying what to do.
    public var unusable: SyncFailure?

    /// How often `watch` syncs unless told otherwise: a `since` request that finds nothing costs podfresh and the
    /// server a few milliseconds of CPU (docs/benchmarks.md, "A sync that comes sooner"), so 120 an hour cost next to
    /// nothing, and a show subscribed on the phone is on the disk within about half a minute plus its download.
    public static let defaultInterval = Duration.seconds(30)

    public init(
        client: SyncServerClient, interval: Duration = SyncSettings.defaultInterval, lease: TimeInterval = 120,
        worker: String,
        unusable: SyncFailure? = nil
    ) {
        self.client = client
        self.interval = interval
        self.lease = lease
        self.worker = worker
        self.unusable = unusable
    }
}

/// One sync of the subscriptions with a gPodder-API server: the rules of issue #35, over the store's
/// ``SyncRepository`` and ``SubscriptionRepository``.
///
/// - The first sync (no cursor) pulls every subscription the server holds, subscribes here to those missing, and
///   pushes those only here: the union of both lists; nothing is removed on either side.
/// - Every later sync pushes first, then pulls. What is pushed is the local list's difference from the list the
///   server is known to hold ("known", in the store): feeds added here (`add`, `import`), removed here (`remove`),
///   and moves podfresh made (a 301/308 or `itunes:new-feed-url` changed the subscription's URL: the old one is
///   removed, the new one added). So a change made while the server was down is pushed by the next sync, and a push
///   the server took is recorded with its answer, so it is not pushed again. The pull then applies the server's
///   changes since the cursor: a removal there unsubscribes here (the store never touches downloaded files), an
///   addition subscribes here, due at once so the same run fetches it; the cursor moves only after they were applied.
/// - The server's `update_urls` rewrites are adopted: the subscription moves to the server's spelling.
/// - Then the episode actions (``syncEpisodeActions(_:since:into:)``): the server's are pulled and applied, and the
///   outbox (downloads completed here) is pushed.
/// - URLs are compared as the store compares them (``FeedURL``). Only http(s) subscriptions are synced.
///
/// A step that fails ends the sync there: what was done before it stays recorded, nothing after it is done, and the
/// failure is an event (the refresh goes on with the local list). Only the store's own failures are thrown.
public struct SubscriptionSync: Sendable {
    let settings: SyncSettings
    let store: any SyncRepository
    let subscriptions: any SubscriptionRepository
    private let clock: AppClock
    let now: @Sendable () -> Date
    let publish: @Sendable (SyncEvent) -> Void
    /// Files `--delete-played` removed while syncing are download events.
    let publishDownload: @Sendable (DownloadEvent) -> Void
    private let last = LastOutcome()

    /// The outcome of the last sync this value ran, if it ran one.
    public var lastOutcome: SyncOutcome? { last.value.withLock { $0 } }

    public init(
        settings: SyncSettings, store: any SyncRepository, subscriptions: any SubscriptionRepository,
        clock: AppClock = .system, publish: @escaping @Sendable (SyncEvent) -> Void,
        publishDownload: @escaping @Sendable (DownloadEvent) -> Void
    ) {
        self.settings = settings
        self.store = store
        self.subscriptions = subscriptions
        self.clock = clock
        self.now = { clock.date }
        self.publish = publish
        self.publishDownload = publishDownload
    }

    var client: SyncServerClient { settings.client }

    /// The server as messages name it (no user information).
    public var serverName: String { settings.client.serverName }

    /// Runs one sync under the fleet's lease and records its outcome.
    /// - Returns: The outcome (a failure inside it when the server failed), or nil when sync is not set up or another
    ///   worker holds the lease.
    /// - Throws: ``StoreError`` when the store fails.
    @discardableResult
    public func syncOnce() async throws -> SyncOutcome? {
        switch try await store.claimSync(worker: settings.worker, lease: settings.lease, at: now()) {
        case .heldBy(let worker, let until):
            publish(.leaseHeldElsewhere(worker: worker, until: until))
            return nil
        case .granted:
            break
        }
        do {
            let outcome = try await syncHoldingLease()
            await release()
            return outcome
        } catch {
            await release()
            throw error
        }
    }

    private func release() async {
        let store = self.store
        let worker = settings.worker
        await Task { try? await store.releaseSync(worker: worker) }.value
    }

    private func syncHoldingLease() async throws -> SyncOutcome? {
        guard let state = try await store.syncState() else { return nil }
        publish(.started(server: client.serverName, first: state.subscriptionsCursor == nil))
        var outcome = SyncOutcome()
        defer { last.value.withLock { $0 = outcome } }
        if let unusable = settings.unusable {
            outcome.failure = unusable
            publish(.failed(unusable))
            try await store.recordSyncOutcome(outcome, at: now())
            return outcome
        }
        do {
            if let cursor = state.subscriptionsCursor {
                try await pushLocalChanges(into: &outcome)
                try await pull(since: cursor, into: &outcome)
            } else {
                try await firstSync(into: &outcome)
            }
            if let actions = store as? any EpisodeActionRepository {
                try await syncEpisodeActions(actions, since: state.actionsCursor, into: &outcome)
            }
        } catch let failure as SyncFailure {
            outcome.failure = failure
            publish(.failed(failure))
        }
        try await store.recordSyncOutcome(outcome, at: now())
        return outcome
    }

    // MARK: - Steps

    /// The local http(s) subscriptions by normalised URL.
    private func localFeeds() async throws -> [String: Subscription] {
        var feeds: [String: Subscription] = [:]
        for subscription in try await subscriptions.subscriptions() {
            guard let scheme = subscription.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                continue
            }
            feeds[FeedURL.normalizedString(subscription.url.absoluteString)] = subscription
        }
        return feeds
    }

    private func firstSync(into outcome: inout SyncOutcome) async throws {
        let changes = try await client.pullSubscriptions(since: 0)
        var local = try await localFeeds()
        let server = Self.normalisedUnique(changes.add)
        var added: [URL] = []
        for (key, url) in server where local[key] == nil {
            if let subscription = try await subscribe(url) {
                local[key] = subscription
                added.append(subscription.url)
            }
        }
        try await store.recordSyncPull(added: Array(server.keys), removed: [], cursor: changes.timestamp)
        outcome.pulledAdded = added.count
        publish(.pulled(SyncPulled(added: added, removed: [], cursor: changes.timestamp)))
        // What only this side has is pushed by the same rule as any later change.
        try await pushLocalChanges(into: &outcome)
    }

    private func pushLocalChanges(into outcome: inout SyncOutcome) async throws {
        let local = try await localFeeds()
        let known = try await store.knownSyncedFeeds()
        let adds = local.keys.filter { !known.contains($0) }.sorted()
        let removes = known.filter { local[$0] == nil }.sorted()
        guard !adds.isEmpty || !removes.isEmpty else { return }
        let answer = try await client.pushSubscriptions(
            add: adds.map { local[$0]?.url.absoluteString ?? $0 }, remove: removes)
        var knownAdds = Set(adds)
        var rewritten = 0
        for (sent, kept) in answer.updateURLs {
            let sentKey = FeedURL.normalizedString(sent)
            let keptKey = FeedURL.normalizedString(kept)
            // An empty rewrite: the server refused the URL; it stays known, so it is not pushed again and again.
            guard !kept.isEmpty, keptKey != sentKey, let url = URL(string: kept),
                let subscription = local[sentKey]
            else { continue }
            do {
                _ = try await subscriptions.moveSubscription(id: subscription.id, to: url)
                knownAdds.remove(sentKey)
                knownAdds.insert(keptKey)
                rewritten += 1
            } catch let error as StoreError where error.kind == .duplicate {
                // Already subscribed under the server's spelling: this copy goes.
                try await subscriptions.removeSubscription(id: subscription.id)
                knownAdds.remove(sentKey)
                knownAdds.insert(keptKey)
                rewritten += 1
            }
        }
        try await store.recordSyncPush(added: Array(knownAdds), removed: removes)
        outcome.pushedAdded += adds.count
        outcome.pushedRemoved += removes.count
        outcome.rewritten += rewritten
        publish(.pushed(SyncPushed(added: adds.count, removed: removes.count, rewritten: rewritten)))
    }

    private func pull(since cursor: Int64, into outcome: inout SyncOutcome) async throws {
        let changes = try await client.pullSubscriptions(since: Self.overlapping(cursor))
        var local = try await localFeeds()
        let adds = Self.normalisedUnique(changes.add)
        let removes = Self.normalisedUnique(changes.remove).filter { adds[$0.key] == nil }
        var added: [URL] = []
        var removed: [URL] = []
        for (key, _) in removes {
            guard let subscription = local[key] else { continue }
            if try await subscriptions.removeSubscription(id: subscription.id) {
                removed.append(subscription.url)
            }
            local[key] = nil
        }
        for (key, url) in adds where local[key] == nil {
            if let subscription = try await subscribe(url) {
                local[key] = subscription
                added.append(subscription.url)
            }
        }
        try await store.recordSyncPull(added: Array(adds.keys), removed: Array(removes.keys), cursor: changes.timestamp)
        outcome.pulledAdded += added.count
        outcome.pulledRemoved += removed.count
        publish(.pulled(SyncPulled(added: added, removed: removed, cursor: changes.timestamp)))
    }

    /// Subscribes to `url` here, due at once; nil when it is already subscribed (a race with `add`).
    private func subscribe(_ url: URL) async throws -> Subscription? {
        do {
            return try await subscriptions.addSubscription(url: url, title: nil, at: now(), backlog: nil)
        } catch let error as StoreError where error.kind == .duplicate {
            return nil
        }
    }

    /// The `since` a pull sends: a second before the stored cursor. The API's cursors are whole seconds and a
    /// server answers the changes *after* `since`, so a change the phone made in the same second as the last pull,
    /// after it, would never be returned; asking from the second before returns it. What that second returns again
    /// is the server's current state of feeds this side already applied (an add of a feed subscribed here, a removal
    /// of one gone), which changes nothing.
    static func overlapping(_ cursor: Int64) -> Int64 { max(cursor - 1, 0) }

    /// The server's http(s) URLs by normalised spelling, each once.
    static func normalisedUnique(_ urls: [String]) -> [String: URL] {
        var result: [String: URL] = [:]
        for text in urls {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host?.isEmpty == false
            else { continue }
            result[FeedURL.normalizedString(text)] = url
        }
        return result
    }
}

extension SubscriptionSync: DueSource {
    public var reason: ScheduleReason { .syncServer }

    public func readSinceLast() async throws {
        try await syncOnce()
    }

    /// Syncs every ``SyncSettings/interval`` until cancelled (the first sync at once), waking `watch` when the
    /// server added feeds. A failing store is waited out like a failing server: the next interval tries again.
    public func follow(madeDue: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            do {
                if let outcome = try await syncOnce(), outcome.pulledAdded > 0 { madeDue() }
            } catch is CancellationError {
                return
            } catch {
                publish(.storeFailed(StoreError.wrapping(error)))
            }
            do { try await clock.sleep(for: settings.interval) } catch { return }
        }
    }
}

/// The last outcome, shared by the copies of one ``SubscriptionSync`` (a `Mutex` makes it checked `Sendable`).
private final class LastOutcome: Sendable {
    let value = Mutex<SyncOutcome?>(nil)
}
