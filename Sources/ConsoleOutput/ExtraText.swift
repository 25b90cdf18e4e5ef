import EpisodeDownloads
import FeedModels
import FeedParsing
import Foundation
import Measures
import RefreshEngine

/// The lines and objects for the files beside an episode (`podfresh set FEED --extras on`): every feed-supplied text
/// goes through ``TerminalText/sanitize(_:)``.
enum ExtraText {
    private static func safe(_ text: String) -> String { TerminalText.sanitize(text) }

    /// `transcript`, `chapters`, `artwork`.
    static func name(_ kind: ExtraFile.Kind) -> String {
        switch kind {
        case .transcript: "transcript"
        case .chapters: "chapters"
        case .image: "artwork"
        }
    }

    /// `saved      Feed: Title: transcript → /path/Ep 1.vtt (12.3 kB)`.
    static func saved(_ outcome: ExtraOutcome) -> String {
        "saved      \(DownloadText.name(outcome.target)): \(name(outcome.kind)) → \(safe(outcome.file ?? ""))"
            + (outcome.bytes.map { " (" + Measure.bytes($0) + ")" } ?? "")
    }

    /// For standard error: `Feed: Title: transcript not saved: <cause>; the episode's file is kept; next try after
    /// … (in 1h; `podfresh download --retry` tries it now)`.
    static func failed(_ outcome: ExtraOutcome, now: Date = Date()) -> String {
        var line = "\(DownloadText.name(outcome.target)): \(name(outcome.kind)) not saved: "
        line += safe(outcome.failure.map(DownloadFailureText.line) ?? outcome.url.absoluteString)
        line += "; the episode's file is kept"
        if let retryAfter = outcome.failure?.retryAfter {
            line +=
                "; next try after " + LocalTime.string(retryAfter) + " ("
                + EventText.fromNow(retryAfter, now: now) + "; `podfresh download --retry` tries it now)"
        }
        return line
    }

    /// `extra_saved` and `extra_failed` objects.
    static func json(_ outcome: ExtraOutcome) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("event", .string(outcome.failure == nil ? "extra_saved" : "extra_failed")),
            ("feed_id", .int(Int(outcome.target.feed.id))), ("id", .string(outcome.target.episodeKey)),
            ("title", .string(outcome.target.title)), ("kind", .string(outcome.kind.rawValue)),
            ("url", .url(outcome.url)),
            ("media_file", .string(outcome.target.file.isEmpty ? nil : outcome.target.file)),
        ]
        if let failure = outcome.failure {
            fields += [
                ("error_kind", .string(failure.kind)), ("message", .string(DownloadFailureText.line(failure))),
                ("http_status", .int(failure.status)), ("failures", .int(failure.failures)),
                ("retry_after", .date(failure.retryAfter)), ("repeated", .bool(failure.isRepeat)),
            ]
        } else {
            fields += [("file", .string(outcome.file)), ("bytes", .int(outcome.bytes.map { Int(clamping: $0) }))]
        }
        return fields
    }
}
