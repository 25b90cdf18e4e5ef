import EpisodeDownloads
import FeedModels
import FeedParsing
import Foundation
import Measures
import RefreshEngine

/// The lines the human styles print for downloads: every feed-supplied text goes through ``TerminalText/sanitize(_:)``.
enum DownloadText {
    private static func safe(_ text: String) -> String { TerminalText.sanitize(text) }
    private static func bytes(_ count: Int64) -> String { Measure.bytes(count) }

    /// `Feed: Title`.
    static func name(_ target: DownloadTarget) -> String {
        safe(target.feed.displayName) + ": " + safe(target.displayTitle)
    }

    /// A complete file: `downloaded Feed: Title → /path (12.3 MB in 4.1s)`.
    static func completed(_ outcome: DownloadOutcome) -> String {
        var line = "downloaded \(name(outcome.target)) → \(safe(outcome.target.file))"
        if case .completed(let size, let resumedFrom) = outcome.result {
            line += " (\(bytes(size))"
            if let container = outcome.container { line += ", " + containerName(container) }
            if resumedFrom > 0 { line += ", resumed at \(bytes(resumedFrom))" }
            line += " in " + Measure.duration(seconds: outcome.seconds) + ")"
        }
        return line
    }

    /// A failed download, for standard error: the episode, the cause and the option that changes the limit hit; for
    /// a broken link, how often it failed and when it is tried again.
    static func failed(_ outcome: DownloadOutcome, _ failure: DownloadFailure, now: Date = Date()) -> String {
        var line = "\(name(outcome.target)): download failed: \(safe(DownloadFailureText.line(failure)))"
        if let remedy = remedy(kind: failure.kind) { line += " (" + remedy + ")" }
        if let retryAfter = failure.retryAfter {
            let count = inARow(failure.failures)
            line += failure.permanent ? "; a broken link (\(count)): next try after " : "; \(count): next try after "
            line += LocalTime.string(retryAfter) + " (" + EventText.fromNow(retryAfter, now: now) + ")"
            line += "; `podfresh download --retry` tries it now"
        }
        return line
    }

    /// A download waiting after failures: `waiting after a broken link (failed 2 times in a row: …): next try after
    /// …`, or `waiting after a failure (…)` for one that may pass by itself.
    static func waiting(retryAfter: Date, failures: Int, error: String?, now: Date) -> String {
        let after = DownloadFailure.isBrokenLink(stored: error) ? "a broken link" : "a failure"
        let cause = DownloadFailureText.stored(error).map { ": " + safe($0) } ?? ""
        return
            "waiting after \(after) (\(inARow(failures))\(cause)): next try after \(LocalTime.string(retryAfter)) ("
            + EventText.fromNow(retryAfter, now: now) + "; `podfresh download --retry` tries it now)"
    }

    /// A feed whose downloads run from a time on, and the older episodes it leaves out, in two lines that each fit a
    /// terminal: `older      Feed: 31 earlier episodes not downloaded (downloads on since 2026-12-07T22:30:00Z)`, then
    /// `           get them with `podfresh download 3 --latest N` (or `set 3 --backlog all`)`.
    static func olderLeftOut(_ feed: FeedTarget, count: Int, since: Date) -> [String] {
        let episodes = count == 1 ? "1 earlier episode" : "\(count) earlier episodes"
        return [
            "older      \(safe(feed.displayName)): \(episodes) not downloaded (downloads on since "
                + LocalTime.string(since) + ")",
            "           get them with `podfresh download \(feed.id) --latest N` (or `set \(feed.id) --backlog all`)",
        ]
    }

    /// What a user can change about a failure of `kind` (``DownloadFailure/kind``), in the options' words.
    static func remedy(kind: String) -> String? {
        switch kind {
        case "no_response": "the limit is --first-byte-timeout"
        case "stalled": "the limit is --stall-timeout"
        case "too_slow": "the limits are --min-rate and --min-rate-window"
        case "not_enough_space", "disk_full":
            "free some space, or download elsewhere with --dir or `podfresh set FEED --dir`"
        default: nil
        }
    }

    /// A container as people call it: `MP3`, `MP4`, `Ogg`, ….
    static func containerName(_ container: MediaContainer) -> String {
        switch container {
        case .id3: "MP3 (ID3)"
        case .mpegAudio: "MPEG audio"
        case .aac: "AAC"
        case .mp4: "MP4"
        case .ogg: "Ogg"
        case .flac: "FLAC"
        case .matroska: "Matroska/WebM"
        case .wav: "WAV"
        }
    }

    /// `failed once`, `failed 3 times in a row`: one failure is no row.
    private static func inARow(_ count: Int) -> String { count == 1 ? "failed once" : "failed \(count) times in a row" }

    /// A file retention deleted.
    static func removed(_ removal: DownloadRemoval) -> String {
        switch removal.reason {
        case .retention:
            "removed    \(safe(removal.feed.displayName)): \(safe(removal.file)) (keeps the newest \(removal.keepNewest ?? 0))"
        case .played:
            "removed    \(safe(removal.feed.displayName)): \(safe(removal.file)) (played to the end; --delete-played is on)"
        }
    }

    /// An episode not downloaded.
    static func skipped(_ target: DownloadTarget, _ skip: DownloadSkip, now: Date = Date()) -> String {
        switch skip {
        case .deletedByHand(_):
            "skipped    \(safe(target.feed.displayName)): \(safe(target.file)): \(reason(skip, now: now))"
        case .waiting, .claimedByAnotherWorker, .completedByAnotherWorker, .playedElsewhere:
            "skipped    \(name(target)): \(reason(skip, now: now))"
        }
    }

    /// A skip's stable name in JSON Lines (`deleted_by_hand`, `waiting`, `played_elsewhere`, …).
    static func skipKind(_ skip: DownloadSkip) -> String {
        switch skip {
        case .deletedByHand(_): "deleted_by_hand"
        case .waiting: "waiting"
        case .claimedByAnotherWorker: "claimed_by_another_worker"
        case .completedByAnotherWorker: "completed_by_another_worker"
        case .playedElsewhere: "played_elsewhere"
        }
    }

    /// Why an episode is not downloaded, and how to have it downloaded after all.
    static func reason(_ skip: DownloadSkip, now: Date = Date()) -> String {
        switch skip {
        case .deletedByHand(true):
            "deleted by hand: not downloaded again (`podfresh download --again` downloads it)"
        // Outside what the feed downloads (its filters, its --keep): --again would not bring it back, so it is not
        // offered.
        case .deletedByHand(false):
            "deleted by hand: not downloaded again (it is not among the episodes this feed downloads and keeps)"
        case .waiting(let retryAfter, let failures, let error):
            waiting(retryAfter: retryAfter, failures: failures, error: error, now: now)
        case .claimedByAnotherWorker:
            "another worker is downloading it"
        case .completedByAnotherWorker:
            "another worker downloaded it"
        case .playedElsewhere(_, let device) where device == LocalEpisodeMark.device:
            "marked played (`podfresh mark`; `podfresh download --again` downloads it all the same)"
        case .playedElsewhere(let at, let device):
            "played to the end"
                + (device.map { " on \(safe($0))" } ?? " on another device")
                + (at.map { " at " + LocalTime.string($0) } ?? "")
                + " (`podfresh download --again` downloads it all the same)"
        }
    }

    /// One running download on the live terminal: `↓ Feed: Title  12.3 MB of 45.6 MB  2.1 MB/s  16s left`.
    static func progressLine(_ report: DownloadProgressReport?, target: DownloadTarget, width: Int) -> String {
        var detail = ""
        if let report {
            detail = bytes(report.receivedBytes)
            if let expected = report.expectedBytes { detail += " of " + bytes(expected) }
            if report.bytesPerSecond > 0 { detail += "  " + Measure.rate(bytesPerSecond: report.bytesPerSecond) }
            if let left = report.secondsLeft { detail += "  " + Measure.duration(seconds: left.rounded()) + " left" }
        } else {
            detail = "starting"
        }
        let room = max(12, width - detail.count - 4)
        return "↓ " + TerminalText.truncate(name(target), to: room) + "  " + detail
    }

    /// The total line under the running downloads: `downloads [3/10] 45.6 MB · 4.2 MB/s`.
    static func totalLine(finished: Int, queued: Int, failed: Int, bytes received: Int64, rate: Double) -> String {
        var line = "downloads [\(finished)/\(queued)] \(bytes(received))"
        if rate > 0 { line += " · " + Measure.rate(bytesPerSecond: rate) }
        if failed > 0 { line += " · \(failed) failed" }
        return line
    }

    /// The downloads' last line: `downloads: 3 downloaded (120.4 MB), 1 failed, 2 removed in 12.3s`.
    static func summaryLine(_ summary: DownloadSummary) -> String {
        var parts: [String] = ["\(summary.completedCount) downloaded (\(bytes(summary.bytesDownloaded)))"]
        if summary.failedCount > 0 { parts.append("\(summary.failedCount) failed") }
        if summary.removed > 0 { parts.append("\(summary.removed) removed (past the newest kept)") }
        if summary.deletedByUser > 0 {
            parts.append("\(summary.deletedByUser) deleted by hand (not downloaded again)")
        }
        if summary.withoutMedia > 0 {
            parts.append("\(summary.withoutMedia) without a media file")
        }
        if summary.extrasSaved > 0 {
            parts.append("\(summary.extrasSaved) \(summary.extrasSaved == 1 ? "extra" : "extras") saved")
        }
        if summary.extrasFailed > 0 {
            parts.append(
                "\(summary.extrasFailed) \(summary.extrasFailed == 1 ? "extra" : "extras") not saved (tried again later)"
            )
        }
        if summary.tagsWritten > 0 { parts.append("\(summary.tagsWritten) tagged") }
        if summary.tagsFailed > 0 {
            parts.append("\(summary.tagsFailed) not tagged after an error (kept as downloaded)")
        }
        if summary.tagsNotTaggable > 0 {
            parts.append("\(summary.tagsNotTaggable) in a format without tags")
        }
        if summary.filteredOut > 0 {
            parts.append("\(summary.filteredOut) left out by filters")
        }
        if summary.waiting > 0 {
            parts.append("\(summary.waiting) waiting after failing (`podfresh download --retry` tries now)")
        }
        if summary.elsewhere > 0 {
            parts.append("\(summary.elsewhere) left to another worker")
        }
        if summary.wasCancelled { parts.append("stopped") }
        let seconds = summary.endedAt.timeIntervalSince(summary.startedAt)
        return "downloads: " + parts.joined(separator: ", ") + " in " + Measure.duration(seconds: seconds)
    }

    /// True when a run's downloads are worth a summary line: something was queued, removed or found deleted.
    static func worthSaying(_ summary: DownloadSummary) -> Bool {
        !summary.outcomes.isEmpty || summary.removed > 0 || summary.deletedByUser > 0 || summary.waiting > 0
            || summary.filteredOut > 0 || summary.extrasSaved > 0 || summary.extrasFailed > 0
    }
}
