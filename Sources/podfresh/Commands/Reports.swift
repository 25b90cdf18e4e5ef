import ArgumentParser
import ConsoleOutput
import FeedParsing
import FeedStorage
import RefreshEngine
import Foundation

extension RootCommand {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Summarise subscriptions: due now, failing, gone, moved, the last run, and what conditional GET saved.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() async throws {
            let store = try openStoreForReading(global)
            let now = Date()
            let subscriptions = try store.subscriptions()
            let due = try store.dueSubscriptions(at: now)
            let failing = subscriptions.filter { $0.failureCount > 0 && !$0.isGone }
            let gone = subscriptions.filter(\.isGone)
            let moved = subscriptions.filter { $0.movedFrom != nil }
            let last = try store.lastRun()
            let checked = last?.feedsChecked ?? 0
            let hitRate = checked > 0 ? Double(last?.feedsNotModified ?? 0) / Double(checked) : nil
            if json {
                let runJSON: JSONValue = last.map { run in
                    .object([
                        ("started", .date(run.startedAt)), ("ended", .date(run.endedAt)),
                        ("feeds_checked", .int(run.feedsChecked)), ("feeds_failed", .int(run.feedsFailed)),
                        ("feeds_not_modified", .int(run.feedsNotModified)), ("new_episodes", .int(run.newEpisodes)),
                        ("bytes_downloaded", .int(run.bytesDownloaded)), ("bytes_saved", .int(run.bytesSaved)),
                    ])
                } ?? .null
                Console.line(
                    JSONValue.object([
                        ("subscriptions", .int(subscriptions.count)),
                        ("due_now", .int(due.count)),
                        ("failing", .array(failing.map { .object([("id", .int(Int($0.id))), ("title", .string($0.title)), ("url", .url($0.url)), ("failures", .int($0.failureCount)), ("error", .string($0.lastError))]) })),
                        ("gone", .array(gone.map { .object([("id", .int(Int($0.id))), ("title", .string($0.title)), ("url", .url($0.url))]) })),
                        ("moved", .array(moved.map { .object([("id", .int(Int($0.id))), ("title", .string($0.title)), ("from", .url($0.movedFrom)), ("to", .url($0.url))]) })),
                        ("last_run", runJSON),
                        ("conditional_hit_rate", .number(hitRate.map { ($0 * 1000).rounded() / 1000 })),
                    ]).serialized())
                return
            }
            Console.line("subscriptions: \(subscriptions.count)   due now: \(due.count)   failing: \(failing.count)   gone: \(gone.count)   moved: \(moved.count)")
            for subscription in failing {
                Console.line("  failing  \(subscription.id) \(TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString)): \(TerminalText.sanitize(subscription.lastError ?? "")) (×\(subscription.failureCount))")
            }
            for subscription in gone {
                Console.line("  gone     \(subscription.id) \(TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString)) (`podfresh refresh \(subscription.id)` checks it again; it revives if it answers)")
            }
            for subscription in moved {
                Console.line("  moved    \(subscription.id) \(subscription.movedFrom?.absoluteString ?? "") → \(subscription.url.absoluteString) (undo with `podfresh move \(subscription.id) --undo`)")
            }
            if let last {
                var line = "last run: \(RFC3339.string(from: last.startedAt)), \(last.feedsChecked) checked, \(last.feedsFailed) failed, \(last.newEpisodes) new episodes"
                if let hitRate {
                    line += "; conditional GET: \(Int((hitRate * 100).rounded()))% not modified, \(Self.bytes(last.bytesSaved)) saved, \(Self.bytes(last.bytesDownloaded)) downloaded"
                }
                Console.line(line)
            } else {
                Console.line("last run: never")
            }
        }

        static func bytes(_ count: Int) -> String {
            if count < 1024 { return "\(count) B" }
            if count < 1_048_576 { return String(format: "%.1f KiB", Double(count) / 1024) }
            return String(format: "%.1f MiB", Double(count) / 1_048_576)
        }
    }

    struct Episodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List stored episodes, newest first.")

        @OptionGroup var global: GlobalOptions

        @Option(help: "Only this feed (id, URL or part of a title).")
        var feed: String?

        @Option(help: "Only episodes since a date (2024-05-01) or for a duration back (7d, 12h).")
        var since: String?

        @Flag(help: "Only episodes first seen in the last refresh run.")
        var new = false

        @Option(help: "At most this many episodes (when more match, stderr says how many).")
        var limit: Int = 20

        @Flag(help: "Print JSON Lines, one episode per line.")
        var json = false

        func validate() throws {
            guard limit > 0 else { throw ValidationError("Please give a --limit of at least 1.") }
            if let since, Self.sinceDate(since, now: Date()) == nil {
                throw ValidationError("--since takes a date (2024-05-01, RFC 3339) or a duration back (7d, 12h), not \"\(since)\".")
            }
        }

        static func sinceDate(_ text: String, now: Date) -> Date? {
            if let duration = DurationArgument(argument: text), duration.seconds.isFinite {
                return now.addingTimeInterval(-duration.seconds)
            }
            return FeedDate.parse(text)
        }

        func run() async throws {
            let store = try openStoreForReading(global)
            let subscriptions = try store.subscriptions()
            var query = EpisodeQuery(limit: limit)
            if let feed {
                do {
                    query.subscriptionID = try FeedSelector.resolve([feed], in: subscriptions).first?.id
                } catch let error as FeedSelector.SelectionError {
                    Console.error(error.description)
                    throw ExitCode.validationFailure
                }
            }
            if let since { query.since = Self.sinceDate(since, now: Date()) }
            if new {
                // The last run that checked a feed: a run with nothing due found nothing new, but must not hide what
                // the previous one found.
                guard let run = try store.lastRun(checkedFeeds: true) else {
                    if !json { Console.line("no refresh has run yet") }
                    return
                }
                query.runID = run.id
            }
            let titles = Dictionary(subscriptions.map { ($0.id, $0.title ?? $0.url.absoluteString) }, uniquingKeysWith: { a, _ in a })
            let episodes = try store.episodes(query)
            for stored in episodes {
                let episode = stored.episode
                if json {
                    Console.line(Self.json(stored, feedTitle: titles[stored.subscriptionID]).serialized())
                } else {
                    let date = episode.published.map { String(RFC3339.string(from: $0).prefix(10)) } ?? "          "
                    let feedTitle = TerminalText.truncate(TerminalText.sanitize(titles[stored.subscriptionID] ?? ""), to: 30)
                    Console.line("\(date)  \(feedTitle): \(TerminalText.sanitize(episode.title ?? "(untitled)"))")
                }
            }
            if episodes.isEmpty && !json { Console.line("no episodes match") }
            if episodes.count == limit {
                let total = try store.countEpisodes(query)
                if total > limit {
                    // On stderr, so a pipe or `--json` reader gets only episodes, and a person still learns there is more.
                    Console.error("showing \(limit) of \(total) episodes; use --limit \(total) to see them all")
                }
            }
        }

        /// One stored episode as `episodes --json` prints it: the `new_episode` event's keys first (unchanged), then
        /// every other stored field — show notes, all enclosures, transcripts, persons, alternate enclosures — and
        /// when podfresh first and last saw it.
        static func json(_ stored: StoredEpisode, feedTitle: String?) -> JSONValue {
            let episode = stored.episode
            let event = EventJSON.episodeFields(EpisodeAnnouncement(feedID: stored.subscriptionID, episode: episode), feedTitle: feedTitle)
            let eventKeys = Set(event.map(\.0))
            guard case .object(let parsed) = episode.jsonValue() else { return .object(event) }
            var fields = event + parsed.filter { !eventKeys.contains($0.0) }
            fields = fields.map { key, value in
                switch key {
                case "transcripts":
                    return (key, .array(episode.transcripts.map {
                        .object([("url", .string($0.urlString)), ("type", .string($0.type)), ("language", .string($0.language)), ("rel", .string($0.rel))])
                    }))
                case "persons":
                    return (key, .array(episode.persons.map {
                        .object([("name", .string($0.name)), ("role", .string($0.role)), ("group", .string($0.group)), ("href", .string($0.hrefString)), ("image", .string($0.imageString))])
                    }))
                default:
                    return (key, value)
                }
            }
            return .object(fields + [
                ("guid_is_permalink", episode.guidIsPermaLink.map { .bool($0) } ?? .null),
                ("alternate_enclosures", .array(episode.alternateEnclosures.map {
                    .object([
                        ("url", .url($0.url)), ("type", .string($0.type)), ("length", $0.length.map { .int(Int($0)) } ?? .null),
                        ("bitrate", .number($0.bitrate)), ("title", .string($0.title)), ("default", .bool($0.isDefault)),
                    ])
                })),
                ("first_seen", .date(stored.firstSeenAt)),
                ("last_seen", .date(stored.lastSeenAt)),
                ("first_seen_run", .int(stored.firstSeenRunID.map { Int($0) })),
            ])
        }
    }
}
