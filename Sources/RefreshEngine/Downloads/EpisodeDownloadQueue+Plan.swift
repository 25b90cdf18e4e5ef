import EpisodeDownloads
public import FeedModels
public import FeedParsing
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Which of a feed's episodes a run downloads: its window of newest episodes with media that its filters let
// through, less those deleted by hand, waiting after a broken link, or played elsewhere.
extension EpisodeDownloadQueue {
    // MARK: - Choosing episodes

    /// Which of `subscription`'s newest `newest` episodes with media to download (every one when `newest` is nil; an
    /// episode without an enclosure, a text post, takes no place), after looking at its recorded files: files past
    /// the feed's retention are deleted, files the user deleted by hand are marked so and left alone (unless
    /// `again`), and broken links waiting after a permanent failure are said and left alone (unless `retry`).
    ///
    /// A feed whose downloads run from a time on (``DownloadPlan/downloadsFrom(_:)``: turned on with `set
    /// --download on`) takes only the episodes that arrived since and the newest of its back catalogue as its
    /// `--backlog` says (``DownloadPlan/fromNowOn(_:since:backlog:isCandidate:)``), unless `wholeCatalogue`.
    ///
    /// - Parameters:
    ///   - again: Download again files the user deleted, or retention removed, among the newest `newest`.
    ///   - retry: Try now the downloads among them that wait after a permanent failure.
    ///   - wholeCatalogue: Take the newest `newest` whenever they arrived (`download --latest N`).
    ///   - saysOlder: Say how many older episodes were left out because downloads run from a time on
    ///     (``DownloadEvent/olderLeftOut(_:count:since:)``).
    ///   - announced: The keys of the episodes this check announced as new: taken as having arrived (a first
    ///     check announces its newest `add --backlog N`).
    /// - Returns: The episodes to download, newest first.
    /// - Throws: ``StoreError`` when the store cannot be read.
    public func plan(
        _ subscription: Subscription, newest: Int?, again: Bool = false, retry: Bool = false,
        wholeCatalogue: Bool = false, saysOlder: Bool = false, announced: Set<String> = []
    ) async throws -> [StoredEpisode] {
        let matcher: DownloadFilterMatcher
        do {
            matcher = try DownloadFilterMatcher(subscription.downloadFilter)
        } catch {
            // Only a store edited by hand holds such a pattern: nothing is downloaded rather than everything.
            publish(
                .problem(
                    FeedTarget(subscription: subscription), .badFilter(pattern: error.pattern, reason: error.reason)))
            return []
        }
        await applyRetention(subscription)
        var played: [EpisodeRef: EpisodePlayState] = [:]
        if let actions = store as? any EpisodeActionRepository {
            // Plays pulled before this feed's episodes were stored (a feed the same sync subscribed) apply now.
            _ = try await actions.applyWaitingEpisodeActions(subscriptionID: subscription.id, at: now())
            let states = try await actions.playStates(subscriptionID: subscription.id)
            let removed = await PlayedFiles.delete(
                of: subscription, downloads: store, actions: actions, states: states, publish: publish)
            state.withLock { $0.removed += removed }
            played = states.filter(\.value.played)
        }
        let feed = FeedTarget(subscription: subscription)
        var records = try await store.downloads(subscriptionID: subscription.id)
        var deleted: Set<String> = []
        var deletedNow: [(record: DownloadRecord, path: String)] = []
        for record in records where record.isOnDisk {
            guard let path = record.filePath, !FileManager.default.fileExists(atPath: path) else { continue }
            if try await store.markDeletedByUser(subscriptionID: subscription.id, episodeKey: record.episodeKey) {
                deleted.insert(record.episodeKey)
                deletedNow.append((record, path))
            }
        }
        var fromNowOn: (all: [StoredEpisode], keys: Set<String>)?
        if !wholeCatalogue, let from = DownloadPlan.downloadsFrom(subscription) {
            let since = from.since
            let all = try await store.episodes(EpisodeQuery(subscriptionID: subscription.id))
            let (keys, olderLeftOut) = DownloadPlan.fromNowOn(all, since: since, backlog: from.backlog) { episode in
                Self.enclosure(of: episode.episode) != nil && matcher.exclusion(of: episode.episode) == nil
            }
            fromNowOn = (all, keys.union(announced))
            if saysOlder, olderLeftOut > 0 {
                publish(.olderLeftOut(FeedTarget(subscription: subscription), count: olderLeftOut, since: since))
            }
        }
        let window = try await newestWithMedia(
            subscription.id, count: newest, matcher: matcher, fromNowOn: fromNowOn)
        if window.filtered.total > 0 { publish(.filtered(feed, window.filtered)) }
        let keys = Set(window.episodes.map(\.key))
        // `--again` brings back only what this run keeps: a file `--keep` would remove again at once (an episode
        // past the newest N kept, with `--latest` reaching further) is not downloaded.
        let kept = subscription.keepNewest.map { Set(window.episodes.prefix($0).map(\.key)) } ?? keys
        for (record, path) in deletedNow where !(again && kept.contains(record.episodeKey)) {
            publish(
                .skipped(
                    DownloadTarget(
                        feed: feed, episodeKey: record.episodeKey, title: nil,
                        url: record.url ?? subscription.url, file: path),
                    .deletedByHand(againDownloads: kept.contains(record.episodeKey))))
        }
        if again {
            for record in records
            where kept.contains(record.episodeKey)
                && (record.deletedByUser || record.removedByRetention || deleted.contains(record.episodeKey))
            {
                try await store.allowDownloadAgain(subscriptionID: subscription.id, episodeKey: record.episodeKey)
            }
        }
        if retry {
            for record in records where keys.contains(record.episodeKey) && record.retryAfter != nil {
                try await store.allowRetryNow(subscriptionID: subscription.id, episodeKey: record.episodeKey)
            }
            records = try await store.downloads(subscriptionID: subscription.id)
        }
        // Broken links waiting in the window: said, not tried.
        let moment = now()
        let byKey = Dictionary(records.map { ($0.episodeKey, $0) }, uniquingKeysWith: { first, _ in first })
        var waiting = 0
        for episode in window.episodes {
            guard let record = byKey[episode.key], record.isWaiting(at: moment), let retryAfter = record.retryAfter,
                !record.deletedByUser, !record.removedByRetention
            else { continue }
            waiting += 1
            publish(
                .skipped(
                    DownloadTarget(
                        feed: feed, episodeKey: episode.key, title: episode.episode.title,
                        url: Self.enclosure(of: episode.episode)?.url ?? record.url ?? subscription.url,
                        file: record.filePath ?? ""),
                    .waiting(
                        retryAfter: retryAfter, failures: record.permanentFailures,
                        error: record.permanentError ?? record.lastError)))
        }
        if subscription.extras {
            try await queueMissingExtras(of: subscription, window: window.episodes, records: byKey, retry: retry)
        }
        let episodes = try await store.episodesToDownload(subscriptionID: subscription.id, newest: window.depth)
        state.withLock {
            $0.deletedByUser += deleted.count
            $0.withoutMedia += window.withoutMedia
            $0.filteredOut += window.filtered.total
            $0.waiting += waiting
        }
        // Played to the end on another device (synced episode actions): said, not downloaded, unless `again`.
        return episodes.filter { episode in
            guard keys.contains(episode.key) else { return false }
            guard !again, let state = played[EpisodeRef(subscriptionID: subscription.id, episodeKey: episode.key)]
            else { return true }
            publish(
                .skipped(
                    DownloadTarget(
                        feed: feed, episodeKey: episode.key, title: episode.episode.title,
                        url: Self.enclosure(of: episode.episode)?.url ?? subscription.url, file: ""),
                    .playedElsewhere(at: state.playedAt, device: state.device)))
            return false
        }
    }

    /// A feed's newest `count` episodes with media that its filters let through (every one when `count` is nil),
    /// newest first; how deep into its episodes (newest first) they reach; how many episodes without media were
    /// passed over on the way; and how many with media the filters left out on the way.
    ///
    /// With `fromNowOn` (every episode of the feed, and the keys its downloads may take), an episode whose key is
    /// not among those is passed over without a word: it came before downloads were turned on.
    private func newestWithMedia(
        _ subscriptionID: Int64, count: Int?, matcher: DownloadFilterMatcher,
        fromNowOn: (all: [StoredEpisode], keys: Set<String>)? = nil
    ) async throws -> (
        episodes: [StoredEpisode], depth: Int, withoutMedia: Int, filtered: FilteredCounts
    ) {
        /// Of `episodes` (newest first), the first `count` with media that pass, how deep they reach, and what was
        /// passed over before the last one chosen (everything, when fewer were found).
        func choose(
            _ episodes: [StoredEpisode], count: Int
        ) -> (
            [StoredEpisode], depth: Int, withoutMedia: Int, filtered: FilteredCounts
        ) {
            var chosen: [StoredEpisode] = []
            var depth = 0
            var withoutMedia = 0
            var filtered = FilteredCounts()
            var pendingWithout = 0
            var pendingFiltered = FilteredCounts()
            for (index, episode) in episodes.enumerated() where chosen.count < count {
                if let fromNowOn, !fromNowOn.keys.contains(episode.key) { continue }
                guard Self.enclosure(of: episode.episode) != nil else {
                    pendingWithout += 1
                    continue
                }
                if let exclusion = matcher.exclusion(of: episode.episode) {
                    pendingFiltered.count(exclusion)
                    continue
                }
                chosen.append(episode)
                depth = index + 1
                withoutMedia += pendingWithout
                filtered.notIncluded += pendingFiltered.notIncluded
                filtered.excluded += pendingFiltered.excluded
                filtered.tooShort += pendingFiltered.tooShort
                pendingWithout = 0
                pendingFiltered = FilteredCounts()
            }
            if chosen.count < count {
                // Fewer than asked: everything looked at was passed over.
                withoutMedia += pendingWithout
                filtered.notIncluded += pendingFiltered.notIncluded
                filtered.excluded += pendingFiltered.excluded
                filtered.tooShort += pendingFiltered.tooShort
            }
            return (chosen, depth, withoutMedia, filtered)
        }
        if let all = fromNowOn?.all {
            let (chosen, depth, withoutMedia, filtered) = choose(all, count: count ?? Int.max)
            return (chosen, count != nil && chosen.count == count ? depth : all.count, withoutMedia, filtered)
        }
        guard let count else {
            let all = try await store.episodes(EpisodeQuery(subscriptionID: subscriptionID))
            let (chosen, _, withoutMedia, filtered) = choose(all, count: Int.max)
            return (chosen, all.count, withoutMedia, filtered)
        }
        guard count > 0 else { return ([], 0, 0, FilteredCounts()) }
        var limit = count.multipliedReportingOverflow(by: 2).overflow ? Int.max : count * 2
        while true {
            let recent = try await store.episodes(EpisodeQuery(subscriptionID: subscriptionID, limit: limit))
            let (chosen, depth, withoutMedia, filtered) = choose(recent, count: count)
            if chosen.count == count || recent.count < limit || limit >= 4096 {
                return (chosen, chosen.count == count ? depth : recent.count, withoutMedia, filtered)
            }
            limit *= 4
        }
    }

    /// Queues the files beside the window's episodes already on disk that are missing (not saved, and not waiting
    /// after a failure unless `retry`).
    private func queueMissingExtras(
        of subscription: Subscription, window: [StoredEpisode], records: [String: DownloadRecord], retry: Bool
    ) async throws {
        let stored = try await store.extraFiles(subscriptionID: subscription.id)
        let moment = now()
        var beside: [(StoredEpisode, String)] = []
        for episode in window {
            guard let record = records[episode.key], record.isOnDisk, let path = record.filePath,
                FileManager.default.fileExists(atPath: path)
            else { continue }
            let wanted = EpisodeExtras.wanted(episode.episode, feedImage: subscription.image)
            if EpisodeExtras.missing(wanted, stored: stored[episode.key] ?? [], now: moment, retry: retry) {
                beside.append((episode, path))
            }
        }
        enqueueExtras(beside, of: subscription, retry: retry)
    }

    /// The enclosure downloaded for an episode: the audio (else video) file a podcast app would play, never an
    /// image (``EnclosureChoice``); always an http(s) URL.
    ///
    /// A `podcast:liveItem` has none: its enclosure is a stream, never downloaded.
    public static func enclosure(of episode: ParsedEpisode) -> Enclosure? {
        guard episode.live == nil else { return nil }
        return episode.chosenEnclosure?.enclosure
    }
}
