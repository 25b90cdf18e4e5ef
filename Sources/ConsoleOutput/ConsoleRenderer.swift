public import Foundation
public import RefreshEngine

/// Listens to ``UIUpdateService`` updates and hands each to the style of its ``OutputMode`` (live terminal, plain
/// lines, quiet, JSON Lines). It never parses, fetches or stores anything, and holds nothing back: the engine decides
/// which failures wait for the network verdict.
///
/// ## Why this class is `@unchecked Sendable`
/// The style (which keeps the progress line's state) is touched only inside `lock.withLock {}`; updates arrive one at
/// a time from the service's delivery task, and the lock also serialises direct calls such as ``error(_:)``.
public final class ConsoleRenderer: @unchecked Sendable {
    public let mode: OutputMode
    private let lock = NSLock()
    private let style: any OutputStyle

    /// - Parameters:
    ///   - mode: How to draw.
    ///   - out: Standard output.
    ///   - err: Standard error.
    ///   - now: The clock used to throttle redraws and to say when the next check is.
    public init(
        mode: OutputMode,
        out: any TextSink = StandardStream.output,
        err: any TextSink = StandardStream.error,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.mode = mode
        switch mode {
        case .tty: style = LiveTerminalOutput(out: out, err: err, now: now)
        case .plain: style = PlainLinesOutput(out: out, err: err, now: now)
        case .quiet: style = QuietOutput(out: out, err: err, now: now)
        case .json: style = JSONLinesOutput(out: out, err: err)
        }
    }

    /// Registers this renderer's handlers with the update service.
    public func attach(to service: UIUpdateService) {
        on(BatchStarted.self, service) { $0.batchStarted(total: $1.total) }
        on(FeedRefreshStarted.self, service) { $0.feedStarted($1.feed) }
        on(PodcastRefreshed.self, service) { $0.refreshed($1.outcome) }
        on(NewEpisodeFound.self, service) { $0.newEpisode($1.episode, of: $1.feed) }
        on(RefreshFailed.self, service) { $0.failed($1.outcome, $1.failure) }
        on(FailuresConfirmed.self, service) { $0.failuresConfirmed($1.failed) }
        on(RefreshCancelled.self, service) { $0.cancelled($1.feed) }
        on(BatchProgressed.self, service) { $0.progressed($1.progress) }
        on(NetworkWentOffline.self, service) { $0.offline($1.message) }
        on(BatchFinished.self, service) { $0.finished($1.summary) }
        on(HookFailed.self, service) { $0.hookFailed($1.feed, message: $1.message) }
        on(WatchIdle.self, service) { $0.idle(until: $1.nextCheck) }
        on(EpisodeDownloadsQueued.self, service) { $0.downloadsQueued(count: $1.count) }
        on(EpisodeDownloadStarted.self, service) { $0.downloadStarted($1.target) }
        on(EpisodeDownloadProgressed.self, service) { $0.downloadProgressed($1.report) }
        on(EpisodeDownloaded.self, service) { $0.downloaded($1.outcome) }
        on(EpisodeDownloadFailed.self, service) { $0.downloadFailed($1.outcome, $1.failure) }
        on(EpisodeFileRemoved.self, service) { $0.fileRemoved($1.removal) }
        on(EpisodeDownloadSkipped.self, service) { $0.downloadSkipped($1.target, reason: $1.reason) }
        on(DownloadProblem.self, service) { $0.downloadProblem($1.feed, message: $1.message) }
        on(DownloadsFinished.self, service) { $0.downloadsFinished($1.summary) }
    }

    /// Prints a message as a whole line on standard error (clearing the progress line first).
    public func error(_ message: String) {
        lock.withLock { style.error(message) }
    }

    private func on<Update: UIUpdate>(
        _ type: Update.Type, _ service: UIUpdateService, _ draw: @escaping @Sendable (any OutputStyle, Update) -> Void
    ) {
        service.register(for: type) { [self] update in lock.withLock { draw(style, update) } }
    }
}
