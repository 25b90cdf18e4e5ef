import Foundation
import RefreshEngine

/// One way of showing a refresh: the live terminal line, plain lines, cron's quiet lines or JSON Lines. The
/// ``ConsoleRenderer`` picks one by ``OutputMode`` and calls it one update at a time, under its lock, so a style may
/// keep state without guarding it.
protocol OutputStyle: AnyObject {
    func batchStarted(total: Int)
    func feedStarted(_ feed: FeedTarget)
    func refreshed(_ outcome: RefreshOutcome)
    func newEpisode(_ episode: EpisodeAnnouncement, of feed: FeedTarget)
    /// A failure; one that awaits the network verdict is only final once ``failuresConfirmed(_:)`` says so.
    func failed(_ outcome: RefreshOutcome, _ failure: RefreshFailure)
    /// The network was up after all: these held failures stand.
    func failuresConfirmed(_ failed: [RefreshFailed])
    func cancelled(_ feed: FeedTarget)
    func progressed(_ progress: BatchProgress)
    func offline(_ message: String)
    func finished(_ summary: RefreshSummary)
    func hookFailed(_ feed: FeedTarget, message: String)
    func idle(until next: Date?)
    /// A message outside any feed, as a whole line on standard error.
    func error(_ message: String)
    func downloadsQueued(count: Int)
    func downloadStarted(_ target: DownloadTarget)
    func downloadProgressed(_ report: DownloadProgressReport)
    func downloaded(_ outcome: DownloadOutcome)
    func downloadFailed(_ outcome: DownloadOutcome, _ failure: DownloadFailure)
    func fileRemoved(_ removal: DownloadRemoval)
    func downloadSkipped(_ target: DownloadTarget, reason: String)
    func downloadProblem(_ feed: FeedTarget, message: String)
    func downloadsFinished(_ summary: DownloadSummary)
}

/// What the three human styles share: where they write, and the lines they write alike.
class HumanStyle {
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

    func failed(_ outcome: RefreshOutcome, _ failure: RefreshFailure) {
        if !failure.awaitsNetworkVerdict { printError(EventText.failure(outcome.feed, failure)) }
    }

    func failuresConfirmed(_ failed: [RefreshFailed]) {
        for update in failed { printError(EventText.failure(update.outcome.feed, update.failure)) }
    }

    func offline(_ message: String) { printError("offline: \(message)") }

    func hookFailed(_ feed: FeedTarget, message: String) {
        printError("\(TerminalText.sanitize(feed.displayName)): \(TerminalText.sanitize(message))")
    }

    func error(_ message: String) { printError(message) }

    func batchStarted(total: Int) {}
    func feedStarted(_ feed: FeedTarget) {}
    func cancelled(_ feed: FeedTarget) {}
    func progressed(_ progress: BatchProgress) {}

    func downloadsQueued(count: Int) {}
    func downloadStarted(_ target: DownloadTarget) {}
    func downloadProgressed(_ report: DownloadProgressReport) {}

    func downloaded(_ outcome: DownloadOutcome) { printLine(DownloadText.completed(outcome)) }

    func downloadFailed(_ outcome: DownloadOutcome, _ failure: DownloadFailure) {
        printError(DownloadText.failed(outcome, failure))
    }

    func fileRemoved(_ removal: DownloadRemoval) { printLine(DownloadText.removed(removal)) }

    func downloadSkipped(_ target: DownloadTarget, reason: String) {
        printLine(DownloadText.skipped(target, reason: reason))
    }

    func downloadProblem(_ feed: FeedTarget, message: String) {
        printError("\(TerminalText.sanitize(feed.displayName)): \(TerminalText.sanitize(message))")
    }

    func downloadsFinished(_ summary: DownloadSummary) {
        if DownloadText.worthSaying(summary) { printLine(DownloadText.summaryLine(summary)) }
    }

    /// A move, a refused move: worth a line in every human style (quiet leaves out the move itself).
    func movedLines(_ outcome: RefreshOutcome, showMove: Bool) {
        let name = TerminalText.sanitize(outcome.feed.displayName)
        if let moved = outcome.movedTo, showMove {
            printLine("moved     \(name) → \(TerminalText.sanitize(moved.absoluteString))")
        }
        if let refused = outcome.moveRefused { printError("\(name): not moved: \(TerminalText.sanitize(refused))") }
    }
}
