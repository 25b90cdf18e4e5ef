import Foundation
import RefreshEngine

/// One way of showing a refresh: the live terminal line, plain lines, cron's quiet lines or JSON Lines. The
/// ``ConsoleRenderer`` picks one by ``OutputMode`` and hands it every event, one at a time, under its lock, so a style
/// may keep state without guarding it.
///
/// A style draws an event in one place, its ``draw(_:)``: a new ``DataFetchEvent`` case is drawn by adding it to the
/// switch of each style that has something to say about it (the JSON Lines style's switch is exhaustive; the human
/// styles fall back to what ``HumanStyle`` draws for all three, and that to nothing).
protocol OutputStyle: AnyObject {
    /// Draws one event.
    func draw(_ event: DataFetchEvent)
    /// A message outside any feed, as a whole line on standard error.
    func error(_ message: String)
}

/// What the three human styles share: where they write, and the lines they write alike.
class HumanStyle: OutputStyle {
    let out: any TextSink
    let err: any TextSink
    let now: @Sendable () -> Date

    init(out: any TextSink, err: any TextSink, now: @escaping @Sendable () -> Date) {
        self.out = out
        self.err = err
        self.now = now
    }

    /// Writes a line to standard output (the live style first clears its progress line).
    func printLine(_ line: String) { out.write(line + "\n") }

    /// Writes a whole line to standard error.
    func printError(_ message: String) { err.write("podfresh: \(message)\n") }

    func error(_ message: String) { printError(message) }

    /// What the three human styles draw alike. Each style's own `draw` handles what it draws differently and hands
    /// every other event here; what is not here (batch start and progress, the downloads' progress) shows nothing.
    func draw(_ event: DataFetchEvent) {
        switch event {
        case .fetchFailed(let outcome):
            // A failure that awaits the network verdict is only final once `failuresConfirmed` says so.
            if let failure = outcome.failure, !failure.awaitsNetworkVerdict {
                printError(EventText.failure(outcome.feed, failure))
            }
        case .failuresConfirmed(let outcomes):
            for outcome in outcomes {
                if let failure = outcome.failure { printError(EventText.failure(outcome.feed, failure)) }
            }
        case .networkOffline(let fetches):
            printError("offline: " + EventText.offline(fetches: fetches))
        case .hookFailed(let feed, let failure):
            printError(
                "\(TerminalText.sanitize(feed.displayName)): \(TerminalText.sanitize(EventText.hookFailure(failure)))")
        case .downloadProblem(let feed, let problem):
            printError(
                "\(TerminalText.sanitize(feed.displayName)): \(TerminalText.sanitize(DownloadFailureText.problem(problem)))"
            )
        // The `where` binds to the second pattern only: a completed download, or a "failed" one without a failure.
        case .downloadCompleted(let outcome),
            .downloadFailed(let outcome) where outcome.failure == nil:
            printLine(DownloadText.completed(outcome))
        case .downloadFailed(let outcome):
            if let failure = outcome.failure { printError(DownloadText.failed(outcome, failure)) }
        case .downloadRemoved(let removal):
            printLine(DownloadText.removed(removal))
        case .downloadSkipped(let target, let skip):
            printLine(DownloadText.skipped(target, skip))
        case .downloadsFinished(let summary):
            if DownloadText.worthSaying(summary) { printLine(DownloadText.summaryLine(summary)) }
        case .podping(let event):
            drawPodping(event)
        case .sync(let event):
            guard let (text, isError) = SyncText.line(event) else { break }
            if isError { printError(text) } else if showsPodpingNews { printLine(text) }
        case .batchStarted, .fetchStarted, .fetchCompleted, .fetchCancelled, .batchProgress, .batchCompleted, .idle,
            .downloadsQueued, .downloadStarted, .downloadProgressed:
            break
        }
    }

    /// A podping event's line, if it has one: errors on standard error; the rest only where a style shows them.
    func drawPodping(_ event: PodpingEvent) {
        guard let (text, isError) = PodpingText.line(event) else { return }
        if isError { printError(text) } else if showsPodpingNews { printLine(text) }
    }

    /// Whether podping's news (a feed matched, where reading starts, who holds the lease) is printed; cron mode
    /// prints only problems.
    var showsPodpingNews: Bool { true }

    /// The lines of a new episode of `feed`, one each.
    func episodeLines(_ outcome: RefreshOutcome, prefix: String) {
        for episode in outcome.newEpisodes {
            printLine(EventText.episodeLine(episode, of: outcome.feed, prefix: prefix))
        }
    }

    /// A move, a refused move: worth a line in every human style (quiet leaves out the move itself).
    func movedLines(_ outcome: RefreshOutcome, showMove: Bool) {
        let name = TerminalText.sanitize(outcome.feed.displayName)
        if let moved = outcome.movedTo, showMove {
            printLine("moved     \(name) → \(TerminalText.sanitize(moved.absoluteString))")
        }
        if let refused = outcome.moveRefused {
            printError("\(name): not moved: \(TerminalText.sanitize(MoveText.refusal(refused)))")
        }
    }
}
