import EpisodeDownloads
public import FeedModels
import FeedParsing
import Foundation
public import Measures
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Downloads episodes' media files (``EpisodeDownloadQueue/enclosure(of:)``) beside whatever else runs (a refresh's
/// fetches, or nothing), `jobs` at a time and at most `perHost` from one host, and keeps the store's download records
/// true:
/// - a download is recorded as started (with its `.part` path) before its first request, and its validators as soon
///   as the server answers, so a crash at any moment leaves a `.part` the next run resumes, never a file marked
///   downloaded that is not complete;
/// - a file is recorded complete only after ``MediaDownloader`` renamed the whole file into place;
/// - after a feed's file completes, the feed's files past its "keep newest N" are deleted, only those podfresh
///   recorded, and marked removed.
///
/// Every step is published as a ``DownloadEvent`` (`started`, `progressed`, …).
///
/// ## Why this class is `Sendable`
/// Its mutable state (outcomes, names reserved in this run) is in a `Mutex`; the rest is set in `init`.
public final class EpisodeDownloadQueue: Sendable {
    struct Job: Sendable {
        /// Numbers the job for ``State/unrunHooks``.
        var id: Int
        var subscription: Subscription
        var episode: StoredEpisode
        var hook: HookEpisode?
        /// Only the files beside an episode already on disk at this path (`--extras on`), not its media.
        var extrasBeside: String?
        /// Try now the files beside it that wait after a failure (`download --retry`).
        var retryExtras = false
    }

    struct State: Sendable {
        var outcomes: [DownloadOutcome] = []
        var removed = 0
        var deletedByUser = 0
        var withoutMedia = 0
        /// Episodes the feeds' filters left out.
        var filteredOut = 0
        /// Files beside episodes saved, and failed.
        var extrasSaved = 0
        var extrasFailed = 0
        /// Tags written, failed, and files in containers without tags; and the (feed, container) pairs said so.
        var tagsWritten = 0
        var tagsFailed = 0
        var tagsNotTaggable = 0
        var notTaggableSaid: Set<String> = []
        /// Broken links left waiting, and episodes another worker had.
        var waiting = 0
        var elsewhere = 0
        /// The database failed under a download: the jobs not yet started do not start.
        var databaseFailed = false
        /// Final paths chosen in this run and not yet on disk, so two episodes never get one name.
        var reserved: Set<String> = []
        var queued = 0
        /// Jobs waiting for ``release(feedID:)``, by feed.
        var held: [Int64: [Job]] = [:]
        /// The hooks of jobs that have not started running: a stopped queue still runs them (without a file), as a
        /// stopped refresh runs the hooks of the episodes it announced.
        var unrunHooks: [Int: (HookEpisode, FeedTarget)] = [:]
        var nextJobID = 0
    }

    let store: any FeedRepositories
    private let downloader: MediaDownloader
    private let settings: EpisodeDownloadSettings
    let publish: @Sendable (DownloadEvent) -> Void
    private let hooks: HookQueue?
    let now: @Sendable () -> Date
    private let slots: DownloadSlots
    private let startedAt: Date
    let state = Shared(State())
    private let continuation: AsyncStream<Job>.Continuation
    private let worker: Task<Void, Never>

    /// - Parameters:
    ///   - store: Where download records and settings are.
    ///   - downloader: Downloads one file; the caller shuts it down after ``finish()``.
    ///   - settings: Default folder and template, `jobs` and `perHost`.
    ///   - hooks: Runs `--exec` after each download, with `PODFRESH_FILE`.
    ///   - publish: Where events go (the coordinator's `publish`).
    init(
        store: any FeedRepositories, downloader: MediaDownloader, settings: EpisodeDownloadSettings, hooks: HookQueue?,
        clock: AppClock = .system, publish: @escaping @Sendable (DownloadEvent) -> Void
    ) {
        self.store = store
        self.downloader = downloader
        self.settings = settings
        self.hooks = hooks
        let now: @Sendable () -> Date = { clock.date }
        self.now = now
        self.publish = publish
        slots = DownloadSlots(jobs: settings.jobs, perHost: settings.perHost)
        startedAt = now()
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .unbounded)
        self.continuation = continuation
        worker = Task { [slots, store, downloader, settings, hooks, publish, state, now] in
            let runner = JobRunner(
                store: store, downloader: downloader, settings: settings, hooks: hooks, publish: publish,
                slots: slots, state: state, clock: clock, now: now)
            await withTaskGroup(of: Void.self) { group in
                for await job in stream {
                    // The job's place in line is taken here, in the order jobs were queued: its task may start
                    // after a later job's.
                    let place = EpisodeDownloadQueue.enclosure(of: job.episode.episode).map {
                        slots.place(host: $0.url.host ?? "")
                    }
                    group.addTask { await runner.run(job, place: place) }
                }
            }
        }
    }

    /// A queue over a new `MediaDownloader`: `body` enqueues, then the queue is finished (every download ends) and
    /// the downloader shut down, whether `body` returns or throws. Cancelling the calling task stops the downloads
    /// (their `.part` files kept).
    ///
    /// - Parameters:
    ///   - hook: `--exec`, run once per downloaded episode with `PODFRESH_FILE`.
    ///   - events: Where the downloads' events and the hook's failures are published.
    /// - Returns: What `body` returned, and the downloads' totals.
    public static func withQueue<Result: Sendable>(
        store: any FeedRepositories, settings: EpisodeDownloadSettings, hook: HookSettings? = nil,
        clock: AppClock = .system, events: EventHub,
        _ body: (EpisodeDownloadQueue) async throws -> Result
    ) async throws -> (Result, DownloadSummary) {
        let hooks = hook.map { hook in
            HookQueue(command: hook.command, timeout: hook.timeout, output: hook.output, clock: clock) {
                feed, failure in events.publish(.hookFailed(feed, failure))
            }
        }
        do {
            let result = try await withQueue(
                store: store, settings: settings, hooks: hooks, clock: clock, publish: events.publish, body)
            await hooks?.finish()
            return result
        } catch {
            await hooks?.finish()
            throw error
        }
    }

    /// ``withQueue(store:settings:hook:clock:events:_:)`` with the refresh's own hook queue, so hooks never run at once.
    static func withQueue<Result: Sendable>(
        store: any FeedRepositories, settings: EpisodeDownloadSettings, hooks: HookQueue?,
        clock: AppClock, publish: @escaping @Sendable (DownloadEvent) -> Void,
        _ body: (EpisodeDownloadQueue) async throws -> Result
    ) async throws -> (Result, DownloadSummary) {
        try await MediaDownloader.withDownloader(configuration: settings.downloader, network: settings.network) {
            downloader in
            let queue = EpisodeDownloadQueue(
                store: store, downloader: downloader, settings: settings, hooks: hooks, clock: clock, publish: publish)
            do {
                // Cancelled while enqueueing or while the downloads run: they stop (their .part kept).
                return try await withTaskCancellationHandler {
                    let result = try await body(queue)
                    return (result, await queue.finish())
                } onCancel: {
                    queue.cancel()
                }
            } catch {
                queue.cancel()
                await queue.finish()
                throw error
            }
        }
    }

    /// Queues `episodes` of `subscription`; each starts when a slot is free. With `--exec`, the hook runs after each
    /// download (with `PODFRESH_FILE` when it completed): `hooks` maps an episode key to what the hook is told, and
    /// when it is nil every episode gets one.
    ///
    /// - Parameter heldUntilReleased: Start nothing until ``release(feedID:)`` (or ``finish()``) for this feed.
    public func enqueue(
        _ episodes: [StoredEpisode], of subscription: Subscription, hooks announced: [String: HookEpisode]? = nil,
        heldUntilReleased: Bool = false
    ) {
        guard !episodes.isEmpty else { return }
        state.withLock { $0.queued += episodes.count }
        publish(.queued(count: episodes.count))
        let feed = FeedTarget(subscription: subscription)
        var jobs: [Job] = []
        for episode in episodes {
            var hook: HookEpisode?
            if let announced {
                hook = announced[episode.key]
            } else if hooks != nil {
                hook = HookQueue.hookEpisode(
                    EpisodeAnnouncement(feedID: subscription.id, episode: episode.episode), of: feed,
                    feedTitle: subscription.title)
            }
            let id = state.withLock { state in
                defer { state.nextJobID += 1 }
                if let hook { state.unrunHooks[state.nextJobID] = (hook, feed) }
                return state.nextJobID
            }
            jobs.append(Job(id: id, subscription: subscription, episode: episode, hook: hook))
        }
        if heldUntilReleased {
            state.withLock { $0.held[subscription.id, default: []] += jobs }
        } else {
            for job in jobs { continuation.yield(job) }
        }
    }

    /// Queues fetching the files beside episodes of `subscription` whose media files are on disk already (each with
    /// its path), `--extras on`: what is missing of them, or what waits after a failure when `retry`.
    public func enqueueExtras(
        _ episodes: [(StoredEpisode, String)], of subscription: Subscription, retry: Bool = false
    ) {
        guard !episodes.isEmpty else { return }
        for (episode, path) in episodes {
            let id = state.withLock { state in
                defer { state.nextJobID += 1 }
                return state.nextJobID
            }
            continuation.yield(
                Job(
                    id: id, subscription: subscription, episode: episode, hook: nil, extrasBeside: path,
                    retryExtras: retry))
        }
    }

    /// Starts the jobs held for `feedID`.
    public func release(feedID: Int64) {
        let jobs = state.withLock { $0.held.removeValue(forKey: feedID) } ?? []
        for job in jobs { continuation.yield(job) }
    }

    /// Stops: downloads waiting for a slot do not start, and those in flight stop (their `.part` kept to resume).
    public func cancel() {
        worker.cancel()
    }

    /// Waits until every queued download has finished, and publishes the totals.
    @discardableResult
    public func finish() async -> DownloadSummary {
        let held = state.withLock { state in
            defer { state.held.removeAll() }
            return state.held.values.flatMap { $0 }
        }
        for job in held { continuation.yield(job) }
        continuation.finish()
        await worker.value
        let unrun = state.withLock { state in
            defer { state.unrunHooks.removeAll() }
            return state.unrunHooks.sorted { $0.key < $1.key }.map(\.value)
        }
        for (hook, feed) in unrun { hooks?.enqueue(hook, of: feed) }
        let summary = state.withLock { state in
            var summary = DownloadSummary(
                outcomes: state.outcomes, removed: state.removed, deletedByUser: state.deletedByUser,
                withoutMedia: state.withoutMedia, startedAt: startedAt, endedAt: now(),
                wasCancelled: worker.isCancelled, waiting: state.waiting, elsewhere: state.elsewhere)
            summary.filteredOut = state.filteredOut
            summary.extrasSaved = state.extrasSaved
            summary.extrasFailed = state.extrasFailed
            summary.tagsWritten = state.tagsWritten
            summary.tagsFailed = state.tagsFailed
            summary.tagsNotTaggable = state.tagsNotTaggable
            return summary
        }
        publish(.finished(summary))
        return summary
    }

    // MARK: - One download

    /// Runs one job: everything it needs is a value or `Sendable`.
    private struct JobRunner: Sendable {
        let store: any FeedRepositories
        let downloader: MediaDownloader
        let settings: EpisodeDownloadSettings
        let hooks: HookQueue?
        let publish: @Sendable (DownloadEvent) -> Void
        let slots: DownloadSlots
        let state: Shared<State>
        let clock: AppClock
        let now: @Sendable () -> Date

        /// - Parameter place: The job's place in line for a download slot; nil when it has no enclosure to download.
        func run(_ job: Job, place: DownloadSlots.Place?) async {
            // From here this run says what becomes of the job's hook.
            state.withLock { _ = $0.unrunHooks.removeValue(forKey: job.id) }
            let feed = FeedTarget(subscription: job.subscription)
            guard let place, let enclosure = EpisodeDownloadQueue.enclosure(of: job.episode.episode) else {
                if let hook = job.hook { hooks?.enqueue(hook, of: feed) }
                return
            }
            let host = enclosure.url.host ?? ""
            do {
                try await slots.acquire(place)
            } catch {
                // Stopped before it started: not a failure, but its hook still runs (without a file).
                if let hook = job.hook { hooks?.enqueue(hook, of: feed) }
                return
            }
            defer { slots.release(host: host) }
            let target = DownloadTarget(
                feed: feed, episodeKey: job.episode.key, title: job.episode.episode.title, url: enclosure.url,
                file: "")
            // After a database failure nothing more is started: the command ends with 70.
            if state.withLock({ $0.databaseFailed }) {
                if let hook = job.hook { hooks?.enqueue(hook, of: feed) }
                return
            }
            if let path = job.extrasBeside {
                var beside = target
                beside.file = path
                await fetchExtras(job, mediaPath: path, target: beside)
                return
            }
            // On a store several workers share, the episode is claimed first: one worker downloads it.
            var lease: DownloadLease?
            if let claims = store as? any DownloadClaiming {
                do {
                    lease = try await claim(job, claims: claims, target: target)
                } catch {
                    let failure = await recordFailure(error, job: job, target: target)
                    let outcome = DownloadOutcome(target: target, result: .failed(failure), seconds: 0)
                    state.withLock { $0.outcomes.append(outcome) }
                    publish(.failed(outcome))
                    if let hook = job.hook { hooks?.enqueue(hook, of: feed) }
                    return
                }
                guard lease != nil else {
                    if let hook = job.hook { hooks?.enqueue(hook, of: feed) }
                    return
                }
            }
            let claims = store as? any DownloadClaiming
            let renewal = lease.flatMap { held in
                claims.map { claims in
                    Task {
                        while !Task.isCancelled {
                            do { try await clock.sleep(for: DownloadLease.renewal) } catch { return }
                            _ = try? await claims.renewDownloadLease(held, lease: DownloadLease.duration)
                        }
                    }
                }
            }
            await transfer(job, feed: feed, enclosure: enclosure, target: target)
            renewal?.cancel()
            if let held = lease, let claims {
                // Given back even when the run was stopped (a task of its own is not cancelled with this one), so
                // another worker, or the next run, may take the episode at once.
                _ = await Task { try? await claims.releaseDownloadLease(held) }.value
            }
        }

        /// Downloads `job`'s file (its slot and lease held by the caller), records what became of it, and publishes it.
        private func transfer(_ job: Job, feed: FeedTarget, enclosure: Enclosure, target: DownloadTarget) async {
            var target = target
            let began = clock.now
            func seconds() -> Double {
                let elapsed = began.duration(to: clock.now)
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
            do {
                let (request, reservedPath) = try await prepare(job, enclosure: enclosure)
                defer { _ = state.withLock { $0.reserved.remove(reservedPath) } }
                target.file = request.destination.path
                let started = target
                publish(.started(started))
                let throttle = ProgressThrottle(interval: settings.progressInterval, clock: clock)
                let accepted: @Sendable (MediaResponse) async throws -> Void = { response in
                    try await store.recordDownloadStarted(
                        DownloadStart(
                            subscriptionID: job.subscription.id, episodeKey: job.episode.key,
                            url: response.finalURL, partPath: request.partialFile.path,
                            filePath: request.destination.path, etag: response.etag,
                            lastModified: response.lastModified, startedAt: now()))
                }
                let onProgress: @Sendable (DownloadProgress) -> Void = { [publish] progress in
                    guard let rate = throttle.due(progress) else { return }
                    publish(
                        .progressed(
                            DownloadProgressReport(
                                target: started, receivedBytes: progress.receivedBytes,
                                expectedBytes: progress.expectedBytes, resumedFrom: progress.resumedFrom,
                                bytesPerSecond: rate)))
                }
                // An HLS playlist is saved as one file from its segments; anything else is the file itself.
                let media =
                    MediaDownloader.isHLS(url: enclosure.url, type: enclosure.type)
                    ? try await downloader.downloadHLS(request, accepted: accepted, progress: onProgress)
                    : try await downloader.download(request, accepted: accepted, progress: onProgress)
                target.file = media.file.path
                try await store.recordDownloadCompleted(
                    DownloadCompletion(
                        subscriptionID: job.subscription.id, episodeKey: job.episode.key, filePath: media.file.path,
                        bytes: media.byteCount, url: media.finalURL, etag: media.etag,
                        lastModified: media.lastModified, downloadedAt: now(), episodeURL: enclosure.url))
                let outcome = DownloadOutcome(
                    target: target, result: .completed(bytes: media.byteCount, resumedFrom: media.resumedFrom),
                    seconds: seconds(), container: media.container)
                state.withLock { $0.outcomes.append(outcome) }
                publish(.completed(outcome))
                if job.subscription.tagMode != .off {
                    await writeTags(job, path: media.file.path, bytes: media.byteCount, target: target)
                }
                if job.subscription.extras {
                    await fetchExtras(job, mediaPath: media.file.path, target: target)
                }
                if var hook = job.hook {
                    hook.file = media.file.path
                    hooks?.enqueue(hook, of: feed)
                }
                await applyRetention(job.subscription)
            } catch {
                let failure = await recordFailure(error, job: job, target: target)
                let outcome = DownloadOutcome(target: target, result: .failed(failure), seconds: seconds())
                state.withLock { $0.outcomes.append(outcome) }
                publish(.failed(outcome))
                if let hook = job.hook { hooks?.enqueue(hook, of: feed) }
            }
        }

        /// Fetches the files beside `job`'s episode (its media at `mediaPath`) and counts them; their failures never
        /// fail the episode.
        private func fetchExtras(_ job: Job, mediaPath: String, target: DownloadTarget) async {
            let extras = EpisodeExtras(store: store, downloader: downloader, publish: publish, now: now)
            let (saved, failed) = await extras.fetch(
                job.episode, of: job.subscription, mediaPath: mediaPath, target: target, retry: job.retryExtras)
            state.withLock {
                $0.extrasSaved += saved
                $0.extrasFailed += failed
            }
        }

        /// Writes the tags into `job`'s verified file, counts what came of it, and says so (a container without tags
        /// once per feed and container). A failure never fails the episode.
        private func writeTags(_ job: Job, path: String, bytes: Int64, target: DownloadTarget) async {
            let outcome = await EpisodeTagging(downloader: downloader).tag(
                job.episode, of: job.subscription, path: path, bytes: bytes, target: target)
            let say = state.withLock { state -> Bool in
                switch outcome.result {
                case .tagged:
                    state.tagsWritten += 1
                case .failed:
                    state.tagsFailed += 1
                case .notTaggable(let container):
                    state.tagsNotTaggable += 1
                    return state.notTaggableSaid.insert("\(job.subscription.id) \(container ?? "")").inserted
                }
                return true
            }
            if say { publish(.tagged(outcome)) }
        }

        /// Claims `job`'s episode on a shared store: nil (said as skipped) when another worker holds it, or when
        /// another worker downloaded it after this run chose it (the lease is then given back at once).
        private func claim(
            _ job: Job, claims: any DownloadClaiming, target: DownloadTarget
        ) async throws
            -> DownloadLease?
        {
            guard
                let held = try await claims.claimDownload(
                    subscriptionID: job.subscription.id, episodeKey: job.episode.key, worker: FleetSettings.thisProcess,
                    lease: DownloadLease.duration)
            else {
                state.withLock { $0.elsewhere += 1 }
                publish(.skipped(target, .claimedByAnotherWorker))
                return nil
            }
            let record = try await store.download(subscriptionID: job.subscription.id, episodeKey: job.episode.key)
            if DownloadPlan.wantsDownload(record, now: now()) { return held }
            try? await claims.releaseDownloadLease(held)
            if record?.isOnDisk == true {
                state.withLock { $0.elsewhere += 1 }
                var done = target
                done.file = record?.filePath ?? ""
                publish(.skipped(done, .completedByAnotherWorker))
            }
            return nil
        }

        /// The request for `job`: the recorded paths when a download of this episode is in progress (to resume its
        /// `.part`), else a new name from the feed's template, distinct from every file and from names taken in this
        /// run. Records the start before the first request, so a crash leaves a `.part` the store knows about.
        private func prepare(_ job: Job, enclosure: Enclosure) async throws -> (MediaRequest, String) {
            let subscription = job.subscription
            let directory = subscription.downloadDirectory.map { URL(fileURLWithPath: $0) } ?? settings.directory
            let record = try await store.download(subscriptionID: subscription.id, episodeKey: job.episode.key)
            if let record, record.state == .inProgress, let filePath = record.filePath,
                FileNaming.isInside(URL(fileURLWithPath: filePath), directory: directory)
            {
                let destination = URL(fileURLWithPath: filePath)
                let part = destination.path + ".part"
                // A file under the final name is this download's only when an attempt was under way (the record
                // names the .part) and the .part is gone: renamed into place just before a crash, before the store
                // heard. Otherwise it belongs to someone else and is left alone.
                let finalExists = FileManager.default.fileExists(atPath: filePath)
                let partExists = FileManager.default.fileExists(atPath: part)
                let claimedByAnother = finalExists && (partExists || record.partPath != part)
                let reserved = !claimedByAnother && state.withLock { $0.reserved.insert(destination.path).inserted }
                if reserved {
                    // Renamed into place, but the crash came before the store heard: continue from those bytes.
                    if finalExists { _ = rename(filePath, part) }
                    let request = MediaRequest(
                        url: enclosure.url, destination: destination, etag: record.etag,
                        lastModified: record.lastModified, announcedType: enclosure.type,
                        lengthHint: enclosure.length, declaredDuration: job.episode.episode.duration)
                    return (request, destination.path)
                }
            }
            if let record, record.state == .inProgress, let oldPart = record.partPath {
                // A .part of ours left where this episode no longer goes (its folder or template changed).
                _ = unlink(oldPart)
            }
            let naming = FileNaming(template: subscription.fileNameTemplate ?? settings.fileNameTemplate)
            let episode = job.episode.episode
            let values = FileNaming.Values(
                feed: subscription.title ?? subscription.url.host ?? "feed", title: episode.title ?? job.episode.key,
                date: episode.published ?? job.episode.firstSeenAt, url: enclosure.url, type: enclosure.type,
                guid: job.episode.key, season: episode.season, episode: episode.episode)
            let wanted = try naming.file(for: values, in: directory)
            let destination = state.withLock { state in
                let chosen = FileNaming.distinct(wanted) { candidate in
                    state.reserved.contains(candidate.path) || FileNaming.defaultIsTaken(candidate)
                        || FileManager.default.fileExists(atPath: candidate.path + ".part")
                }
                state.reserved.insert(chosen.path)
                return chosen
            }
            let request = MediaRequest(
                url: enclosure.url, destination: destination, announcedType: enclosure.type,
                lengthHint: enclosure.length, declaredDuration: episode.duration)
            do {
                try await store.recordDownloadStarted(
                    DownloadStart(
                        subscriptionID: subscription.id, episodeKey: job.episode.key, url: enclosure.url,
                        partPath: request.partialFile.path, filePath: destination.path, startedAt: now()))
            } catch {
                _ = state.withLock { $0.reserved.remove(destination.path) }
                throw error
            }
            return (request, destination.path)
        }

        /// Records a failed attempt (the `.part`, when one is left, is kept for a resume) and says why in words.
        private func recordFailure(_ error: any Error, job: Job, target: DownloadTarget) async -> DownloadFailure {
            let part = target.file.isEmpty ? nil : target.file + ".part"
            let partBytes = part.flatMap { path -> Int64? in
                var info = stat()
                return stat(path, &info) == 0 ? Int64(info.st_size) : nil
            }
            let partKept = (partBytes ?? 0) > 0
            var failure: DownloadFailure
            switch error {
            case let error as DownloadError:
                failure = DownloadFailure(.download(error), partKept: partKept)
                failure.permanent = error.isPermanent
            case let error as StoreError:
                failure = DownloadFailure(.notRecorded(error), partKept: partKept)
                if error.kind == .database {
                    failure.databaseFailed = true
                    state.withLock { $0.databaseFailed = true }
                }
            case is CancellationError:
                failure = DownloadFailure(.stopped(url: target.url, partKept: partKept), partKept: partKept)
            default:
                failure = DownloadFailure(
                    .unexpected(url: target.url, reason: ErrorWords.describe(error)), partKept: partKept)
            }
            // Recorded even when the run was stopped: the store must not wait on a cancelled task.
            let message = failure.storedCause
            guard !failure.databaseFailed else { return failure }
            // A download's failure waits before the next try, as a feed's does: a broken link for an hour and
            // more, anything else that got nothing (a host that does not resolve or answer, a 5xx) for 15 minutes
            // and more. So cron mode says it once, and again when it changes. One that kept part of the file made
            // progress: the next run resumes it.
            if case .download = failure.cause, failure.permanent || !partKept {
                let at = now()
                let permanent = failure.permanent
                let recorded = try? await Task {
                    if permanent {
                        return try await store.recordPermanentFailure(
                            subscriptionID: job.subscription.id, episodeKey: job.episode.key, error: message,
                            partialBytes: partBytes, at: at)
                    }
                    return try await store.recordTransientFailure(
                        subscriptionID: job.subscription.id, episodeKey: job.episode.key, error: message,
                        partialBytes: partBytes, at: at)
                }.value
                if let recorded = recorded ?? nil {
                    failure.failures = recorded.record.permanentFailures
                    failure.retryAfter = recorded.record.retryAfter
                    failure.isRepeat = recorded.isRepeat
                }
                return failure
            }
            _ = try? await Task {
                try await store.recordDownloadFailed(
                    subscriptionID: job.subscription.id, episodeKey: job.episode.key, error: message,
                    partialBytes: partBytes)
            }.value
            return failure
        }

        /// Deletes the feed's files past its "keep newest N", only files podfresh recorded, and marks them removed.
        private func applyRetention(_ subscription: Subscription) async {
            await EpisodeDownloadQueue.applyRetention(
                subscription, store: store, publish: publish, count: { count in state.withLock { $0.removed += count } }
            )
        }
    }
}
