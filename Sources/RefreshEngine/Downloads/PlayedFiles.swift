public import FeedModels
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `set --delete-played on`: a downloaded file goes once its episode was played to the end on any device.
///
/// Only files the download records say podfresh wrote are deleted (the rule retention follows): a record complete
/// and on disk, by its recorded path; a file podfresh did not write is never looked at. On a feed with download
/// filters, the files of episodes the filters leave out are not considered (a filter never deletes a file). The record is then marked
/// removed (so the episode is not downloaded again), and each deletion is published as a download event `removed`
/// with the reason ``DownloadRemoval/Reason/played``.
public enum PlayedFiles {
    /// Deletes `subscription`'s recorded files whose episodes were played to the end; does nothing when the feed does
    /// not delete played files. `states` are the feed's play states when the caller has read them already.
    /// - Returns: How many files were deleted (or found gone and marked).
    @discardableResult
    public static func delete(
        of subscription: Subscription, downloads: any DownloadRepository, actions: any EpisodeActionRepository,
        states known: [EpisodeRef: EpisodePlayState]? = nil, publish: @Sendable (DownloadEvent) -> Void
    ) async -> Int {
        guard subscription.deletePlayed else { return 0 }
        let feed = FeedTarget(subscription: subscription)
        var removed = 0
        do {
            let states: [EpisodeRef: EpisodePlayState]
            if let known {
                states = known
            } else {
                states = try await actions.playStates(subscriptionID: subscription.id)
            }
            guard states.values.contains(where: \.played) else { return 0 }
            let leftOut = try await keysLeftOut(by: subscription, episodes: downloads as? any EpisodeRepository)
            for record in try await downloads.downloads(subscriptionID: subscription.id) where record.isOnDisk {
                guard let path = record.filePath, leftOut?.contains(record.episodeKey) == false,
                    states[EpisodeRef(subscriptionID: subscription.id, episodeKey: record.episodeKey)]?.played == true
                else { continue }
                if unlink(path) != 0 && errno != ENOENT {
                    publish(
                        .problem(
                            feed, .cannotDeletePlayed(path: path, reason: String(cString: strerror(errno)))))
                    continue
                }
                await EpisodeExtras.remove(
                    subscriptionID: subscription.id, episodeKey: record.episodeKey, store: downloads)
                if try await downloads.markRemovedByRetention(
                    subscriptionID: subscription.id, episodeKey: record.episodeKey)
                {
                    removed += 1
                    publish(
                        .removed(
                            DownloadRemoval(
                                feed: feed, episodeKey: record.episodeKey, file: path, keepNewest: nil, reason: .played
                            )))
                }
            }
        } catch {
            publish(.problem(feed, .playedNotDeleted(StoreError.wrapping(error))))
        }
        return removed
    }

    /// The keys of the feed's episodes its filters leave out (their files are not considered); empty when it has no
    /// filter; nil when they cannot be known (a broken stored pattern, or no episodes to judge): nothing is deleted.
    private static func keysLeftOut(
        by subscription: Subscription, episodes: (any EpisodeRepository)?
    ) async throws -> Set<String>? {
        guard !subscription.downloadFilter.isEmpty else { return [] }
        guard let episodes, let matcher = try? DownloadFilterMatcher(subscription.downloadFilter) else { return nil }
        let all = try await episodes.episodes(EpisodeQuery(subscriptionID: subscription.id))
        return Set(all.filter { !matcher.passes($0.episode) }.map(\.key))
    }
}
