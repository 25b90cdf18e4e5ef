import EpisodeDownloads
public import FeedModels
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Retention: a feed keeps only its newest N downloaded files (`podfresh set FEED --keep N`).
extension EpisodeDownloadQueue {
    /// Deletes `subscription`'s recorded files past its "keep newest N" (a file already gone is only marked), and
    /// publishes each removal. Does nothing when the feed keeps every file.
    public func applyRetention(_ subscription: Subscription) async {
        await Self.applyRetention(
            subscription, store: store, publish: publish, count: { count in state.withLock { $0.removed += count } })
    }

    /// Deletes `subscription`'s recorded files past its "keep newest N"; on a feed with filters only the files of
    /// episodes its filters let through count, and the others are left alone (``DownloadPlan/pastRetention(_:episodesNewestFirst:matcher:keepNewest:)``).
    static func applyRetention(
        _ subscription: Subscription, store: any FeedRepositories, publish: @Sendable (DownloadEvent) -> Void,
        count: (Int) -> Void
    ) async {
        guard let keep = subscription.keepNewest else { return }
        let feed = FeedTarget(subscription: subscription)
        do {
            for record in try await filesPastRetention(subscription, keepNewest: keep, store: store) {
                guard let path = record.filePath else { continue }
                if unlink(path) != 0 && errno != ENOENT {
                    publish(
                        .problem(
                            feed, .cannotDelete(path: path, keepNewest: keep, reason: String(cString: strerror(errno))))
                    )
                    continue
                }
                await EpisodeExtras.remove(subscriptionID: subscription.id, episodeKey: record.episodeKey, store: store)
                if try await store.markRemovedByRetention(
                    subscriptionID: subscription.id, episodeKey: record.episodeKey)
                {
                    count(1)
                    publish(
                        .removed(
                            DownloadRemoval(feed: feed, episodeKey: record.episodeKey, file: path, keepNewest: keep)))
                }
            }
        } catch {
            publish(.problem(feed, .retentionNotApplied(keepNewest: keep, StoreError.wrapping(error))))
        }
    }

    /// The feed's files past its newest `keepNewest`, from the store; on a feed with filters, only those of episodes the
    /// filters let through are counted (none when a stored pattern is broken: nothing is deleted).
    private static func filesPastRetention(
        _ subscription: Subscription, keepNewest: Int, store: any FeedRepositories
    ) async throws -> [DownloadRecord] {
        guard !subscription.downloadFilter.isEmpty else {
            return try await store.filesPastRetention(subscriptionID: subscription.id, keepNewest: keepNewest)
        }
        guard let matcher = try? DownloadFilterMatcher(subscription.downloadFilter) else { return [] }
        let records = try await store.downloads(subscriptionID: subscription.id)
        // No more files on disk than kept: none is past retention, whatever the filters say (and the feed's episodes
        // need not be read).
        guard records.filter(\.isOnDisk).count > keepNewest else { return [] }
        let episodes = try await store.episodes(EpisodeQuery(subscriptionID: subscription.id))
        return DownloadPlan.pastRetention(
            records, episodesNewestFirst: episodes, matcher: matcher, keepNewest: keepNewest)
    }
}
