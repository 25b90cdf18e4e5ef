public import EpisodeDownloads
import FeedModels
import FeedParsing
import Foundation
import Measures

/// What became of one downloaded file's tags (`podfresh set FEED --tags on|merge`).
public struct TagOutcome: Sendable, Hashable {
    public enum Result: Sendable, Hashable {
        /// The tags are in the file (`id3v2.4` or `mp4`); `withImage` when the cover is embedded too.
        case tagged(format: String, withImage: Bool)
        /// The file's container takes no tags podfresh writes (`container`: what its first bytes show, when known):
        /// left untouched. Said once per feed and container in a run.
        case notTaggable(container: String?)
        /// Writing failed: the file is as it was downloaded, and the episode stays downloaded.
        case failed(TagWriteError)
    }

    /// The episode, with its file.
    public var target: DownloadTarget
    public var result: Result

    public init(target: DownloadTarget, result: Result) {
        self.target = target
        self.result = result
    }
}

/// Writes an episode's tags into its verified file; a failure is reported and counted and never fails the episode.
struct EpisodeTagging: Sendable {
    let downloader: MediaDownloader

    /// The tags for `episode` of `subscription`: the podcast as album, the feed's author as artist (else the
    /// podcast), episode and season as track and disc, the show notes as plain text.
    static func tags(_ episode: StoredEpisode, of subscription: Subscription) -> EpisodeTags {
        let e = episode.episode
        let notes = e.description ?? e.summary
        let plain = notes.map { PlainText.from(html: $0, limit: EpisodeTags.descriptionLimit) }
        return EpisodeTags(
            title: e.title, album: subscription.title, artist: subscription.author ?? subscription.title,
            track: e.episode, disc: e.season, date: e.published,
            description: plain?.isEmpty == false ? plain : nil, link: e.linkString, guid: e.guid ?? e.id)
    }

    /// Tags the file at `path` (`bytes` long, as verified) for `episode`.
    func tag(
        _ episode: StoredEpisode, of subscription: Subscription, path: String, bytes: Int64, target: DownloadTarget
    ) async -> TagOutcome {
        var tags = Self.tags(episode, of: subscription)
        if let image = episode.episode.image ?? subscription.image {
            // A cover that cannot be fetched leaves the other tags to be written without it.
            tags.image = try? await downloader.fetchArtwork(image)
        }
        let merge = subscription.tagMode == .merge
        let result: Result<MediaTagger.Result, TagWriteError>
        do throws(TagWriteError) {
            result = .success(
                try await MediaTagger.tagOffPool(
                    URL(fileURLWithPath: path), with: tags, merge: merge, expectedSize: bytes))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(.tagged(let format)):
            return TagOutcome(target: target, result: .tagged(format: format.rawValue, withImage: tags.image != nil))
        case .success(.notTaggable(let container)):
            return TagOutcome(target: target, result: .notTaggable(container: container?.rawValue))
        case .failure(let error):
            return TagOutcome(target: target, result: .failed(error))
        }
    }
}
