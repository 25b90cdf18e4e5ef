import Foundation
import RefreshEngine

/// Not a terminal (a pipe, a file, a dumb terminal): one line per finished feed and per new episode, then a summary.
final class PlainLinesOutput: HumanStyle {
    override func drawFetch(_ event: DataFetchEvent) {
        switch event {
        // The `where` binds to the second pattern only: a finished feed, or a "failed" one without a failure.
        case .fetchCompleted(let outcome),
            .fetchFailed(let outcome) where outcome.failure == nil:
            printLine(EventText.outcomeLine(outcome))
            recoveryLine(outcome)
            for line in EventText.warningLines(outcome) { printLine(line) }
            movedLines(outcome, showMove: true)
            episodeLines(outcome, prefix: "  + ")
        case .batchCompleted(let summary):
            printLine(EventText.summaryLine(summary))
        default:
            super.drawFetch(event)
        }
    }

    override func drawIdle(until next: Date?) {
        printLine(EventText.idle(until: next, now: now()))
    }

    override func drawChecking(feeds: Int) {
        printLine(EventText.checking(feeds: feeds))
    }
}
