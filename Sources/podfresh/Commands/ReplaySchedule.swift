import ArgumentParser
import ConsoleOutput
import FeedParsing
import FeedScheduling
import Foundation

extension RootCommand {
    /// The replay benchmark's engine (`Scripts/replay-schedule.sh`): feeds' publication histories replayed through
    /// the scheduler this binary runs.
    struct ReplaySchedule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay-schedule",
            abstract:
                "Replay feed files' publication histories through the scheduler, and say how soon each policy finds their episodes.",
            discussion: """
                A feed counts when it has at least 6 dated episodes, 3 of them in its last WINDOW days, and history \
                spanning 1.5 windows. Each of --phases replays covers WINDOW days ending at a random moment (seeded) \
                within the week after the feed's newest episode. Policies: podfresh (the shipped defaults, or \
                --min-interval and --max-interval), podfresh-before (the interval alone, 15m to 24h, as podfresh \
                scheduled before it learned slots), hourly and every 12h.
                """,
            shouldDisplay: false)

        @OptionGroup var fetch: FetchOptions

        @Argument(help: "Feed files or URLs.")
        var inputs: [String]

        @Option(help: "Days each replay covers.")
        var window: Double = 90

        @Option(help: "Replays per feed.")
        var phases: Int = 5

        @Option(help: "Seed of the random phases and jitter.")
        var seed: UInt64 = 1

        @Option(help: "podfresh's --min-interval in the replay (default: the shipped one).")
        var minInterval: DurationArgument?

        @Option(help: "podfresh's --max-interval in the replay (default: the shipped one).")
        var maxInterval: DurationArgument?

        @Option(help: "Minutes before a slot's earliest episode its first check comes.")
        var slotLead: Double = 0

        @Option(help: "Minutes a slot's window stays open after its latest episode.")
        var slotTail: Double = 60

        @Option(help: "Checks a day between slot windows.")
        var checksPerDay: Double?

        @Flag(help: "One JSON object per policy and line.")
        var json = false

        @Flag(help: "Also each feed's figures under podfresh's policy.")
        var perFeed = false

        func validate() throws {
            guard !inputs.isEmpty else { throw ValidationError("Please give at least one feed file or URL.") }
            guard window >= 1, phases >= 1 else {
                throw ValidationError("Please give a --window of at least 1 and --phases of at least 1.")
            }
        }

        func run() async throws {
            var feeds: [ScheduleReplay.Feed] = []
            var failed = false
            try await withFeedSource(fetch) { source in
                for input in inputs {
                    guard let url = FeedAddress.url(from: input) else {
                        Console.standard.error(ParseSummary.notAFeedAddress(input))
                        failed = true
                        continue
                    }
                    do {
                        feeds.append(Self.history(input, try await Parse.parse(url, source: source)))
                    } catch {
                        Console.standard.error(ParseSummary.failure(input, error))
                        failed = true
                    }
                }
            }
            let replay = ScheduleReplay(windowDays: window, phases: phases, seed: seed)
            var shipped = SchedulePolicy(slotLead: slotLead * 60, slotTail: slotTail * 60)
            if let checksPerDay { shipped.checksPerDay = checksPerDay }
            if let minInterval { shipped.minInterval = minInterval.seconds }
            if let maxInterval { shipped.maxInterval = max(maxInterval.seconds, shipped.minInterval) }
            let policies: [(String, ScheduleReplay.Policy)] = [
                ("podfresh", .scheduler(shipped)),
                (
                    "podfresh-before",
                    .scheduler(SchedulePolicy(minInterval: 15 * 60, maxInterval: 24 * 3600, usesSlots: false))
                ),
                ("hourly", .every(3600)),
                ("every 12h", .every(12 * 3600)),
            ]
            let rows = policies.map { name, policy in
                ReplayReport.Row(policy: name, result: replay.run(feeds, policy: policy))
            }
            Console.standard.line(json ? ReplayReport.jsonLines(rows) : ReplayReport.table(rows))
            if perFeed {
                let feedRows = replay.perFeed(feeds, policy: policies[0].1).map {
                    ReplayReport.Row(policy: ($0.name as NSString).lastPathComponent, result: $0.result)
                }
                Console.standard.line(json ? ReplayReport.jsonLines(feedRows) : ReplayReport.table(feedRows))
            }
            if failed { throw ExitStatus.feedsFailed }
        }

        /// A parsed feed's publication history and schedule hints.
        static func history(_ name: String, _ feed: ParsedFeed) -> ScheduleReplay.Feed {
            ScheduleReplay.Feed(
                name: name,
                publications: feed.episodes.compactMap { episode in
                    episode.published.map { Publication(at: $0, writtenOffset: episode.publishedOffset) }
                },
                declared: feed.podcastUpdateFrequency.flatMap { frequency in
                    frequency.rrule.map { DeclaredSchedule(rule: $0, start: frequency.start) }
                },
                ttlMinutes: feed.ttl, syndicationUpdatePeriod: feed.syndicationUpdatePeriod,
                syndicationUpdateFrequency: feed.syndicationUpdateFrequency,
                podcastUpdateFrequency: feed.updateFrequency)
        }
    }
}
