import Foundation
import RefreshEngine

/// One way of showing a refresh: the live terminal line, plain lines, cron's quiet lines or JSON Lines. The
/// ``ConsoleRenderer`` picks one by ``OutputMode`` and hands it every event, one at a time, under its lock, so a style
/// may keep state without guarding it.
///
/// A style draws each part's events in one place: the human styles in ``HumanStyle``'s `drawFetch`, `drawDownload`,
/// `drawPodping`, `drawSync` and `drawIdle`, which each style overrides where it draws differently and which fall back
/// to what all three draw alike; the JSON Lines style in one exhaustive switch per part, so a new event gets its keys.
protocol OutputStyle: AnyObject {
    /// Draws one event.
    func draw(_ event: EngineEvent)
    /// A message outside any feed, as a whole line on standard error.
    func error(_ message: String)
}

/// What the three human styles share: where they write, and the lines they write alike.
class HumanStyle: OutputStyle {
    let out: any TextSink
    let err: any TextSink
    let now: @Sendable () -> Date
    /// `watch` and cron mode: a feed's failure that repeats its last one is counted, not printed again; a recovery
    /// is printed once.
    let quietRepeats: Bool
    /// Failures of this batch not printed again (``quietRepeats``).
    private var repeatsHeld = 0
    /// Whether this batch printed a line yet (cron mode counts its repeats only under other news).
    private(set) var printedThisBatch = false

    init(out: any TextSink, err: any TextSink, now: @escaping @Sendable () -> Date, quietRepeats: Bool = false) {
        self.out = out
        self.err = err
        self.now = now
        self.quietRepeats = quietRepeats
    }

    /// Writes a line to standard output (the live style first clears its progress line).
    func printLine(_ line: String) {
        printedThisBatch = true
        out.write(line + "\n")
    }

    /// Writes a whole line to standard error.
    func printError(_ message: String) {
        printedThisBatch = true
        err.write("podfresh: \(message)\n")
    }

    /// Whether a batch's held repeats are counted in a line even when it printed nothing else (cron mode: not).
    var countsRepeatsAlways: Bool { true }

    /// The width a new episode's line fits (it then leaves out the media URL); nil prints it whole.
    var episodeWidth: Int? { nil }

    func error(_ message: String) { printError(message) }

    /// Hands each part's events to the function that draws them; each style overrides those it draws differently.
    func draw(_ event: EngineEvent) {
        switch event {
        case .fetch(let event):
            if case .batchStarted = event { beginBatch() }
            drawFetch(event)
            if case .batchCompleted = event { endBatch(always: countsRepeatsAlways) }
        case .download(let event): drawDownload(event)
        case .hookFailed(let feed, let failure):
            printError(
                "\(TerminalText.sanitize(feed.displayName)): \(TerminalText.sanitize(EventText.hookFailure(failure)))")
        case .podping(let event): drawPodping(event)
        case .sync(let event): drawSync(event)
        case .idle(let next): drawIdle(until: next)
        case .checking(let feeds): drawChecking(feeds: feeds)
        }
    }

    /// What the three human styles draw alike of a refresh's fetches: the failures and the network verdict. Each
    /// style's own override draws the rest (the batch's start and progress show nothing here).
    func drawFetch(_ event: DataFetchEvent) {
        switch event {
        case .fetchFailed(let outcome):
            // A failure that awaits the network verdict is only final once `failuresConfirmed` says so.
            if let failure = outcome.failure, !failure.awaitsNetworkVerdict {
                failureLine(outcome.feed, failure)
            }
        case .failuresConfirmed(let outcomes):
            for outcome in outcomes {
                if let failure = outcome.failure { failureLine(outcome.feed, failure) }
            }
        case .networkOffline(let fetches):
            printError("offline: " + EventText.offline(fetches: fetches))
        case .batchStarted, .fetchStarted, .fetchCompleted, .fetchCancelled, .batchProgress, .batchCompleted:
            break
        }
    }

    /// A feed's failure on standard error; with ``quietRepeats`` one that repeats its last is only counted.
    private func failureLine(_ feed: FeedTarget, _ failure: RefreshFailure) {
        if quietRepeats && failure.isRepeat {
            repeatsHeld += 1
        } else {
            printError(EventText.failure(feed, failure))
        }
    }

    /// With ``quietRepeats``: a feed that answers again after failing says so, once.
    func recoveryLine(_ outcome: RefreshOutcome) {
        guard quietRepeats, let recovery = outcome.recovered else { return }
        printLine(EventText.recovered(outcome.feed, recovery))
    }

    /// A batch begins: nothing printed and no repeat held yet.
    func beginBatch() {
        repeatsHeld = 0
        printedThisBatch = false
    }

    /// A batch ends: how many feeds still fail as they did, not printed again (when `always`, or else only when the
    /// batch printed something else: cron mode stays silent when nothing else happened).
    func endBatch(always: Bool) {
        defer { beginBatch() }
        guard repeatsHeld > 0, always || printedThisBatch else { return }
        printError(EventText.stillFailing(repeatsHeld))
    }

    /// What the three human styles draw alike of the downloads: files done, failed, removed and skipped, problems,
    /// and the summary when it says something (queueing and progress show nothing here).
    func drawDownload(_ event: DownloadEvent) {
        switch event {
        case .problem(let feed, let problem):
            printError(
                "\(TerminalText.sanitize(feed.displayName)): \(TerminalText.sanitize(DownloadFailureText.problem(problem)))"
            )
        // The `where` binds to the second pattern only: a completed download, or a "failed" one without a failure.
        case .completed(let outcome),
            .failed(let outcome) where outcome.failure == nil:
            printLine(DownloadText.completed(outcome))
        case .failed(let outcome):
            if let failure = outcome.failure { printError(DownloadText.failed(outcome, failure)) }
        case .removed(let removal):
            printLine(DownloadText.removed(removal))
        case .skipped(let target, let skip):
            printLine(DownloadText.skipped(target, skip))
        case .filtered(let feed, let counts):
            printLine(DownloadFilterText.filtered(feed, counts))
        case .olderLeftOut(let feed, let count, let since):
            for line in DownloadText.olderLeftOut(feed, count: count, since: since) { printLine(line) }
        case .extraSaved(let outcome):
            printLine(ExtraText.saved(outcome))
        case .extraFailed(let outcome):
            printError(ExtraText.failed(outcome))
        case .tagged(let outcome):
            let (text, isError) = TagText.line(outcome)
            if isError { printError(text) } else { printLine(text) }
        case .finished(let summary):
            if DownloadText.worthSaying(summary) { printLine(DownloadText.summaryLine(summary)) }
        case .queued, .started, .progressed:
            break
        }
    }

    /// A sync event's line, if it has one: errors on standard error; the rest only where a style shows news.
    func drawSync(_ event: SyncEvent) {
        guard let (text, isError) = SyncText.line(event) else { return }
        if isError { printError(text) } else if showsPodpingNews { printLine(text) }
    }

    /// Watch mode is idle until `next`: nothing here; the plain and live styles say when the next check is.
    func drawIdle(until next: Date?) {}

    /// Watch mode begins a cycle: nothing here (cron mode prints only news); the plain and live styles say so.
    func drawChecking(feeds: Int) {}

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
            printLine(EventText.episodeLine(episode, of: outcome.feed, prefix: prefix, width: episodeWidth))
        }
        for episode in outcome.wentLive {
            printLine(EventText.liveLine(episode, of: outcome.feed))
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
