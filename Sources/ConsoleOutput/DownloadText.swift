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
            if resumedFrom > 0 { line += ", resumed at \(bytes(resumedFrom))" }
            line += " in " + Measure.duration(seconds: outcome.seconds) + ")"
        }
        return line
    }

    /// A failed download, for standard error: the episode and the cause.
    static func failed(_ outcome: DownloadOutcome, _ failure: DownloadFailure) -> String {
        "\(name(outcome.target)): download failed: \(safe(failure.message))"
    }

    /// A file retention deleted.
    static func removed(_ removal: DownloadRemoval) -> String {
        "removed    \(safe(removal.feed.displayName)): \(safe(removal.file)) (keeps the newest \(removal.keepNewest))"
    }

    /// An episode not downloaded.
    static func skipped(_ target: DownloadTarget, _ skip: DownloadSkip) -> String {
        "skipped    \(safe(target.feed.displayName)): \(safe(target.file)): \(reason(skip))"
    }

    /// Why an episode is not downloaded, and how to have it downloaded after all.
    static func reason(_ skip: DownloadSkip) -> String {
        switch skip {
        case .deletedByHand: "deleted by hand: not downloaded again (`podfresh download --again` downloads it)"
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
        if summary.wasCancelled { parts.append("stopped") }
        let seconds = summary.endedAt.timeIntervalSince(summary.startedAt)
        return "downloads: " + parts.joined(separator: ", ") + " in " + Measure.duration(seconds: seconds)
    }

    /// True when a run's downloads are worth a summary line: something was queued, removed or found deleted.
    static func worthSaying(_ summary: DownloadSummary) -> Bool {
        !summary.outcomes.isEmpty || summary.removed > 0 || summary.deletedByUser > 0
    }
}
