public import Foundation

/// Everything a command's work publishes to its ``EventHub``, by the part that publishes it. Each part has its own
/// vocabulary and knows nothing of the others': the coordinator and the refresh publish ``DataFetchEvent``s, the
/// download queue ``DownloadEvent``s, the podping reader ``PodpingEvent``s, a sync ``SyncEvent``s. A new source of
/// events adds its case here and its drawing in ConsoleOutput; nothing else restates it.
public enum EngineEvent: Sendable, Hashable {
    /// A refresh's fetches: the batch, each feed, the network verdict.
    case fetch(DataFetchEvent)
    /// The media downloads (``EpisodeDownloadQueue``).
    case download(DownloadEvent)
    /// The `--exec` hook failed for one new episode of the feed (it never fails the feed).
    case hookFailed(FeedTarget, HookFailure)
    /// Something the podping reader read or did (`--podping`).
    case podping(PodpingEvent)
    /// Something a sync with the gPodder-API server did (`sync`, and `refresh`/`watch` once sync is set up).
    case sync(SyncEvent)
    /// Watch mode, after a cycle, and as it starts with nothing due: nothing runs until `nextCheck` (nil: no feed
    /// will ever be due).
    case idle(nextCheck: Date?)
    /// Watch mode, as a cycle begins: it checks `feeds` feeds now.
    case checking(feeds: Int)

    /// Which part published the event: the `source` a ``Foundation/Notification/Name/engineEvent`` notification
    /// carries.
    public var source: String {
        switch self {
        case .fetch: "fetch"
        case .download: "download"
        case .hookFailed: "hook"
        case .podping: "podping"
        case .sync: "sync"
        case .idle, .checking: "watch"
        }
    }
}
