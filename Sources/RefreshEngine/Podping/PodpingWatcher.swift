public import FeedModels
public import Foundation
public import HTTPTransport
public import Measures
public import Podping

/// How podfresh reads podping (`--podping` and its options).
public struct PodpingSettings: Sendable {
    /// Which nodes, batch sizes, time-outs and limits.
    public var reader: PodpingReaderConfiguration
    /// Whose notices are believed.
    public var trust: PodpingTrust
    /// A pinged feed is not fetched again sooner than this after its last check.
    public var cooldown: TimeInterval
    /// How long this worker's hold on reading the chain lasts without renewal (a fleet's other workers take over
    /// after it).
    public var lease: TimeInterval
    /// This worker's name, for the lease.
    public var worker: String

    public init(
        reader: PodpingReaderConfiguration = PodpingReaderConfiguration(), trust: PodpingTrust = PodpingTrust(),
        cooldown: TimeInterval = 30, lease: TimeInterval = 30, worker: String
    ) {
        self.reader = reader
        self.trust = trust
        self.cooldown = cooldown
        self.lease = lease
        self.worker = worker
    }
}

/// What `refresh --podping` read before refreshing.
public struct PodpingCatchUp: Sendable, Hashable {
    /// Blocks read.
    public var blocks: Int
    /// Feeds the notices made due.
    public var feedsMadeDue: Int
    /// The chain could not be read (every node failed), or another worker reads it: nothing was read.
    public var unread: Bool
}

/// Reads the chain from the store's cursor and turns notices into "due now", through a ``PodpingIntake``; the one
/// piece of the engine that talks to Hive nodes. The cursor and its lease live in the store, so a restart resumes
/// where it stopped and, on a shared store, one worker of a fleet reads while the others refresh.
public struct PodpingWatcher: Sendable {
    private let settings: PodpingSettings
    private let reader: PodpingReader
    private let intake: PodpingIntake
    private let store: any PodpingRepository
    private let clock: AppClock
    private let now: @Sendable () -> Date
    private let publish: @Sendable (PodpingEvent) -> Void

    public init(
        settings: PodpingSettings, network: HTTPNetwork, store: any PodpingRepository,
        subscriptions: any SubscriptionRepository, clock: AppClock = .system,
        publish: @escaping @Sendable (PodpingEvent) -> Void
    ) {
        self.settings = settings
        self.store = store
        self.clock = clock
        let now: @Sendable () -> Date = { clock.date }
        self.now = now
        self.publish = publish
        reader = PodpingReader(
            configuration: settings.reader, network: network, now: now,
            onNodeFailure: { error in
                publish(.nodeFailed(error))
            })
        intake = PodpingIntake(
            store: store, subscriptions: subscriptions, trust: settings.trust, cooldown: settings.cooldown, now: now,
            publish: publish)
    }

    /// `refresh --podping`: reads every block from the cursor up to the head (or, when the cursor is further behind
    /// than the catch-up limit, skips ahead and says so), makes the feeds named due, and gives the lease back.
    /// Nodes that fail only cost this run its push: it says so and the refresh polls as always.
    /// - Throws: ``StoreError`` when the store fails.
    public func catchUp() async throws -> PodpingCatchUp {
        var result = PodpingCatchUp(blocks: 0, feedsMadeDue: 0, unread: false)
        switch try await store.claimPodpingCursor(worker: settings.worker, lease: settings.lease, at: now()) {
        case .heldBy(let worker, let until):
            publish(.leaseHeldElsewhere(worker: worker, until: until))
            result.unread = true
            return result
        case .granted(let block):
            var cursor = block
            do {
                while !Task.isCancelled {
                    let batch: PodpingBatch
                    do {
                        batch = try await reader.step(after: cursor)
                    } catch let error as PodpingUnavailable {
                        publish(.unavailable(error))
                        result.unread = true
                        break
                    }
                    result.feedsMadeDue += try await intake.take(batch).count
                    result.blocks += batch.blocks.count
                    guard
                        try await store.advancePodpingCursor(
                            to: batch.cursor, worker: settings.worker, lease: settings.lease, at: now())
                    else { break }
                    let moved = batch.cursor != cursor
                    cursor = batch.cursor
                    if batch.startedAtHead || batch.cursor >= batch.head || !moved { break }
                }
            } catch {
                await release()
                throw error
            }
            await release()
            return result
        }
    }

    /// `watch --podping`: follows the chain until cancelled, calling `madeDue` whenever notices made feeds due (so
    /// the watch loop wakes at once). On a shared store it reads only while it holds the cursor's lease, renewing
    /// it with every step; otherwise it asks again from time to time. Failing nodes and a failing store are waited
    /// out, never fatal.
    public func run(madeDue: @escaping @Sendable () -> Void) async {
        var announcedHolder: String?
        var storeRetry: Double = 2
        while !Task.isCancelled {
            do {
                switch try await store.claimPodpingCursor(worker: settings.worker, lease: settings.lease, at: now())
                {
                case .heldBy(let worker, let until):
                    if announcedHolder != worker {
                        publish(.leaseHeldElsewhere(worker: worker, until: until))
                        announcedHolder = worker
                    }
                    let wait = min(max(1, until.timeIntervalSince(now())), settings.lease / 2)
                    try await clock.sleep(for: .milliseconds(Int64(wait * 1000)))
                case .granted(let block):
                    if announcedHolder != nil { publish(.leaseTaken(block: block)) }
                    announcedHolder = nil
                    try await follow(from: block, madeDue: madeDue)
                }
                storeRetry = 2
            } catch is CancellationError {
                break
            } catch {
                publish(.storeFailed(StoreError.wrapping(error)))
                do { try await clock.sleep(for: .milliseconds(Int64(storeRetry * 1000))) } catch { break }
                storeRetry = min(storeRetry * 2, 300)
            }
        }
        await release()
    }

    /// Gives the lease back so another worker may read at once; also when the task was cancelled (a stopping
    /// worker), which is why it runs in a task of its own. A failure only means the lease runs out by itself.
    private func release() async {
        let store = self.store
        let worker = settings.worker
        await Task { try? await store.releasePodpingCursor(worker: worker) }.value
    }

    /// Reads from `block` on while the lease holds; returns when it is lost.
    private func follow(from block: Int64?, madeDue: @Sendable () -> Void) async throws {
        var cursor = block
        var nodeRetry: Double = 2
        var renewed = now()
        while !Task.isCancelled {
            let batch: PodpingBatch
            do {
                batch = try await reader.step(after: cursor)
                nodeRetry = 2
            } catch let error as PodpingUnavailable {
                publish(.unavailable(error))
                try await clock.sleep(for: .milliseconds(Int64(nodeRetry * 1000)))
                nodeRetry = min(nodeRetry * 2, 60)
                if now().timeIntervalSince(renewed) > settings.lease / 3, let cursor {
                    guard try await renew(cursor) else { return }
                    renewed = now()
                }
                continue
            }
            let moved = batch.cursor != cursor || batch.startedAtHead
            if moved {
                if try await !intake.take(batch).isEmpty { madeDue() }
                guard try await renew(batch.cursor) else { return }
                renewed = now()
                cursor = batch.cursor
                // More blocks wait: read them at once.
                if batch.cursor < batch.head && !batch.blocks.isEmpty { continue }
            } else if now().timeIntervalSince(renewed) > settings.lease / 3, let cursor {
                guard try await renew(cursor) else { return }
                renewed = now()
            }
            try await clock.sleep(for: settings.reader.pollInterval)
        }
    }

    private func renew(_ block: Int64) async throws -> Bool {
        try await store.advancePodpingCursor(to: block, worker: settings.worker, lease: settings.lease, at: now())
    }
}
