import Foundation
import RefreshEngine

/// A capable terminal: a status area redrawn in place (at most ten times a second) under the lines printed above it
/// (new episodes, files downloaded, problems), and a summary at the end. The area holds the refresh's progress line
/// and, while files download, a line per download (bytes, rate, time left) and a total.
final class LiveTerminalOutput: HumanStyle {
    /// The terminal's width now (read at each line: a terminal may be resized).
    private let width: @Sendable () -> Int
    /// `--wide`: every line whole, as a pipe gets it (the terminal wraps what is too long).
    private let wide: Bool
    private var progress = BatchProgress(total: 0)
    private var idleText: String?
    private var areaLines = 0
    private var lastDraw: Date = .distantPast
    private var downloads = DownloadBoard()

    init(
        out: any TextSink, err: any TextSink, now: @escaping @Sendable () -> Date, quietRepeats: Bool, wide: Bool,
        width: @escaping @Sendable () -> Int
    ) {
        self.width = width
        self.wide = wide
        super.init(out: out, err: err, now: now, quietRepeats: quietRepeats)
    }

    override var episodeWidth: Int? { wide ? nil : width() }

    /// A line printed above the status area fits the terminal, cut with "…" (unless `--wide`).
    override func printLine(_ line: String) {
        clearArea()
        out.write((wide ? line : TerminalWidth.fit(line, to: width())) + "\n")
        redraw(force: true)
    }

    /// An error is wrapped to the terminal's width, never cut (unless `--wide`: whole).
    override func printError(_ message: String) {
        clearArea()
        let text = "podfresh: \(message)"
        err.write((wide ? [text] : TerminalWidth.wrap(text, to: width(), indent: 2)).joined(separator: "\n") + "\n")
        // The idle line is not drawn again: an error while idle may be the last thing before the process exits.
        idleText = nil
        redraw(force: true)
    }

    override func drawFetch(_ event: DataFetchEvent) {
        switch event {
        case .batchStarted(let total):
            progress = BatchProgress(total: total)
            idleText = nil
            redraw(force: true)
        // The `where` binds to the second pattern only: a finished feed, or a "failed" one without a failure.
        case .fetchCompleted(let outcome),
            .fetchFailed(let outcome) where outcome.failure == nil:
            switch outcome.result {
            case .gone, .removed, .dropped: printLine(EventText.outcomeLine(outcome))
            case .updated where outcome.backlogCount > 0 || outcome.endedEarly:
                printLine(EventText.outcomeLine(outcome))
                for line in EventText.warningLines(outcome) { printLine(line) }
            default: break
            }
            recoveryLine(outcome)
            movedLines(outcome, showMove: true)
            episodeLines(outcome, prefix: "  + ")
        case .batchProgress(let progress):
            self.progress = progress
            redraw(force: false)
        case .batchCompleted(let summary):
            clearArea()
            let line = EventText.summaryLine(summary)
            out.write((wide ? [line] : TerminalWidth.wrap(line, to: width())).joined(separator: "\n") + "\n")
        default:
            super.drawFetch(event)
        }
    }

    /// A line of its own, above the progress line: the scrollback shows when each cycle began.
    override func drawChecking(feeds: Int) {
        idleText = nil
        printLine(EventText.checking(feeds: feeds))
    }

    override func drawIdle(until next: Date?) {
        idleText = EventText.idle(until: next, now: now())
        redraw(force: true)
    }

    override func drawDownload(_ event: DownloadEvent) {
        switch event {
        case .queued(let count):
            downloads.queued += count
            idleText = nil
            redraw(force: true)
        case .started(let target):
            downloads.start(target)
            redraw(force: false)
        case .progressed(let report):
            downloads.update(report)
            redraw(force: false)
        case .completed(let outcome), .failed(let outcome):
            downloads.finish(outcome)
            super.drawDownload(event)
        case .finished(let summary):
            downloads = DownloadBoard()
            clearArea()
            if DownloadText.worthSaying(summary) {
                let line = DownloadText.summaryLine(summary)
                out.write((wide ? [line] : TerminalWidth.wrap(line, to: width())).joined(separator: "\n") + "\n")
            }
        default:
            super.drawDownload(event)
        }
    }

    // MARK: - The status area

    /// Erases the status area, each of its lines on its own (erase in line), from the last up to the first, leaving
    /// the cursor at the start of the first. Never "erase below" (`ESC [ J`): with the area on the screen's first row
    /// that is a clear of the whole screen, which tmux (`scroll-on-clear`) first copies into the scrollback, where
    /// the first progress line of every refresh, `[0/121] 0 new`, stayed above what followed.
    private func clearArea() {
        guard areaLines > 0 else { return }
        var text = "\r" + Self.eraseLine
        for _ in 1..<areaLines { text += "\u{1B}[1A" + Self.eraseLine }
        out.write(text)
        areaLines = 0
    }

    /// Erases the cursor's whole line (`ESC [ 2 K`).
    static let eraseLine = "\u{1B}[2K"

    private func redraw(force: Bool) {
        let time = now()
        guard force || time.timeIntervalSince(lastDraw) >= 0.1 || progress.finished == progress.total else { return }
        lastDraw = time
        let width = max(20, self.width())
        var lines: [String] = []
        if progress.total > 0 && progress.finished < progress.total {
            lines.append(EventText.progressLine(progress))
        } else if let idleText, downloads.queued == downloads.finished {
            lines.append(idleText)
        }
        lines += downloads.lines(width: width)
        clearArea()
        guard !lines.isEmpty else { return }
        // A line that wrapped would throw the count of lines to move up off: every line fits the width.
        out.write(lines.map { TerminalWidth.fit($0, to: width - 1) }.joined(separator: "\n"))
        areaLines = lines.count
    }
}

/// The downloads the live terminal shows: those running, and the totals.
struct DownloadBoard {
    var queued = 0
    var finished = 0
    var failed = 0
    /// Bytes of finished downloads in this run.
    var finishedBytes: Int64 = 0
    private var running: [(target: DownloadTarget, report: DownloadProgressReport?)] = []
    /// The most running downloads shown one per line.
    static let shownAtMost = 6

    mutating func start(_ target: DownloadTarget) {
        running.append((target, nil))
    }

    mutating func update(_ report: DownloadProgressReport) {
        guard
            let index = running.firstIndex(where: {
                $0.target.episodeKey == report.target.episodeKey && $0.target.feed.id == report.target.feed.id
            })
        else { return }
        running[index].report = report
    }

    mutating func finish(_ outcome: DownloadOutcome) {
        running.removeAll {
            $0.target.episodeKey == outcome.target.episodeKey && $0.target.feed.id == outcome.target.feed.id
        }
        finished += 1
        switch outcome.result {
        case .completed(let bytes, let resumedFrom): finishedBytes += bytes - resumedFrom
        case .failed: failed += 1
        }
    }

    /// A line per running download (at most ``shownAtMost``) and the total; none when nothing is queued.
    func lines(width: Int) -> [String] {
        guard queued > finished else { return [] }
        var lines = running.prefix(Self.shownAtMost).map {
            DownloadText.progressLine($0.report, target: $0.target, width: width)
        }
        if running.count > Self.shownAtMost { lines.append("  … and \(running.count - Self.shownAtMost) more") }
        let received = running.reduce(finishedBytes) { total, item in
            total + (item.report.map { $0.receivedBytes - $0.resumedFrom } ?? 0)
        }
        let rate = running.reduce(0) { $0 + ($1.report?.bytesPerSecond ?? 0) }
        lines.append(
            DownloadText.totalLine(finished: finished, queued: queued, failed: failed, bytes: received, rate: rate))
        return lines
    }
}
