import ArgumentParser
import ConsoleOutput
import FeedFetching
import FeedParsing
import Foundation
import RefreshEngine

extension RootCommand {
    struct Parse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse feeds (files or URLs) and show what podfresh reads in them, without storing anything.",
            discussion: "--json prints one document per feed with the keys documented in the README.")

        @OptionGroup var fetch: FetchOptions

        @Argument(help: "Feed files or URLs.")
        var inputs: [String]

        @Flag(help: "Print the parsed feed as JSON (one document per line).")
        var json = false

        @Option(help: "How many of the newest episodes the summary shows.")
        var newest: Int = 5

        func validate() throws {
            guard !inputs.isEmpty else { throw ValidationError("Please give at least one feed file or URL.") }
        }

        func run() async throws {
            let failed = try await withFeedSource(fetch) { source in
                var failed = false
                for input in inputs {
                    guard let url = FeedAddress.url(from: input) else {
                        Console.error("\(input): not a feed address (use an http, https or file URL, or a path)")
                        failed = true
                        continue
                    }
                    do {
                        let feed = try await Self.parse(url, source: source)
                        Console.line(json ? feed.jsonDocument() : Self.summary(feed, source: input, newest: newest))
                    } catch {
                        Console.error("\(input): \(error)")
                        failed = true
                    }
                }
                return failed
            }
            if failed { throw ExitStatus.feedsFailed }
        }

        static func parse(_ url: URL, source: any FeedSource) async throws -> ParsedFeed {
            let result = try await source.fetch(FeedRequest(url: url, conditional: false)) { head in
                FeedParserConsumer(head: head)
            }
            switch result {
            case .fetched(_, let consumer, _): return try consumer.finish()
            case .notModified: throw FeedFetchError(kind: .transport, message: "the server answered 304 Not Modified to an unconditional request")
            }
        }

        static func summary(_ feed: ParsedFeed, source: String, newest: Int) -> String {
            func clean(_ text: String?) -> String { TerminalText.sanitize(text ?? "—") }
            var lines = [
                "\(clean(feed.title))  [\(feed.format.rawValue), \(feed.episodes.count) episode\(feed.episodes.count == 1 ? "" : "s")]",
                "  source:   \(clean(source))",
            ]
            if let link = feed.link { lines.append("  link:     \(clean(link.absoluteString))") }
            if let author = feed.author { lines.append("  author:   \(clean(author))") }
            if let language = feed.language { lines.append("  language: \(clean(language))") }
            if !feed.categories.isEmpty { lines.append("  categories: \(clean(feed.categories.joined(separator: ", ")))") }
            if let moved = feed.newFeedURL { lines.append("  moved to: \(clean(moved.absoluteString)) (itunes:new-feed-url)") }
            if feed.complete == true { lines.append("  complete: no more episodes will be published") }
            if let next = feed.nextPage { lines.append("  next page: \(clean(next.absoluteString))") }
            let dated = feed.episodes.enumerated().sorted {
                ($0.element.published ?? .distantPast, -$0.offset) > ($1.element.published ?? .distantPast, -$1.offset)
            }
            if !dated.isEmpty { lines.append("  newest episodes:") }
            for (_, episode) in dated.prefix(max(0, newest)) {
                let date = episode.published.map { String(RFC3339.string(from: $0).prefix(10)) } ?? "no date   "
                var line = "    \(date)  \(TerminalText.truncate(clean(episode.title ?? "(untitled)"), to: 70))"
                if let duration = episode.duration { line += "  [\(Self.clock(duration))]" }
                lines.append(line)
            }
            if !feed.warnings.isEmpty {
                lines.append("  warnings (\(feed.warnings.count)):")
                for warning in feed.warnings.prefix(10) {
                    lines.append("    line \(warning.line): \(clean(warning.message))")
                }
                if feed.warnings.count > 10 { lines.append("    … and \(feed.warnings.count - 10) more (see --json)") }
            }
            return lines.joined(separator: "\n")
        }

        static func clock(_ seconds: Double) -> String {
            let total = Int(seconds.rounded())
            return total >= 3600
                ? String(format: "%d:%02d:%02d", total / 3600, total % 3600 / 60, total % 60)
                : String(format: "%d:%02d", total / 60, total % 60)
        }
    }
}

