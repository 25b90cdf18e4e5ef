import FeedModels
import Foundation

/// The record of one refresh run in the store: begun before the first fetch, finished with its counts (feeds checked,
/// failed, unchanged, new episodes, bytes fetched and saved by conditional GET).
struct RunBookkeeping: Sendable {
    let runs: any RefreshRunRepository

    /// Records that a run starts at `startedAt`.
    func begin(at startedAt: Date) async throws -> RefreshRun {
        try await runs.beginRun(at: startedAt)
    }

    /// Records how `run` ended, from its `summary` and what `tally` counted.
    func finish(_ run: RefreshRun, summary: RefreshSummary, tally: RunTally) async throws {
        var run = run
        run.endedAt = summary.endedAt
        run.feedsChecked = summary.outcomes.filter { $0.result != .cancelled }.count
        run.feedsFailed = summary.networkOffline ? 0 : summary.failedCount
        run.feedsNotModified = summary.notModifiedCount
        run.newEpisodes = summary.newEpisodeCount
        run.bytesDownloaded = tally.bytesDownloaded
        run.bytesSaved = tally.bytesSaved
        run.feedsReadShort = summary.outcomes.count(where: \.readShort)
        try await runs.finishRun(run)
    }
}

/// The bytes a run fetched, and those conditional GET saved it (the size of each unchanged feed's last body).
///
/// ## Why this class is `@unchecked Sendable`
/// Every property is read and written only inside `lock.withLock {}`.
final class RunTally: @unchecked Sendable {
    private let lock = NSLock()
    private var downloaded = 0
    private var saved = 0

    func addDownloaded(_ bytes: Int) { lock.withLock { downloaded += bytes } }
    func addSaved(_ bytes: Int) { lock.withLock { saved += bytes } }
    var bytesDownloaded: Int { lock.withLock { downloaded } }
    var bytesSaved: Int { lock.withLock { saved } }
}
