import Foundation
import RefreshEngine

/// A capable terminal: one progress line redrawn in place (at most ten times a second), with new episodes, problems
/// and notable feeds printed above it, and a summary at the end.
final class LiveTerminalOutput: HumanStyle, OutputStyle {
    private var progress = BatchProgress(total: 0)
    private var progressLineVisible = false
    private var lastDraw: Date = .distantPast

    override func printLine(_ line: String) {
        clearProgressLine()
        out.write(line + "\n")
        redraw(force: true)
    }

    override func printError(_ message: String) {
        clearProgressLine()
        err.write("podfresh: \(message)\n")
        if progress.total > 0 && progress.finished < progress.total { redraw(force: true) }
    }

    override func batchStarted(total: Int) {
        progress = BatchProgress(total: total)
        redraw(force: true)
    }

    func refreshed(_ outcome: RefreshOutcome) {
        switch outcome.result {
        case .gone, .removed, .dropped: printLine(EventText.outcomeLine(outcome))
        case .updated where outcome.backlogCount > 0: printLine(EventText.outcomeLine(outcome))
        default: break
        }
        movedLines(outcome, showMove: true)
    }

    func newEpisode(_ episode: EpisodeAnnouncement, of feed: FeedTarget) {
        printLine(EventText.episodeLine(episode, of: feed, prefix: "  + "))
    }

    override func progressed(_ progress: BatchProgress) {
        self.progress = progress
        redraw(force: false)
    }

    func finished(_ summary: RefreshSummary) {
        clearProgressLine()
        out.write(EventText.summaryLine(summary) + "\n")
    }

    func idle(until next: Date?) {
        drawStatus(EventText.idle(until: next, now: now()))
    }

    private func clearProgressLine() {
        guard progressLineVisible else { return }
        out.write("\r\u{1B}[K")
        progressLineVisible = false
    }

    private func drawStatus(_ text: String) {
        clearProgressLine()
        out.write(TerminalText.truncate(text, to: 100))
        progressLineVisible = true
    }

    private func redraw(force: Bool) {
        let time = now()
        guard force || time.timeIntervalSince(lastDraw) >= 0.1 || progress.finished == progress.total else { return }
        lastDraw = time
        guard progress.total > 0, progress.finished < progress.total else {
            clearProgressLine()
            return
        }
        drawStatus(EventText.progressLine(progress))
    }
}
