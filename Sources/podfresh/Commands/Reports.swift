import ArgumentParser
import ConsoleOutput
import FeedModels
import FeedParsing
import Foundation
import RefreshEngine

extension RootCommand {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Summarise subscriptions: due now, failing, gone, moved, the last run, and what conditional GET saved.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print one JSON object.")
        var json = false

        @OptionGroup var wide: WideOption

        func run() async throws {
            try await withStore(global, access: .reading) { open in
                let store = open.repositories
                var report = StatusReport(
                    subscriptions: try await store.subscriptions(),
                    dueCount: try await store.dueSubscriptions(at: Date()).count,
                    lastRun: try await store.lastRun(checkedFeeds: false),
                    downloads: try await store.totalDownloadUsage(),
                    records: try await store.downloads(subscriptionID: nil))
                report.podping = try await open.podping.podpingStates()
                report.podpingCursor = try await open.podping.podpingCursor()
                report.sync = try await open.sync.syncState()
                report.newFeedSettings = try await store.newFeedSettings()
                if json {
                    Console.standard.line(report.json())
                } else {
                    Console.standard.lines(report.lines(width: wide.width))
                }
            }
        }
    }

    struct Episodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List stored episodes, newest first.",
            discussion: """
                A line ends with [new] when the episode was first seen in the last refresh that checked feeds, \
                [downloaded] while its file is on disk, [played] once it was played to the end on some device or \
                marked played (`podfresh mark played ID`); --json carries `new`, `file` and `played`.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: "Only this feed (id, URL or part of a title).")
        var feed: String?

        /// `episodes FEED`, as `list FEED` takes it (newsboat's and gPodder's users type it so).
        @Argument(help: "Only this feed (id, URL or part of a title); the same as --feed.")
        var feedArgument: String?

        @Option(help: "Only episodes since a date (2024-05-01) or for a duration back (7d, 12h).")
        var since: String?

        @Flag(help: "Only episodes first seen in the last refresh run.")
        var new = false

        @Flag(help: "Only episodes not played to the end on any device (synced episode actions; see `podfresh sync`).")
        var unplayed = false

        @Option(help: "At most this many episodes (when more match, stderr says how many).")
        var limit: Int = 20

        @Flag(help: "Print JSON Lines, one episode per line.")
        var json = false

        @OptionGroup var wide: WideOption

        func validate() throws {
            guard limit > 0 else { throw ValidationError("Please give a --limit of at least 1.") }
            if feed != nil && feedArgument != nil {
                throw ValidationError("Please name the feed once: `episodes FEED` or `episodes --feed FEED`.")
            }
            if let since, Self.sinceDate(since, now: Date()) == nil {
                throw ValidationError(
                    "--since takes a date (2024-05-01, RFC 3339) or a duration back (7d, 12h), not \"\(since)\".")
            }
        }

        static func sinceDate(_ text: String, now: Date) -> Date? {
            if let duration = DurationArgument(argument: text), duration.seconds.isFinite {
                return now.addingTimeInterval(-duration.seconds)
            }
            return FeedDate.parse(text)
        }

        func run() async throws {
            try await withStore(global, access: .reading) { open in
                let store = open.repositories
                let subscriptions = try await store.subscriptions()
                var query = EpisodeQuery(limit: limit, unplayedOnly: unplayed)
                if let feed = feed ?? feedArgument {
                    do {
                        query.subscriptionID = try FeedSelector.resolve([feed], in: subscriptions).first?.id
                    } catch let error as FeedSelector.SelectionError {
                        Console.standard.error(error.message)
                        throw ExitCode.validationFailure
                    }
                }
                if let since { query.since = Self.sinceDate(since, now: Date()) }
                // The last run that checked a feed: a run with nothing due found nothing new, but must not hide what
                // the previous one found. Its episodes are `new` (`--new` lists only them).
                let lastRun = try await store.lastRun(checkedFeeds: true)
                if new {
                    guard let run = lastRun else {
                        if !json { Console.standard.line(EpisodeList.noRunYet) }
                        return
                    }
                    query.runID = run.id
                }
                let episodes = try await store.episodes(query)
                let downloads = try await store.downloads(subscriptionID: query.subscriptionID)
                var list = EpisodeList(episodes: episodes, subscriptions: subscriptions, downloads: downloads)
                list.newRunID = lastRun?.id
                list.playStates = try await open.episodeActions.playStates(subscriptionID: query.subscriptionID)
                if json {
                    list.podping = try await open.podping.podpingStates()
                }
                Console.standard.lines(json ? list.jsonLines() : list.lines(width: wide.width))
                if episodes.count == limit {
                    let total = try await store.countEpisodes(query)
                    if total > limit {
                        // On stderr, so a pipe or `--json` reader gets only episodes, and a person still learns there is more.
                        Console.standard.error(EpisodeList.moreThanShown(limit: limit, total: total))
                    }
                }
            }
        }
    }
}
