import ArgumentParser
import ConsoleOutput
import FeedFetching
import FeedModels
import FeedParsing
import Foundation
import RefreshEngine

extension RootCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe to feeds (http, https, file URLs or local paths).",
            discussion:
                "Each feed is fetched once to check that it is a feed and to learn its title, unless --no-fetch is given; a feed that fails that check is not kept. A web page that links a feed (<link rel=\"alternate\" type=\"application/rss+xml\"> or atom+xml) subscribes to that feed, and says so; one that links several lists them, and subscribes to none."
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var fetch: FetchOptions

        @Argument(help: "Feed URLs or paths.")
        var urls: [String]

        @Flag(help: "Do not fetch the feeds now.")
        var noFetch = false

        @Option(
            help: ArgumentHelp(
                "How many of a feed's newest episodes its first check announces as new (and hands to --exec); the rest of its back catalogue is stored without being announced.",
                valueName: "count"))
        var backlog = 1

        @Flag(help: "Print JSON Lines.")
        var json = false

        func validate() throws {
            guard !urls.isEmpty else { throw ValidationError("Please give at least one feed URL.") }
            guard backlog >= 0 else { throw ValidationError("Please give a --backlog of 0 or more.") }
            for url in urls where FeedAddress.url(from: url) == nil {
                throw ValidationError("\"\(url)\" is not a feed address: use an http, https or file URL, or a path.")
            }
        }

        /// The feeds the web page at `page` links in its head (``FeedDiscovery``); none when it cannot be fetched.
        static func linkedFeeds(of page: URL, source: any FeedSource) async -> [FeedDiscovery.LinkedFeed] {
            guard
                let result = try? await source.fetch(
                    FeedRequest(url: page, conditional: false),
                    consumer: { _ in
                        PageCollector()
                    }),
                case .fetched(let head, let collector, _) = result
            else { return [] }
            return FeedDiscovery.linkedFeeds(in: String(decoding: collector.bytes, as: UTF8.self), page: head.url)
        }

        func run() async throws {
            let mode =
                OutputMode.detect(json: json, quiet: false) == .tty
                ? .plain : OutputMode.detect(json: json, quiet: false)
            let status = try await withRefreshEnvironment(global, fetch: fetch, output: mode) { environment in
                var added: [Subscription] = []
                var failed = false
                for input in urls {
                    guard let url = FeedAddress.url(from: input) else { continue }
                    do {
                        let subscription = try await environment.store.addSubscription(
                            url: url, title: nil, at: Date(), backlog: backlog)
                        added.append(subscription)
                        if noFetch { Console.standard.line(SubscriptionMessages.added(id: subscription.id, url: url)) }
                    } catch let error as StoreError where error.kind == .duplicate {
                        environment.renderer.error(SubscriptionMessages.alreadySubscribed(url))
                        failed = true
                    }
                }
                guard !noFetch, !added.isEmpty else { return failed ? ExitStatus.feedsFailed : .success }
                var run = try await runRefresh(environment, policy: .all, feedIDs: added.map(\.id))
                // A feed whose first check failed, is gone, or did not happen is not kept. A web page that links one
                // feed (<link rel="alternate">) gives way to that feed; one that links several lists them.
                var linked: [Subscription] = []
                for outcome in run.summary.outcomes {
                    guard let message = SubscriptionMessages.notSubscribed(outcome) else { continue }
                    _ = try await environment.store.removeSubscription(id: outcome.feed.id)
                    if case .failed(let failure) = outcome.result, case .parse(let parseError) = failure.cause,
                        parseError.reason == .htmlPage, run.stoppedBy == nil
                    {
                        let feeds = await Self.linkedFeeds(of: outcome.feed.url, source: environment.source)
                        if feeds.count == 1 {
                            let line = SubscriptionMessages.subscribingToLinkedFeed(
                                page: outcome.feed.url, feed: feeds[0])
                            if json { Console.standard.error(line) } else { Console.standard.line(line) }
                            do {
                                linked.append(
                                    try await environment.store.addSubscription(
                                        url: feeds[0].url, title: nil, at: Date(), backlog: backlog))
                            } catch let error as StoreError where error.kind == .duplicate {
                                environment.renderer.error(SubscriptionMessages.alreadySubscribed(feeds[0].url))
                                failed = true
                            }
                            continue
                        }
                        if feeds.count > 1 {
                            environment.renderer.error(
                                SubscriptionMessages.pageLinksSeveralFeeds(page: outcome.feed.url, feeds: feeds))
                            failed = true
                            continue
                        }
                    }
                    environment.renderer.error(message)
                    failed = true
                }
                if !linked.isEmpty, run.stoppedBy == nil {
                    run = try await runRefresh(environment, policy: .all, feedIDs: linked.map(\.id))
                    for outcome in run.summary.outcomes {
                        guard let message = SubscriptionMessages.notSubscribed(outcome) else { continue }
                        _ = try await environment.store.removeSubscription(id: outcome.feed.id)
                        environment.renderer.error(message)
                        failed = true
                    }
                }
                if let signal = run.stoppedBy { return ExitCode(stoppedBy: signal) }
                return failed ? ExitStatus.feedsFailed : .success
            }
            if status != .success { throw status }
        }
    }

    /// A web page's head, read up to 1 MB, and the feeds it links; none when it cannot be read again.
    fileprivate final class PageCollector: FeedBodyConsumer {
        var bytes: [UInt8] = []
        static let limit = 1 << 20

        func consume(_ chunk: UnsafeRawBufferPointer) throws {
            bytes.append(contentsOf: chunk.prefix(max(0, Self.limit - bytes.count)))
        }

        var wantsMoreBody: Bool { bytes.count < Self.limit }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unsubscribe from feeds and forget their episodes.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Feeds to remove (id, URL or part of a title).")
        var feeds: [String]

        func run() async throws {
            try await withStore(global) { open in
                let store = open.repositories
                let selected: [Subscription]
                do {
                    selected = try FeedSelector.resolve(feeds, in: try await store.subscriptions())
                } catch let error as FeedSelector.SelectionError {
                    Console.standard.error(error.message)
                    throw ExitCode.validationFailure
                }
                for subscription in selected {
                    _ = try await store.removeSubscription(id: subscription.id)
                    Console.standard.line(SubscriptionMessages.removed(subscription))
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show subscriptions: episodes, last success, status and next check.",
            discussion: """
                On a terminal the table fits its width: titles are cut with "…", the status is short ("failing ×3", \
                "moved") and the next check compact ("in 23h"); `list FEED` shows one feed with the cause and the \
                reason, and --wide (or a pipe, a file) prints every column whole.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: "One feed to show in full (id, URL or part of a title): its status's cause, its next check's reason.")
        var feed: String?

        @Flag(help: "Print a JSON array.")
        var json = false

        @OptionGroup var wide: WideOption

        func run() async throws {
            try await withStore(global, access: .reading) { open in
                let store = open.repositories
                var subscriptions = try await store.subscriptions()
                if let feed {
                    do {
                        subscriptions = try FeedSelector.resolve([feed], in: subscriptions)
                    } catch let error as FeedSelector.SelectionError {
                        Console.standard.error(error.message)
                        throw ExitCode.validationFailure
                    }
                }
                var list = SubscriptionList(
                    subscriptions: subscriptions, episodeCounts: try await store.episodeCounts(), now: Date())
                if json {
                    list.podping = try await open.podping.podpingStates()
                    Console.standard.line(list.json())
                    return
                }
                if feed != nil, let subscription = subscriptions.first {
                    Console.standard.lines(list.detail(of: subscription, width: wide.width))
                    return
                }
                // On a terminal the table fits its width (short statuses and next checks, titles cut with "…"); in
                // a pipe, a file or with --wide nothing is cut.
                Console.standard.line(list.text(width: wide.width))
            }
        }
    }
}
