import FeedModels
import FeedParsing
import Measures
import RefreshEngine

/// A feed's download filters in words (`set`, `list FEED`), and what they left out of a run (`download`).
enum DownloadFilterText {
    /// `include "full episode", "interview"; exclude "trailer"; matched against title and description; at least 10m`,
    /// or `none` (sanitised).
    static func line(_ filter: DownloadFilter) -> String {
        guard !filter.isEmpty else {
            return filter.match == .description ? "none (matched against description)" : "none"
        }
        func quoted(_ patterns: [String]) -> String {
            patterns.map { "\"" + TerminalText.sanitize($0) + "\"" }.joined(separator: ", ")
        }
        var parts: [String] = []
        if !filter.include.isEmpty { parts.append("include " + quoted(filter.include)) }
        if !filter.exclude.isEmpty { parts.append("exclude " + quoted(filter.exclude)) }
        if !filter.include.isEmpty || !filter.exclude.isEmpty {
            parts.append(
                filter.match == .description ? "matched against title and description" : "matched against title")
        }
        if let minimum = filter.minimumDuration {
            parts.append("at least " + Measure.duration(seconds: Double(minimum)))
        }
        return parts.joined(separator: "; ")
    }

    /// The filters as `list --json` shows them: `{"include": […], "exclude": […], "match": "title",
    /// "min_duration_seconds": 600}`.
    static func json(_ filter: DownloadFilter) -> JSONValue {
        .object([
            ("include", .array(filter.include.map { .string($0) })),
            ("exclude", .array(filter.exclude.map { .string($0) })),
            ("match", .string(filter.match.rawValue)),
            ("min_duration_seconds", .int(filter.minimumDuration)),
        ])
    }

    /// `filtered   Show: 12 episodes left out by the feed's filters (9 match no --include, 2 match an --exclude, 1
    /// shorter than --min-duration)`.
    static func filtered(_ feed: FeedTarget, _ counts: FilteredCounts) -> String {
        var reasons: [String] = []
        if counts.notIncluded > 0 { reasons.append("\(counts.notIncluded) match no --include") }
        if counts.excluded > 0 { reasons.append("\(counts.excluded) match an --exclude") }
        if counts.tooShort > 0 { reasons.append("\(counts.tooShort) shorter than --min-duration") }
        let episodes = counts.total == 1 ? "1 episode" : "\(counts.total) episodes"
        return "filtered   \(TerminalText.sanitize(feed.displayName)): \(episodes) left out by the feed's filters ("
            + reasons.joined(separator: ", ") + "; `podfresh list FEED` shows them)"
    }
}
