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
                        Console.standard.error(ParseSummary.notAFeedAddress(input))
                        failed = true
                        continue
                    }
                    do {
                        let feed = try await Self.parse(url, source: source)
                        Console.standard.line(
                            json ? feed.jsonDocument() : ParseSummary(feed: feed, source: input, newest: newest).text)
                    } catch {
                        Console.standard.error(ParseSummary.failure(input, error))
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
            case .notModified:
                throw FeedFetchError(.unaskedNotModified)
            }
        }
    }
}
