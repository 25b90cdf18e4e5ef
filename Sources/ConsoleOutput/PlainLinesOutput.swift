import Foundation
import RefreshEngine

/// Not a terminal (a pipe, a file, a dumb terminal): one line per finished feed and per new episode, then a summary.
/// On a terminal without a progress line (`add`), the same lines fitted to its width: cut with "…", errors wrapped.
final class PlainLinesOutput: HumanStyle {
    /// The terminal's width, when the lines fit one; nil prints them whole.
    private let width: (@Sendable () -> Int)?

    init(
        out: any TextSink, err: any TextSink, now: @escaping @Sendable () -> Date, quietRepeats: Bool = false,
        width: (@Sendable () -> Int)? = nil
    ) {
        self.width = width
        super.init(out: out, err: err, now: now, quietRepeats: quietRepeats)
    }

    override var episodeWidth: Int? { width?() }

    override func printLine(_ line: String) {
        super.printLine(width.map { TerminalWidth.fit(line, to: $0()) } ?? line)
    }

    override func printError(_ message: String) {
        guard let width else { return super.printError(message) }
        // Wrapped, never cut: a cause is read whole.
        let lines = TerminalWidth.wrap("podfresh: \(message)", to: width(), indent: 2)
        super.printError(String(lines.joined(separator: "\n").dropFirst("podfresh: ".count)))
    }

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
