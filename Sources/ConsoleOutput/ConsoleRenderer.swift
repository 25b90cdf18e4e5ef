public import Foundation
public import RefreshEngine
public import FeedParsing
import FeedStorage

/// How refresh progress is shown.
public enum OutputMode: String, Sendable, Hashable, CaseIterable {
    /// A live progress line redrawn in place, new episodes and errors printed above it.
    case tty
    /// One plain line per finished feed, then a summary.
    case plain
    /// JSON Lines: one object per event and one per new episode (see README for the keys).
    case json
    /// Cron mode: new episodes only, one line each; errors on stderr; nothing at all when nothing happened.
    case quiet

    /// The mode for the current process: `json`/`quiet` when asked, else the redrawing line on a capable terminal.
    public static func detect(json: Bool, quiet: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) -> OutputMode {
        if json { return .json }
        if quiet { return .quiet }
        let term = environment["TERM"] ?? ""
        return isatty(STDOUT_FILENO) == 1 && term != "dumb" && !term.isEmpty ? .tty : .plain
    }
}

/// Listens to ``UIUpdateService`` updates and draws them. Keeps per-feed screen state (loading, error, new
/// episodes) and the batch progress; never parses, fetches or stores anything itself.
///
/// ## Why this class is `@unchecked Sendable`
/// Its state is touched only inside `lock.withLock {}`; updates arrive one at a time from the service's delivery
/// task, and the lock also serialises direct calls such as ``showIdle(until:)`` from the watch loop.
public final class ConsoleRenderer: @unchecked Sendable {
    /// What the screen knows about one feed.
    struct FeedScreenState {
        var feed: FeedTarget
        var isLoading = false
        var error: String?
        var newEpisodes = 0
    }

    public let mode: OutputMode
    private let out: any TextSink
    private let err: any TextSink
    private let now: @Sendable () -> Date
    private let lock = NSLock()
    private var feeds: [Int64: FeedScreenState] = [:]
    private var progress = BatchProgress(total: 0)
    private var progressLineVisible = false
    private var lastDraw: Date = .distantPast
    /// Failures of unreachable hosts wait for the batch end: if the whole network is down they become one line.
    private var heldFailures: [RefreshFailed] = []
    private var networkOffline = false

    /// - Parameters:
    ///   - mode: How to draw.
    ///   - out: Standard output.
    ///   - err: Standard error.
    ///   - now: The clock used to throttle redraws and to show durations.
    public init(
        mode: OutputMode,
        out: any TextSink = StandardStream.output,
        err: any TextSink = StandardStream.error,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.mode = mode
        self.out = out
        self.err = err
        self.now = now
    }

    /// Registers this renderer's handlers with the update service.
    public func attach(to service: UIUpdateService) {
        service.register(for: BatchStarted.self) { [self] update in lock.withLock { batchStarted(update) } }
        service.register(for: FeedRefreshStarted.self) { [self] update in lock.withLock { started(update.feed) } }
        service.register(for: PodcastRefreshed.self) { [self] update in lock.withLock { refreshed(update.outcome) } }
        service.register(for: NewEpisodeFound.self) { [self] update in lock.withLock { newEpisode(update) } }
        service.register(for: RefreshFailed.self) { [self] update in lock.withLock { failed(update) } }
        service.register(for: RefreshCancelled.self) { [self] update in lock.withLock { cancelled(update.feed) } }
        service.register(for: BatchProgressed.self) { [self] update in lock.withLock { progressed(update.progress) } }
        service.register(for: NetworkWentOffline.self) { [self] update in lock.withLock { offline(update.message) } }
        service.register(for: BatchFinished.self) { [self] update in lock.withLock { finished(update.summary) } }
        service.register(for: HookFailed.self) { [self] update in lock.withLock { hookFailed(update) } }
        service.register(for: WatchIdle.self) { [self] update in lock.withLock { idle(until: update.nextCheck) } }
    }

    /// Watch mode, between cycles: says when the next check is due (a status line on a terminal, a line or a JSON
    /// `idle` event otherwise, nothing in quiet mode).
    private func idle(until next: Date?) {
        do {
            let text: String
            if let next {
                let seconds = max(0, Int(next.timeIntervalSince(now()).rounded()))
                text = "next check at \(RFC3339.string(from: next)) (in \(FeedScheduler.format(Double(seconds))))"
            } else {
                text = "nothing to check: every feed is gone or complete"
            }
            switch mode {
            case .tty: drawStatus(text)
            case .plain: out.write(text + "\n")
            case .json: out.write(JSONValue.object([("event", .string("idle")), ("next_check", .date(next))]).serialized() + "\n")
            case .quiet: break
            }
        }
    }

    /// Prints a message as a whole line on standard error (clearing the progress line first).
    public func error(_ message: String) {
        lock.withLock { printError(message) }
    }

    // MARK: - Handlers (called with the lock held)

    private func batchStarted(_ update: BatchStarted) {
        feeds.removeAll()
        heldFailures.removeAll()
        networkOffline = false
        progress = BatchProgress(total: update.total)
        if mode == .json { emit([("event", .string("batch_started")), ("total", .int(update.total))]) }
        if mode == .tty { redraw(force: true) }
    }

    private func started(_ feed: FeedTarget) {
        feeds[feed.id, default: FeedScreenState(feed: feed)].isLoading = true
        if mode == .json { emit([("event", .string("feed_started"))] + Self.feedFields(feed)) }
    }

    private func refreshed(_ outcome: RefreshOutcome) {
        var state = feeds[outcome.feed.id, default: FeedScreenState(feed: outcome.feed)]
        state.isLoading = false
        state.feed = outcome.feed
        state.newEpisodes = outcome.newEpisodeCount
        feeds[outcome.feed.id] = state
        let name = Self.safe(outcome.feed.displayName)
        switch mode {
        case .json:
            var fields: [(String, JSONValue)] = [("event", .string("feed_refreshed"))] + Self.feedFields(outcome.feed)
            fields += [
                ("status", .string(Self.status(of: outcome.result))),
                ("new_episodes", .int(outcome.newEpisodeCount)),
                ("updated_episodes", .int(Self.updatedCount(outcome.result))),
                ("moved_to", .url(outcome.movedTo)),
                ("move_refused", .string(outcome.moveRefused)),
                ("warnings", .array(outcome.warnings.map { .object([("line", .int($0.line)), ("message", .string($0.message))]) })),
                ("next_check", .date(outcome.nextCheckAt)),
                ("next_check_reason", .string(outcome.nextCheckReason)),
                ("backlog_episodes", .int(outcome.backlogCount)),
            ]
            emit(fields)
        case .plain:
            out.write(Self.plainLine(for: outcome, name: name) + "\n")
            extras(outcome, name: name)
        case .tty:
            switch outcome.result {
            case .gone, .removed: printAbove(Self.plainLine(for: outcome, name: name))
            case .updated where outcome.backlogCount > 0: printAbove(Self.plainLine(for: outcome, name: name))
            default: break
            }
            extras(outcome, name: name)
        case .quiet:
            extras(outcome, name: name)
        }
    }

    /// Moves, refused moves and hook problems: worth a line in every human mode.
    private func extras(_ outcome: RefreshOutcome, name: String) {
        if let moved = outcome.movedTo, mode != .quiet {
            printAbove("moved     \(name) → \(Self.safe(moved.absoluteString))")
        }
        if let refused = outcome.moveRefused { printError("\(name): not moved: \(Self.safe(refused))") }
        if case .gone(let message) = outcome.result, mode == .quiet {
            printError("\(name): gone: \(Self.safe(message)) (\(outcome.feed.url.absoluteString)); it will not be checked again")
        }
    }

    private func newEpisode(_ update: NewEpisodeFound) {
        let episode = update.episode.episode
        switch mode {
        case .json:
            emit([("event", .string("new_episode"))] + Self.episodeFields(feedID: update.feed.id, feedTitle: update.feed.title, episode))
        case .quiet:
            out.write(Self.episodeLine(update, prefix: "") + "\n")
        case .plain:
            out.write(Self.episodeLine(update, prefix: "  + ") + "\n")
        case .tty:
            printAbove(Self.episodeLine(update, prefix: "  + "))
        }
    }

    private func failed(_ update: RefreshFailed) {
        var state = feeds[update.outcome.feed.id, default: FeedScreenState(feed: update.outcome.feed)]
        state.isLoading = false
        state.error = update.failure.message
        feeds[update.outcome.feed.id] = state
        if mode == .json {
            emit([("event", .string("feed_failed"))] + Self.feedFields(update.outcome.feed) + [
                ("kind", .string(update.failure.kind)),
                ("message", .string(update.failure.message)),
                ("http_status", .int(update.failure.status)),
                ("next_check", .date(update.outcome.nextCheckAt)),
            ])
            return
        }
        if update.failure.kind == "unreachable" {
            heldFailures.append(update)
            return
        }
        printFailure(update)
    }

    private func printFailure(_ update: RefreshFailed) {
        let name = Self.safe(update.outcome.feed.displayName)
        var line = "\(name): \(Self.safe(update.failure.message))"
        if update.outcome.feed.title != nil { line += " (\(Self.safe(update.outcome.feed.url.absoluteString)))" }
        printError(line)
    }

    private func cancelled(_ feed: FeedTarget) {
        feeds[feed.id]?.isLoading = false
        if mode == .json { emit([("event", .string("feed_cancelled"))] + Self.feedFields(feed)) }
    }

    private func hookFailed(_ update: HookFailed) {
        if mode == .json {
            emit([("event", .string("hook_failed")), ("feed_id", .int(Int(update.feed.id))), ("message", .string(update.message))])
        } else {
            printError("\(Self.safe(update.feed.displayName)): \(Self.safe(update.message))")
        }
    }

    private func progressed(_ update: BatchProgress) {
        progress = update
        if mode == .json {
            emit([
                ("event", .string("progress")), ("finished", .int(update.finished)), ("total", .int(update.total)),
                ("running", .int(update.running.count)), ("new_episodes", .int(update.newEpisodes)),
                ("failures", .int(update.failures)),
            ])
        }
        if mode == .tty { redraw(force: false) }
    }

    private func offline(_ message: String) {
        networkOffline = true
        heldFailures.removeAll()
        if mode == .json {
            emit([("event", .string("network_offline")), ("message", .string(message))])
        } else {
            printError("offline: \(message)")
        }
    }

    private func finished(_ summary: RefreshSummary) {
        for held in heldFailures { printFailure(held) }
        heldFailures.removeAll()
        let seconds = summary.endedAt.timeIntervalSince(summary.startedAt)
        switch mode {
        case .json:
            emit([
                ("event", .string("batch_completed")),
                ("feeds", .int(summary.outcomes.count)),
                ("updated", .int(summary.updatedCount)),
                ("not_modified", .int(summary.notModifiedCount)),
                ("failed", .int(summary.networkOffline ? 0 : summary.failedCount)),
                ("new_episodes", .int(summary.newEpisodeCount)),
                ("network_offline", .bool(summary.networkOffline)),
                ("cancelled", .bool(summary.wasCancelled)),
                ("duration_seconds", .number((seconds * 1000).rounded() / 1000)),
            ])
        case .quiet:
            break
        case .plain, .tty:
            clearProgressLine()
            out.write(Self.summaryLine(summary, seconds: seconds) + "\n")
        }
    }

    // MARK: - Drawing

    private func emit(_ fields: [(String, JSONValue)]) {
        out.write(JSONValue.object(fields).serialized() + "\n")
    }

    private func printAbove(_ line: String) {
        clearProgressLine()
        out.write(line + "\n")
        if mode == .tty { redraw(force: true) }
    }

    private func printError(_ message: String) {
        clearProgressLine()
        err.write("podfresh: \(message)\n")
        if mode == .tty && progress.total > 0 && progress.finished < progress.total { redraw(force: true) }
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
        let running = progress.running.map { Self.safe($0.displayName) }
        var text = "[\(progress.finished)/\(progress.total)] \(progress.newEpisodes) new"
        if progress.failures > 0 { text += ", \(progress.failures) failed" }
        if !running.isEmpty { text += " · " + running.map { TerminalText.truncate($0, to: 24) }.joined(separator: ", ") }
        drawStatus(text)
    }

    // MARK: - Formatting

    static func safe(_ text: String) -> String { TerminalText.sanitize(text) }

    /// The keys an episode has in JSON Lines output (`new_episode` events and `podfresh episodes --json`).
    public static func episodeFields(feedID: Int64, feedTitle: String?, _ episode: ParsedEpisode) -> [(String, JSONValue)] {
        [
            ("feed_id", .int(Int(feedID))),
            ("feed_title", .string(feedTitle)),
            ("id", .string(episode.id)),
            ("guid", .string(episode.guid)),
            ("title", .string(episode.title)),
            ("link", .url(episode.link)),
            ("published", .date(episode.published)),
            ("duration", .number(episode.duration)),
            ("enclosure_url", .url(episode.enclosures.first?.url)),
            ("enclosure_type", .string(episode.enclosures.first?.type)),
        ]
    }

    static func feedFields(_ feed: FeedTarget) -> [(String, JSONValue)] {
        [("feed_id", .int(Int(feed.id))), ("url", .url(feed.url)), ("title", .string(feed.title))]
    }

    static func status(of result: RefreshResult) -> String {
        switch result {
        case .updated: return "updated"
        case .notModified: return "not_modified"
        case .gone: return "gone"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        case .offline: return "offline"
        case .removed: return "removed"
        }
    }

    static func updatedCount(_ result: RefreshResult) -> Int {
        if case .updated(_, let count) = result { return count }
        return 0
    }

    static func plainLine(for outcome: RefreshOutcome, name: String) -> String {
        switch outcome.result {
        case .updated(let new, let changed):
            var text = "updated   \(name): \(new.count) new"
            if outcome.backlogCount > 0 {
                text += " (newest only; \(outcome.backlogCount) older episode\(outcome.backlogCount == 1 ? "" : "s") stored)"
            }
            if changed > 0 { text += ", \(changed) changed" }
            if !outcome.warnings.isEmpty { text += " (\(outcome.warnings.count) warning\(outcome.warnings.count == 1 ? "" : "s"))" }
            return text
        case .notModified: return "unchanged \(name)"
        case .gone(let message): return "gone      \(name): \(safe(message)); it will not be checked again"
        case .failed(let failure): return "failed    \(name): \(safe(failure.message))"
        case .cancelled: return "cancelled \(name)"
        case .offline: return "stored    \(name)"
        case .removed: return "removed   \(name): unsubscribed during the run; nothing stored"
        }
    }

    static func episodeLine(_ update: NewEpisodeFound, prefix: String) -> String {
        let episode = update.episode.episode
        var line = prefix + safe(update.feed.displayName) + ": " + safe(episode.title ?? "(untitled episode)")
        if let published = episode.published { line += " (" + String(RFC3339.string(from: published).prefix(10)) + ")" }
        if let url = episode.enclosures.first?.urlString ?? episode.linkString { line += " " + safe(url) }
        return line
    }

    static func summaryLine(_ summary: RefreshSummary, seconds: Double) -> String {
        let feeds = summary.outcomes.count
        var parts: [String] = []
        if summary.updatedCount > 0 { parts.append("\(summary.updatedCount) updated") }
        if summary.notModifiedCount > 0 { parts.append("\(summary.notModifiedCount) unchanged") }
        let failed = summary.networkOffline ? 0 : summary.failedCount
        if failed > 0 { parts.append("\(failed) failed") }
        let gone = summary.outcomes.filter { if case .gone = $0.result { return true } else { return false } }.count
        if gone > 0 { parts.append("\(gone) gone") }
        let cancelled = summary.outcomes.filter { $0.result == .cancelled }.count
        if cancelled > 0 { parts.append("\(cancelled) cancelled") }
        let removed = summary.outcomes.filter { $0.result == .removed }.count
        if removed > 0 { parts.append("\(removed) removed during the run") }
        if summary.networkOffline { parts.append("network offline") }
        let stored = summary.outcomes.filter { $0.result == .offline }.count
        if stored > 0 { parts.append("\(stored) answered from the store (offline)") }
        let new = summary.newEpisodeCount
        let detail = parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")
        return "\(feeds) feed\(feeds == 1 ? "" : "s")\(detail); \(new) new episode\(new == 1 ? "" : "s") in \(String(format: "%.1f", seconds)) s"
    }

}
