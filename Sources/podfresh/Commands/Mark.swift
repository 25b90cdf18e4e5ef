import ArgumentParser
import ConsoleOutput
import FeedModels
import Foundation

extension RootCommand {
    struct Mark: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Mark episodes played or unplayed: by the ids `episodes --json` prints, or every episode of a feed.",
            discussion: """
                An episode marked played is left out of `episodes --unplayed` and of downloads (unless --again), and \
                its file goes with `set FEED --delete-played on`; marked unplayed, it is new again. With sync set up \
                (`podfresh sync setup`), the next sync sends the mark to the server as your other devices see it: a \
                `play` to the end, or `new`. Exit status: 0 done, 64 an id or feed that matches nothing (nothing is \
                marked), 70 database error.
                """)

        enum State: String, ExpressibleByArgument, CaseIterable {
            case played, unplayed
        }

        @OptionGroup var global: GlobalOptions

        @Argument(help: "played or unplayed.")
        var state: State

        @Argument(
            help:
                "Episode ids (the `id` of `episodes --json`), or feeds (id, URL or part of a title): every episode of the feed."
        )
        var targets: [String] = []

        @Option(help: "Look for the episode ids in this feed only (id, URL or part of a title).")
        var feed: String?

        func validate() throws {
            guard !targets.isEmpty else {
                throw ValidationError("Please give episode ids (as `podfresh episodes --json` prints them) or feeds.")
            }
        }

        func run() async throws {
            try await withStore(global) { open in
                let store = open.repositories
                guard let marking = open.episodeActions as? any EpisodeMarkRepository else { return }
                let subscriptions = try await store.subscriptions()
                var scope: Int64?
                if let feed {
                    do {
                        scope = try FeedSelector.resolve([feed], in: subscriptions).first?.id
                    } catch let error as FeedSelector.SelectionError {
                        Console.standard.error(error.message)
                        throw ExitCode.validationFailure
                    }
                }
                let played = state == .played
                let episodes = try await store.episodes(EpisodeQuery(subscriptionID: scope))
                let byKey = Dictionary(grouping: episodes, by: \.key)
                let feeds = Dictionary(subscriptions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                var chosen: [StoredEpisode] = []
                var lines: [String] = []
                // Every argument is resolved before anything is marked: one that matches nothing marks nothing.
                for target in targets {
                    if let found = byKey[target] {
                        guard found.count == 1 else {
                            Console.standard.error(
                                MarkMessages.severalFeeds(target, feedIDs: found.map(\.subscriptionID).sorted()))
                            throw ExitCode.validationFailure
                        }
                        chosen.append(found[0])
                        let title = feeds[found[0].subscriptionID].map { $0.title ?? $0.url.absoluteString } ?? ""
                        lines.append(MarkMessages.episode(found[0], feedTitle: title, played: played))
                        continue
                    }
                    let matches = FeedSelector.match(target, in: subscriptions)
                    guard matches.count == 1 else {
                        Console.standard.error(
                            matches.isEmpty
                                ? MarkMessages.noMatch(target)
                                : SubscriptionMessages.severalMatch(target, matches))
                        throw ExitCode.validationFailure
                    }
                    let ofFeed = episodes.filter { $0.subscriptionID == matches[0].id }
                    let all =
                        scope == nil || scope == matches[0].id
                        ? ofFeed : try await store.episodes(EpisodeQuery(subscriptionID: matches[0].id))
                    chosen += all
                    lines.append(MarkMessages.feed(matches[0], episodes: all.count, played: played))
                }
                var seen: Set<EpisodeRef> = []
                let now = Date()
                let marks = chosen.compactMap { episode -> LocalEpisodeMark? in
                    guard
                        seen.insert(EpisodeRef(subscriptionID: episode.subscriptionID, episodeKey: episode.key))
                            .inserted,
                        let subscription = feeds[episode.subscriptionID]
                    else { return nil }
                    return LocalEpisodeMark.mark(episode, feedURL: subscription.url, played: played, at: now)
                }
                let changed = try await marking.markEpisodes(marks, at: now)
                let syncSetUp = try await open.sync.syncState() != nil
                Console.standard.lines(
                    lines + [
                        MarkMessages.summary(changed: changed, total: marks.count, played: played, syncSetUp: syncSetUp)
                    ])
            }
        }
    }
}
