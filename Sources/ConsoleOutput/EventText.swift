import FeedParsing
import Foundation
import Measures
import RefreshEngine

/// The lines the human styles print for events: every feed-supplied text goes through ``TerminalText/sanitize(_:)``.
enum EventText {
    static func safe(_ text: String) -> String { TerminalText.sanitize(text) }

    /// One finished feed: `updated   Name: 2 new`, `unchanged Name`, `gone      Name: …`.
    static func outcomeLine(_ outcome: RefreshOutcome) -> String {
        let name = safe(outcome.feed.displayName)
        switch outcome.result {
        case .updated where !outcome.storedChanges:
            var text = "unchanged \(name)"
            if !outcome.warnings.isEmpty {
                text += " (\(outcome.warnings.count) warning\(outcome.warnings.count == 1 ? "" : "s"))"
            }
            return text
        case .updated(let new, let changed):
            var text = "updated   \(name): \(new.count) new"
            if outcome.backlogCount > 0 {
                text +=
                    " (newest only; \(outcome.backlogCount) older episode\(outcome.backlogCount == 1 ? "" : "s") stored)"
            }
            if changed > 0 { text += ", \(changed) changed" }
            if !outcome.warnings.isEmpty {
                text += " (\(outcome.warnings.count) warning\(outcome.warnings.count == 1 ? "" : "s"))"
            }
            return text
        case .notModified: return "unchanged \(name)"
        case .gone(let error):
            return "gone      \(name): \(safe(FetchFailureText.line(error))); it will not be checked again"
        case .failed(let failure): return "failed    \(name): \(safe(FeedFailureText.line(failure)))"
        case .cancelled: return "cancelled \(name)"
        case .offline: return "stored    \(name)"
        case .removed: return "removed   \(name): unsubscribed during the run; nothing stored"
        case .dropped(let error): return "dropped   \(name): \(safe(StoreErrorText.line(error)))"
        }
    }

    /// A failed feed, for standard error: its name, the cause and, when it has a title, its URL.
    static func failure(_ feed: FeedTarget, _ failure: RefreshFailure) -> String {
        var line = "\(safe(feed.displayName)): \(safe(FeedFailureText.line(failure)))"
        if let remedy = failure.remedy { line += " (" + ErrorText.remedy(remedy) + ")" }
        if feed.title != nil { line += " (\(safe(feed.url.absoluteString)))" }
        return line
    }

    /// A new episode: feed, title, date and media (or web page) address.
    ///
    /// With a `width` (a terminal, not `--wide`) the line fits it and leaves the address out: the feed's name takes
    /// at most a third of it, the title what is left, the date stays whole.
    static func episodeLine(
        _ episode: EpisodeAnnouncement, of feed: FeedTarget, prefix: String, width: Int? = nil
    ) -> String {
        let date = episode.published.map { " (" + LocalTime.day($0) + ")" } ?? ""
        let title = safe(episode.title ?? "(untitled episode)")
        guard let width else {
            var line = prefix + safe(feed.displayName) + ": " + title + date
            if let url = episode.enclosure?.urlString ?? episode.linkString { line += " " + safe(url) }
            return line
        }
        let name = TerminalWidth.fit(safe(feed.displayName), to: max(8, width / 3))
        let head = prefix + name + ": "
        let room = width - TerminalWidth.of(head) - TerminalWidth.of(date)
        return TerminalWidth.fit(head + TerminalWidth.fit(title, to: max(1, room)) + date, to: width)
    }

    /// A show that went live (`podcast:liveItem status="live"`): `live now Show: Title (https://stream…)`.
    static func liveLine(_ episode: EpisodeAnnouncement, of feed: FeedTarget) -> String {
        var line = "live now  " + safe(feed.displayName) + ": " + safe(episode.title ?? "(untitled live stream)")
        if let url = episode.linkString ?? episode.enclosure?.urlString { line += " " + safe(url) }
        return line
    }

    /// A feed that answers again after failing (`watch`, cron mode), once:
    /// `recovered Name: answers again after 3 failed checks (last: HTTP 503 Service Unavailable)`.
    static func recovered(_ feed: FeedTarget, _ recovery: RefreshOutcome.Recovery) -> String {
        let checks = recovery.failures == 1 ? "1 failed check" : "\(recovery.failures) failed checks"
        let last = FeedFailureText.stored(recovery.lastError).map { " (last: \(safe($0)))" } ?? ""
        return "recovered \(safe(feed.displayName)): answers again after \(checks)\(last)"
    }

    /// The feeds whose failure repeats their last, counted instead of printed again (`watch`, cron mode).
    static func stillFailing(_ count: Int) -> String {
        "\(count) feed\(count == 1 ? "" : "s") still failing as before; `podfresh status` shows why"
    }

    /// How many of a feed's parser warnings are printed under its line.
    static let warningsShown = 3

    /// One parser warning: "line 12: …", or the message alone for line 0 (a warning about the whole document, its
    /// encoding or repeated ids, not one place in it).
    static func warning(_ warning: ParseWarning) -> String {
        (warning.line > 0 ? "line \(warning.line): " : "") + safe(ParseWarningText.message(warning))
    }

    /// The lines under a feed's line that show its parser warnings (at most ``warningsShown``, then how many more).
    static func warningLines(_ outcome: RefreshOutcome) -> [String] {
        var lines = outcome.warnings.prefix(warningsShown).map { "  warning: " + warning($0) }
        let more = outcome.warnings.count - warningsShown
        if more > 0 {
            lines.append(
                "  … and \(more) more warning\(more == 1 ? "" : "s") (`podfresh parse \(safe(outcome.feed.url.absoluteString))` shows them all)"
            )
        }
        return lines
    }

    /// The run's last line: counts by result, new episodes and the time taken; when nothing was due, when the next
    /// feed is.
    static func summaryLine(_ summary: RefreshSummary) -> String {
        switch summary.nothingDue {
        case .nextAt(let next):
            return
                "nothing due: the next feed is due at \(LocalTime.string(next)) (\(fromNow(next, now: summary.endedAt))); "
                + checkAnyway
        case .never:
            return "nothing due: every feed is gone or complete; `podfresh refresh FEED` checks one anyway"
        case nil:
            break
        }
        let seconds = summary.endedAt.timeIntervalSince(summary.startedAt)
        let feeds = summary.outcomes.count
        var parts: [String] = []
        // "Updated" only where something was stored; a body read short or merged without a change is unchanged.
        if summary.changedCount > 0 { parts.append("\(summary.changedCount) updated") }
        if summary.unchangedCount > 0 { parts.append("\(summary.unchangedCount) unchanged") }
        let failed = summary.networkOffline ? 0 : summary.failedCount
        if failed > 0 { parts.append("\(failed) failed") }
        let gone = summary.outcomes.filter { if case .gone = $0.result { return true } else { return false } }.count
        if gone > 0 { parts.append("\(gone) gone") }
        let cancelled = summary.outcomes.filter { $0.result == .cancelled }.count
        if cancelled > 0 { parts.append("\(cancelled) cancelled") }
        let removed = summary.outcomes.filter { $0.result == .removed }.count
        if removed > 0 { parts.append("\(removed) removed during the run") }
        let dropped = summary.outcomes.filter { if case .dropped = $0.result { return true } else { return false } }
            .count
        if dropped > 0 { parts.append("\(dropped) dropped (lease ran out)") }
        let endedEarly = summary.outcomes.count(where: \.endedEarly)
        if endedEarly > 0 { parts.append("\(endedEarly) ended early (cut off)") }
        if summary.networkOffline { parts.append("network offline") }
        let stored = summary.outcomes.filter { $0.result == .offline }.count
        if stored > 0 { parts.append("\(stored) answered from the store (offline)") }
        let new = summary.newEpisodeCount
        let detail = parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")
        return
            "\(feeds) feed\(feeds == 1 ? "" : "s")\(detail); \(new) new episode\(new == 1 ? "" : "s") in \(Measure.duration(seconds: seconds))"
    }

    /// How to check when nothing is due.
    static let checkAnyway = "to check anyway: `podfresh refresh --all`, or name a feed: `podfresh refresh FEED`"

    /// The live progress line: `[3/10] 2 new, 1 failed · Feed A, Feed B`.
    static func progressLine(_ progress: BatchProgress) -> String {
        let running = progress.running.map { safe($0.displayName) }
        var text = "[\(progress.finished)/\(progress.total)] \(progress.newEpisodes) new"
        if progress.failures > 0 { text += ", \(progress.failures) failed" }
        if !running.isEmpty {
            text += " · " + running.map { TerminalText.truncate($0, to: 24) }.joined(separator: ", ")
        }
        return text
    }

    /// Why no feed was blamed: the network itself was down for every one of the batch's `fetches` network fetches.
    static func offline(fetches: Int) -> String {
        "the network is unreachable: none of \(fetches) feed hosts could be resolved or connected to; no feed was counted as failing"
    }

    /// Watch mode, as a cycle begins.
    static func checking(feeds: Int) -> String {
        "checking \(feeds) feed\(feeds == 1 ? "" : "s") now"
    }

    /// Watch mode between cycles.
    static func idle(until next: Date?, now: Date) -> String {
        // A complete feed is next due at `distantFuture` (year 4001): that is never, not "in 721025d".
        guard let next, next < .distantFuture else { return "nothing to check: every feed is gone or complete" }
        return "next check at \(LocalTime.string(next)) (\(fromNow(next, now: now)))"
    }

    /// `in 2h 5m`: how long until `date`, to the second.
    static func fromNow(_ date: Date, now: Date) -> String {
        "in " + Measure.duration(seconds: max(0, date.timeIntervalSince(now).rounded()))
    }

    /// A failed `--exec` hook, naming the episode and how the hook ended:
    /// `hook for "Title": timed out after 30s and was stopped with the processes it started (--exec-timeout)`.
    static func hookFailure(_ failure: HookFailure) -> String {
        let result = failure.result
        let problem: String
        if let failure = result.launchFailure {
            problem = "could not run: " + HookLaunchText.line(failure)
        } else if result.timedOut {
            let limit = result.timeout.map { " after \(Measure.duration($0))" } ?? ""
            problem = "timed out\(limit) and was stopped with the processes it started (--exec-timeout)"
        } else {
            let tail = result.stderrTail.split(separator: "\n").last.map { ": \($0)" } ?? ""
            problem = "exited with status \(result.exitStatus)\(tail)"
        }
        return "hook for \"\(failure.episode)\": \(problem)"
    }
}
