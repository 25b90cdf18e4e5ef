public import FeedModels
public import Foundation

/// What the download queue did, published as ``EngineEvent/download(_:)``: every step of every download, the files
/// retention removed, and the run's totals.
public enum DownloadEvent: Sendable, Hashable {
    /// `count` more episodes wait to be downloaded.
    case queued(count: Int)
    /// A download began (or resumes): the request is about to go out.
    case started(DownloadTarget)
    /// A download advanced (a few times a second at most).
    case progressed(DownloadProgressReport)
    /// A file is complete under its final name and recorded.
    case completed(DownloadOutcome)
    /// A download failed; nothing was marked downloaded.
    case failed(DownloadOutcome)
    /// Retention deleted a file podfresh had downloaded.
    case removed(DownloadRemoval)
    /// An episode is not downloaded, and why (the user deleted its file by hand).
    case skipped(DownloadTarget, DownloadSkip)
    /// A feed's download filters left `FilteredCounts/total` of the episodes looked at out: they are not downloaded,
    /// and their files are neither counted by `--keep` nor deleted by `--delete-played`.
    case filtered(FeedTarget, FilteredCounts)
    /// A feed's downloads run from `since` on (`set FEED --download on`): `count` older episodes with media that its
    /// filters let through are not downloaded (`download FEED --latest N`, or `set FEED --backlog N`, asks for them).
    case olderLeftOut(FeedTarget, count: Int, since: Date)
    /// A file beside an episode (a transcript, the chapters, the artwork) was saved (`podfresh set FEED --extras on`).
    case extraSaved(ExtraOutcome)
    /// A file beside an episode could not be saved: nothing of it is kept, the episode's media file is untouched, and
    /// it is tried again after the broken-link wait.
    case extraFailed(ExtraOutcome)
    /// A downloaded file's tags were written, or were not (`podfresh set FEED --tags on|merge`): a failure leaves the
    /// file as downloaded and the episode downloaded; a container without tags is said once per feed and container.
    case tagged(TagOutcome)
    /// Something about a feed's downloads went wrong outside any one download (retention, the store).
    case problem(FeedTarget, DownloadProblem)
    /// Every queued download finished.
    case finished(DownloadSummary)
}
