import FeedModels
import Measures

/// What happens after a feed's check is stored: its new episodes' `--exec` hooks, and with `--download` the
/// downloads of a feed whose downloads are on (then each new episode's hook waits for its download, to be given
/// `PODFRESH_FILE`).
struct AfterMerge: Sendable {
    let hooks: HookQueue?
    let downloads: EpisodeDownloadQueue?
    let publish: @Sendable (DownloadEvent) -> Void

    /// `subscription` was checked and stored as `feed` (its title and address after the merge), announcing
    /// `announced`.
    ///
    /// With downloads on, what is downloaded is the not-yet-downloaded among the feed's newest
    /// max(new episodes, keep newest N, else 1): the new episodes, and an earlier download that failed or was cut
    /// short, resumed; of a feed whose downloads run from a time on, only those that arrived since (the new ones
    /// among them) and its backlog.
    func merged(
        _ subscription: Subscription, as feed: FeedTarget, announced: [EpisodeAnnouncement], feedTitle: String?
    )
        async
    {
        let hookEpisodes = hooks.map { _ in
            announced.map { HookQueue.hookEpisode($0, of: feed, feedTitle: feedTitle) }
        }
        guard let downloads, subscription.downloadsEnabled else {
            for episode in hookEpisodes ?? [] { hooks?.enqueue(episode, of: feed) }
            return
        }
        var current = subscription
        current.title = feed.title
        current.url = feed.url
        let newest = max(announced.count, subscription.keepNewest ?? 1)
        do {
            let episodes = try await downloads.plan(current, newest: newest, announced: Set(announced.map(\.key)))
            let queued = Set(episodes.map(\.key))
            // Hooks of new episodes that are not downloaded run now, without a file.
            for episode in hookEpisodes ?? [] where !queued.contains(episode.identity) {
                hooks?.enqueue(episode, of: feed)
            }
            let byKey = Dictionary(
                (hookEpisodes ?? []).map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
            downloads.enqueue(episodes, of: current, hooks: byKey, heldUntilReleased: true)
        } catch {
            publish(.problem(feed, .notStarted(StoreError.wrapping(error))))
            for episode in hookEpisodes ?? [] { hooks?.enqueue(episode, of: feed) }
        }
    }

    /// The coordinator published `outcome`: the feed's downloads, held so that they are told after it, may start.
    func published(_ outcome: RefreshOutcome) {
        downloads?.release(feedID: outcome.feed.id)
    }
}
