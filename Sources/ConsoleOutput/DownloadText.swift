import Foundation
import RefreshEngine

/// The lines the human styles print for downloads: every feed-supplied text goes through ``TerminalText/sanitize(_:)``.
enum DownloadText {
    private static func safe(_ text: String) -> String { TerminalText.sanitize(text) }
    private static func bytes(_ count: Int64) -> String { StatusReport.bytes(Int(clamping: count)) }

    /// `Feed: Title`.
    static func name(_ target: DownloadTarget) -> String {
        safe(target.feed.displayName) + ": " + safe(target.displayTitle)
    }

    /// A complete file: `downloaded Feed: Title → /path (12.3 MiB in 4.1 s)`.
    static func completed(_ outcome: DownloadOutcome) -> String {
        var line = "downloaded \(name(outcome.target)) → \(safe(outcome.target.file))"
        if case .completed(let size, let resumedFrom) = outcome.result {
            line += " (\(bytes(size))"
            if resumedFrom > 0 { line += ", resumed at \(bytes(resumedFrom))" }
            line += " in " + String(format: "%.1f", outcome.seconds) + " s)"
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
    static func skipped(_ target: DownloadTarget, reason: String) -> String {
        "skipped    \(safe(target.feed.displayName)): \(safe(target.file)): \(safe(reason))"
    }

    /// One running download on the live terminal: `↓ Feed: Title  12.3 MiB of 45.6 MiB  2.1 MiB/s  16 s left`.
    static func progressLine(_ report: DownloadProgressReport?, target: DownloadTarget, width: Int) -> String {
        var detail = ""
        if let report {
            detail = bytes(report.receivedBytes)
            if let expected = report.expectedBytes { detail += " of " + bytes(expected) }
            if report.bytesPerSecond > 0 { detail += "  " + bytes(Int64(report.bytesPerSecond)) + "/s" }
            if let left = report.secondsLeft { detail += "  " + timeLeft(left) + " left" }
        } else {
            detail = "starting"
        }
        let room = max(12, width - detail.count - 4)
        return "↓ " + TerminalText.truncate(name(target), to: room) + "  " + detail
    }

    /// `42 s`, `3:07`, `1:02:03`.
    static func timeLeft(_ seconds: Double) -> String {
        let total = Int(min(seconds, 359_999).rounded())
        if total < 60 { return "\(total) s" }
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    /// The total line under the running downloads: `downloads [3/10] 45.6 MiB · 4.2 MiB/s`.
    static func totalLine(finished: Int, queued: Int, failed: Int, bytes received: Int64, rate: Double) -> String {
        var line = "downloads [\(finished)/\(queued)] \(bytes(received))"
        if rate > 0 { line += " · " + bytes(Int64(rate)) + "/s" }
        if failed > 0 { line += " · \(failed) failed" }
        return line
    }

    /// The downloads' last line: `downloads: 3 downloaded (120.4 MiB), 1 failed, 2 removed in 12.3 s`.
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
        return "downloads: " + parts.joined(separator: ", ") + " in " + String(format: "%.1f", seconds) + " s"
    }

    /// True when a run's downloads are worth a summary line: something was queued, removed or found deleted.
    static func worthSaying(_ summary: DownloadSummary) -> Bool {
        !summary.outcomes.isEmpty || summary.removed > 0 || summary.deletedByUser > 0
    }
}
