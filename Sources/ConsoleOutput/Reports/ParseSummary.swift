public import FeedParsing
import Foundation

/// What `podfresh parse` prints for a feed without `--json`: its title, format and episode count, its channel fields,
/// its newest episodes and the parser's warnings, every piece safe to print on a terminal.
public struct ParseSummary: Sendable {
    /// The parsed feed.
    public var feed: ParsedFeed
    /// What the user named it by (a path or a URL), as typed.
    public var source: String
    /// How many of the newest episodes to show.
    public var newest: Int

    /// How many warnings are shown before "… and N more".
    static let warningLimit = 10
    /// How wide an episode's title may be before it is cut with "…".
    static let titleWidth = 70

    /// - Parameters:
    ///   - feed: The parsed feed.
    ///   - source: What the user named it by.
    ///   - newest: How many of the newest episodes to show (none when 0 or less).
    public init(feed: ParsedFeed, source: String, newest: Int) {
        self.feed = feed
        self.source = source
        self.newest = newest
    }

    /// The summary's lines joined with newlines, without a final newline.
    public var text: String { lines().joined(separator: "\n") }

    /// The summary, line by line.
    public func lines() -> [String] {
        func clean(_ text: String?) -> String { TerminalText.sanitize(text ?? "—") }
        var lines = [
            "\(clean(feed.title))  [\(feed.format.rawValue), \(feed.episodes.count) episode\(feed.episodes.count == 1 ? "" : "s")]",
            "  source:   \(clean(source))",
        ]
        if let link = feed.link { lines.append("  link:     \(clean(link.absoluteString))") }
        if let author = feed.author { lines.append("  author:   \(clean(author))") }
        if let language = feed.language { lines.append("  language: \(clean(language))") }
        if !feed.categories.isEmpty { lines.append("  categories: \(clean(feed.categories.joined(separator: ", ")))") }
        if let moved = feed.newFeedURL {
            lines.append("  moved to: \(clean(moved.absoluteString)) (itunes:new-feed-url)")
        }
        if feed.complete == true { lines.append("  complete: no more episodes will be published") }
        if let next = feed.nextPage { lines.append("  next page: \(clean(next.absoluteString))") }
        // Newest first; undated episodes last, in feed order, as are episodes of the same date.
        let dated = feed.episodes.enumerated().sorted {
            ($0.element.published ?? .distantPast, -$0.offset) > ($1.element.published ?? .distantPast, -$1.offset)
        }
        if !dated.isEmpty { lines.append("  newest episodes:") }
        for (_, episode) in dated.prefix(max(0, newest)) {
            let date = episode.published.map { LocalTime.day($0) } ?? "no date   "
            var line =
                "    \(date)  \(TerminalText.truncate(clean(episode.title ?? "(untitled)"), to: Self.titleWidth))"
            if let duration = episode.duration { line += "  [\(Self.clock(duration))]" }
            lines.append(line)
        }
        if !feed.warnings.isEmpty {
            lines.append("  warnings (\(feed.warnings.count)):")
            for warning in feed.warnings.prefix(Self.warningLimit) {
                lines.append("    " + EventText.warning(warning))
            }
            if feed.warnings.count > Self.warningLimit {
                lines.append("    … and \(feed.warnings.count - Self.warningLimit) more (see --json)")
            }
        }
        return lines
    }

    /// A duration as a clock: "4:05", or "1:02:03" from an hour up (rounded to whole seconds).
    public static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600
            ? String(format: "%d:%02d:%02d", total / 3600, total % 3600 / 60, total % 60)
            : String(format: "%d:%02d", total / 60, total % 60)
    }

    // MARK: - Errors

    /// The error line for an argument that is no feed address.
    public static func notAFeedAddress(_ input: String) -> String {
        "\(input): not a feed address (use an http, https or file URL, or a path)"
    }

    /// The error line for a feed that could not be fetched or parsed.
    public static func failure(_ input: String, _ error: any Error) -> String {
        "\(input): \(ErrorText.line(error))"
    }
}
