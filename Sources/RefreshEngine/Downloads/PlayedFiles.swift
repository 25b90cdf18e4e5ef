public import FeedModels
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `set --delete-played on`: a downloaded file goes once its episode was played to the end on any device.
///
/// Only files the download records say podfresh wrote are deleted (the rule retention follows): a record complete
/// and on disk, by its recorded path; a file podfresh did not write is never looked at. The record is then marked
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
            for record in try await downloads.downloads(subscriptionID: subscription.id) where record.isOnDisk {
                guard let path = record.filePath,
                    states[EpisodeRef(subscriptionID: subscription.id, episodeKey: record.episodeKey)]?.played == true
                else { continue }
                if unlink(path) != 0 && errno != ENOENT {
                    publish(
                        .problem(
                            feed, .cannotDeletePlayed(path: path, reason: String(cString: strerror(errno)))))
                    continue
                }
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
}
