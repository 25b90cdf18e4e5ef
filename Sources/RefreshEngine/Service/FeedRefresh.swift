import FeedFetching
import FeedModels
import FeedParsing
import FeedScheduling
import Foundation
import Measures

/// One feed's check, start to end: fetch (conditional unless told otherwise) → parse as the body streams in → plan
/// and apply the merge in one transaction → the outcome, and the new episodes handed on (``AfterMerge``). Each
/// failure (fetch, parse, store, a lease run out, a feed gone) is recorded as the feed's own and becomes its outcome;
/// a host that cannot be reached waits for the run's ``NetworkVerdict`` before it is recorded.
struct FeedRefresh: Sendable {
    let source: any FeedSource
    let episodes: any EpisodeRepository
    let configuration: EpisodeUpdateConfiguration
    /// Bounds the feeds being read, parsed and stored at once (nil: no bound).
    let processingSlots: ProcessingSlots?
    let moves: MoveCheck
    let policy: RefreshPolicy
    /// The run the checks are recorded under.
    let runID: Int64
    let verdict: NetworkVerdict
    let tally: RunTally
    let after: AfterMerge
    /// Feeds whose pings are seen while podping is followed: polled only as a safety net.
    var pinged: Set<Int64> = []

    /// Checks `subscription` (under `lease` on a shared store) in its fetch `slot`, stores what came of it, and hands
    /// its new episodes to what comes after a merge. Every failure is an outcome; nothing throws.
    func check(_ subscription: Subscription, lease: FeedLease?, slot: FetchSlot?) async -> RefreshOutcome {
        let target = FeedTarget(subscription: subscription)
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
        let earlyBacklog = EarlyBacklog()
        do {
            let result = try await fetchFeed(
                request, subscription: subscription, now: now, lease: lease, announceLimit: announceLimit,
                permit: permit, slot: slot, earlyBacklog: earlyBacklog)
            if Task.isCancelled { return RefreshOutcome(feed: target, result: .cancelled) }
            switch result {
            case .notModified(let head):
                let schedule = await scheduleAfterSuccess(subscription, head: head, feed: nil, now: now)
                var check = FeedCheck(
                    subscriptionID: subscription.id, checkedAt: now, status: 304, result: .notModified,
                    movedTo: moves.movedURL(subscription, head: head, feed: nil),
                    nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason, runID: runID, lease: lease)
                check.publicationModel = schedule.learned?.storedText
                let merge = try await episodes.apply(check)
                tally.addSaved(subscription.lastBodyBytes ?? 0)
                await after.merged(subscription, as: target, announced: [], feedTitle: nil)
                var outcome = RefreshOutcome(
                    feed: target, result: .notModified, movedTo: merge.movedTo,
                    moveRefused: merge.moveRefused.map(MoveRefusal.taken),
                    nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason,
                    bytesSaved: subscription.lastBodyBytes ?? 0)
                outcome.recovered = Self.recovery(of: subscription)
                return outcome
            case .fetched(let head, let consumer, let byteCount):
                tally.addDownloaded(byteCount)
                guard case .parsed(var feed, let read) = try consumer.finishRead() else {
                    return try await identicalBody(
                        subscription, head: head, byteCount: byteCount, now: now, lease: lease, target: target)
                }
                if read == .short { Self.keepUnreadFields(of: subscription, in: &feed) }
                // Episodes stored early are not in `feed` any more: the schedule reads their dates from the store.
                let early = consumer.earlyMerged
                let schedule = await scheduleAfterSuccess(
                    subscription, head: head, feed: feed, now: now, readShort: read == .short,
                    withStoredDates: early != nil)
                let move = await moves.checkedMove(subscription, head: head, feed: feed)
                var check = FeedCheck(
                    subscriptionID: subscription.id, checkedAt: now, status: head.status,
                    result: .fetched(
                        feed, etag: head.etag, lastModified: head.lastModified, unconditional: unconditional),
                    movedTo: move.target,
                    nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason, runID: runID,
                    bodyBytes: read == .short ? nil : byteCount, announceLimit: announceLimit, lease: lease)
                check.bodyRead = read
                check.seenEarly = early?.seenUnchanged ?? []
                check.publicationModel = schedule.learned?.storedText
                let merge = try await episodes.apply(check)
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
                outcome.backlogCount = merge.backlogCount + (early?.backlogCount ?? 0)
                outcome.wentLive = merge.wentLive.map {
                    EpisodeAnnouncement(feedID: $0.subscriptionID, episode: $0.episode)
                }
                outcome.bytesFetched = byteCount
                outcome.readShort = read == .short
                outcome.recovered = Self.recovery(of: subscription)
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
                _ = try await episodes.apply(check)
            } catch let error as StoreError where error.kind == .leaseLost {
                return RefreshOutcome(feed: target, result: .dropped(error))
            } catch {
                return await failed(
                    target, subscription,
                    RefreshFailure(
                        .store(StoreError.wrapping(error))
                    ),
                    now: now, lease: lease, record: false)
            }
            return RefreshOutcome(feed: target, result: .gone(error), nextCheckReason: .gone)
        } catch let error as FeedFetchError {
            if Task.isCancelled { return RefreshOutcome(feed: target, result: .cancelled) }
            var failure = RefreshFailure(.fetch(error))
            if error.kind == .tooLarge,
                let refused = await withdrawEarly(earlyBacklog, subscription, now: now, lease: lease, target: target)
            {
                return refused
            }
            if error.kind == .unreachable, subscription.url.isHTTP {
                failure.awaitsNetworkVerdict = true
                verdict.hold(
                    failureCheck(
                        subscription, failure, now: now, lease: lease, retryAfter: error.retryAfter))
                return await failed(
                    target, subscription, failure, now: now, lease: lease, record: false,
                    retryAfter: error.retryAfter)
            }
            return await failed(
                target, subscription, failure, now: now, lease: lease, retryAfter: error.retryAfter)
        } catch let error as FeedParseError {
            if let refused = await withdrawEarly(earlyBacklog, subscription, now: now, lease: lease, target: target) {
                return refused
            }
            return await failed(
                target, subscription, RefreshFailure(.parse(error)), now: now, lease: lease)
        } catch let error as StoreError {
            return await failed(
                target, subscription, RefreshFailure(.store(error)),
                now: now, lease: lease, record: false)
        } catch {
            return await failed(
                target, subscription, RefreshFailure(.unexpected(reason: ErrorWords.describe(error))), now: now,
                lease: lease)
        }
    }

    /// Takes out the back catalogue this check's early merges stored, its body refused by a limit (too large, a
    /// decompression bomb, not a feed): a refused body leaves nothing. A body cut by the network keeps it (it is true
    /// of the feed, and the next check need not store it again); that path never comes here. Returns the outcome
    /// when the store could not take them out, nil when it did (or there was nothing to take out).
    private func withdrawEarly(
        _ backlog: EarlyBacklog, _ subscription: Subscription, now: Date, lease: FeedLease?, target: FeedTarget
    ) async -> RefreshOutcome? {
        let keys = backlog.storedKeys
        guard !keys.isEmpty else { return nil }
        do {
            _ = try await episodes.withdrawEarly(
                EarlyWithdrawal(subscriptionID: subscription.id, checkedAt: now, keys: keys, lease: lease))
            return nil
        } catch let error as StoreError where error.kind == .leaseLost {
            return RefreshOutcome(feed: target, result: .dropped(error))
        } catch let error as StoreError where error.kind == .notFound {
            return RefreshOutcome(feed: target, result: .removed)
        } catch {
            return await failed(
                target, subscription, RefreshFailure(.store(StoreError.wrapping(error))), now: now, lease: lease,
                record: false)
        }
    }

    /// Fetches and parses one feed; its host's slot is given back as soon as the host has answered (body in, or failed).
    private func fetchFeed(
        _ request: FeedRequest, subscription: Subscription, now: Date, lease: FeedLease?, announceLimit: Int?,
        permit: ProcessingPermit, slot: FetchSlot?, earlyBacklog: EarlyBacklog
    ) async throws -> FeedFetchResult<
        FeedParserConsumer
    > {
        defer { slot?.releaseHost() }
        let options = configuration.parserOptions
        return try await source.fetch(request) { head in
            try await permit.take()
            var plan = await readPlan(for: subscription, now: now)
            if let every = configuration.earlyMergeBytes {
                plan.early = EarlyMerging.Plan(
                    every: every, store: episodes, subscriptionID: subscription.id, checkedAt: now, lease: lease,
                    announceLimit: announceLimit, stored: earlyBacklog)
            }
            return FeedParserConsumer(head: head, options: options, plan: plan)
        }
    }

    /// How to read the body of `subscription` that is arriving (issue #36). It may be read short (stopped once its
    /// leading episodes are all stored, unchanged) unless `--full` says otherwise, the store holds no dated episode of
    /// it, or it was last read whole longer ago than the revalidation interval (a day by default), so an edit deep in
    /// the back catalogue is seen within that time. A body read whole is compared with the last one read whole.
    /// Asked only once a body comes (never for a 304), so a warm run reads no episode for it.
    private func readPlan(for subscription: Subscription, now: Date) async -> BodyReadPlan {
        guard !configuration.readsWhole else { return BodyReadPlan() }
        var plan = BodyReadPlan(lastDigest: BodyDigest(storedText: subscription.lastBodyDigest))
        let wholeReadDue = FeedScheduler.shouldRevalidate(
            lastUnconditionalAt: subscription.lastWholeReadAt, now: now, policy: configuration.schedulePolicy)
        // A store that cannot say (an error) gets the body read whole, and its merge then reports the store's error.
        if !wholeReadDue,
            let leading = try? await episodes.leadingEpisodes(
                subscriptionID: subscription.id, limit: LeadingItemsCheck.storedToCompare)
        {
            plan.leading = LeadingItemsCheck(stored: leading)
        }
        return plan
    }

    /// Records a body identical to the last one read whole as a check that found nothing changed (its status, not
    /// 304): neither parsed nor merged, and the whole read is counted as done.
    private func identicalBody(
        _ subscription: Subscription, head: FeedResponseHead, byteCount: Int, now: Date, lease: FeedLease?,
        target: FeedTarget
    ) async throws -> RefreshOutcome {
        let schedule = await scheduleAfterSuccess(subscription, head: head, feed: nil, now: now)
        var check = FeedCheck(
            subscriptionID: subscription.id, checkedAt: now, status: head.status, result: .notModified,
            movedTo: moves.movedURL(subscription, head: head, feed: nil),
            nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason, runID: runID, lease: lease)
        check.bodyRead = .identical
        check.publicationModel = schedule.learned?.storedText
        let merge = try await episodes.apply(check)
        await after.merged(subscription, as: target, announced: [], feedTitle: nil)
        var outcome = RefreshOutcome(
            feed: target, result: .notModified, movedTo: merge.movedTo,
            moveRefused: merge.moveRefused.map(MoveRefusal.taken),
            nextCheckAt: schedule.nextCheckAt, nextCheckReason: schedule.reason, bytesFetched: byteCount)
        outcome.bodyIdentical = true
        outcome.recovered = Self.recovery(of: subscription)
        return outcome
    }

    /// After a short read, the feed's own fields that may come after its items (unread) keep their stored values
    /// where the part read did not give them.
    static func keepUnreadFields(of subscription: Subscription, in feed: inout ParsedFeed) {
        feed.ttl = feed.ttl ?? subscription.ttlMinutes
        feed.syndicationUpdatePeriod = feed.syndicationUpdatePeriod ?? subscription.syndicationUpdatePeriod
        feed.syndicationUpdateFrequency = feed.syndicationUpdateFrequency ?? subscription.syndicationUpdateFrequency
        feed.updateFrequency = feed.updateFrequency ?? subscription.podcastUpdateFrequency
        feed.complete = feed.complete ?? subscription.isComplete
    }

    private func failureCheck(
        _ subscription: Subscription, _ failure: RefreshFailure, now: Date, lease: FeedLease?,
        retryAfter: Date?
    ) -> FeedCheck {
        let schedule = FeedScheduler.decide(
            ScheduleInput(
                now: now, result: .failure, consecutiveFailures: subscription.failureCount + 1,
                isComplete: subscription.isComplete, retryAfter: retryAfter, jitter: configuration.jitter()),
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
        now: Date, lease: FeedLease?, record: Bool = true, retryAfter: Date? = nil
    ) async -> RefreshOutcome {
        var failure = failure
        failure.isRepeat = Self.repeats(failure, of: subscription)
        let check = failureCheck(subscription, failure, now: now, lease: lease, retryAfter: retryAfter)
        if record {
            do {
                _ = try await episodes.apply(check)
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

    /// Whether `failure` is the one the subscription's last check stored (it was failing, with the same
    /// ``RefreshFailure/identity``): what was last reported of the feed, since every failure is stored as it is
    /// reported. Decided from the subscription as read for this check, which on a shared store is the claimed row.
    static func repeats(_ failure: RefreshFailure, of subscription: Subscription) -> Bool {
        guard subscription.failureCount > 0, !subscription.isGone, let identity = failure.identity else { return false }
        return identity
            == RefreshFailure.identity(kind: subscription.lastErrorKind, storedCause: subscription.lastError)
    }

    /// The recovery a successful check of `subscription` is, when its last checks failed.
    static func recovery(of subscription: Subscription) -> RefreshOutcome.Recovery? {
        guard subscription.failureCount > 0, !subscription.isGone else { return nil }
        return RefreshOutcome.Recovery(
            failures: subscription.failureCount, lastErrorKind: subscription.lastErrorKind,
            lastError: subscription.lastError)
    }

    /// The next check after a successful one, and the feed's publication model when this check changed it.
    ///
    /// The model learns the dates of the episodes the body listed (with the zones they were written in); a feed
    /// without a stored model yet (one checked before podfresh learned models) and one whose episodes were stored
    /// early (not in `feed` any more) read their stored dates too.
    private func scheduleAfterSuccess(
        _ subscription: Subscription, head: FeedResponseHead, feed: ParsedFeed?, now: Date, readShort: Bool = false,
        withStoredDates: Bool = false
    ) async -> (nextCheckAt: Date?, reason: ScheduleReason, learned: PublicationModel?) {
        let stored = PublicationModel(storedText: subscription.publicationModel)
        var publications: [Publication] = []
        if let feed {
            publications = feed.episodes.compactMap { episode in
                episode.published.map { Publication(at: $0, writtenOffset: episode.publishedOffset) }
            }
        }
        if withStoredDates || (stored == nil && subscription.lastSuccessAt != nil) {
            let dates =
                (try? await episodes.recentPublishedDates(
                    subscriptionID: subscription.id, limit: PublicationHistory.capacity)) ?? []
            publications += dates.map { Publication(at: $0) }
        }
        // The feed's own fields come after its items: a body read short did not read them.
        let declared: DeclaredSchedule?? =
            feed == nil || readShort
            ? .none
            : .some(
                feed!.podcastUpdateFrequency.flatMap { frequency in
                    frequency.rrule.map { DeclaredSchedule(rule: $0, start: frequency.start) }
                })
        let learned: PublicationModel?
        if let stored {
            learned = stored.updated(adding: publications, declared: declared, now: now)
        } else {
            learned = PublicationModel.learn(
                PublicationHistory(publications, now: now), declared: declared ?? nil, now: now)
        }
        let input = ScheduleInput(
            now: now, result: .success, consecutiveFailures: 0, model: learned ?? stored,
            pushed: pinged.contains(subscription.id),
            ttlMinutes: feed.map(\.ttl) ?? subscription.ttlMinutes,
            syndicationUpdatePeriod: feed.map(\.syndicationUpdatePeriod) ?? subscription.syndicationUpdatePeriod,
            syndicationUpdateFrequency: feed.map(\.syndicationUpdateFrequency)
                ?? subscription.syndicationUpdateFrequency,
            podcastUpdateFrequency: feed.map(\.updateFrequency) ?? subscription.podcastUpdateFrequency,
            isComplete: feed?.complete ?? subscription.isComplete,
            maxAge: head.maxAge, expires: head.expires, retryAfter: head.retryAfter, jitter: configuration.jitter())
        let decision = FeedScheduler.decide(input, policy: configuration.schedulePolicy)
        return (decision.nextCheckAt, decision.reason, learned)
    }
}
