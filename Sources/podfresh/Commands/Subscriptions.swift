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

        /// The feeds `url` links when it is a web page (``FeedDiscovery``: its head's `<link rel="alternate">`s), or nil
        /// when it is not one (or cannot be read: the first check then says why). A feed is read no further than its
        /// first bytes.
        static func linkedFeeds(of url: URL, source: any FeedSource) async -> [FeedDiscovery.LinkedFeed]? {
            guard
                let result = try? await source.fetch(
                    FeedRequest(url: url, conditional: false, reusesConnection: false),
                    consumer: { _ in PageCollector() }),
                case .fetched(let head, let collector, _) = result, collector.isPage
            else { return nil }
            return FeedDiscovery.linkedFeeds(in: String(decoding: collector.bytes, as: UTF8.self), page: head.url)
        }

        func run() async throws {
            // On a terminal: plain lines (no progress line for a few feeds), fitted to its width.
            let onTerminal = OutputMode.detect(json: json, quiet: false) == .tty
            let mode = onTerminal ? .plain : OutputMode.detect(json: json, quiet: false)
            let layout = OutputLayout(fitsPlainLines: onTerminal)
            /// A line of add's own, wrapped to the terminal's width on a terminal (after `prefix`, which the console
            /// adds), whole elsewhere.
            func fitted(_ line: String, prefix: String = "") -> String {
                guard onTerminal else { return line }
                let width = TerminalWidth.columns(environment: ProcessInfo.processInfo.environment)
                let lines = TerminalWidth.wrap(prefix + line, to: width, indent: 2)
                return String(lines.joined(separator: "\n").dropFirst(prefix.count))
            }
            let status = try await withRefreshEnvironment(global, fetch: fetch, output: mode, layout: layout) {
                environment in
                var added: [Subscription] = []
                var failed = false
                for input in urls {
                    guard var url = FeedAddress.url(from: input) else { continue }
                    // A web page (a show's home page) that links its feed: that feed, said so; several: none.
                    if !noFetch, let feeds = await Self.linkedFeeds(of: url, source: environment.source) {
                        if feeds.count > 1 {
                            let lines = SubscriptionMessages.pageLinksSeveralFeeds(page: url, feeds: feeds)
                            Console.standard.error(fitted(lines[0], prefix: "podfresh: "))
                            // Each feed's command whole, to copy (a URL is never cut or wrapped).
                            for line in lines.dropFirst() { Console.standard.errors.write(line + "\n") }
                            failed = true
                            continue
                        }
                        if let feed = feeds.first {
                            let line = SubscriptionMessages.subscribingToLinkedFeed(page: url, feed: feed)
                            if json { Console.standard.error(line) } else { Console.standard.line(fitted(line)) }
                            url = feed.url
                        }
                    }
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
                let run = try await runRefresh(environment, policy: .all, feedIDs: added.map(\.id))
                // A feed whose first check failed, is gone, or did not happen is not kept.
                for outcome in run.summary.outcomes {
                    guard let message = SubscriptionMessages.notSubscribed(outcome) else { continue }
                    _ = try await environment.store.removeSubscription(id: outcome.feed.id)
                    environment.renderer.error(message)
                    failed = true
                }
                if let signal = run.stoppedBy { return ExitCode(stoppedBy: signal) }
                return failed ? ExitStatus.feedsFailed : .success
            }
            if status != .success { throw status }
        }
    }

    /// The first bytes of a document, to tell a web page from a feed; a web page is read on, up to 1 MB, for its head.
    fileprivate final class PageCollector: FeedBodyConsumer {
        var bytes: [UInt8] = []
        static let limit = 1 << 20
        /// How much of a document is looked at before deciding it is not a web page.
        static let opening = 512

        func consume(_ chunk: UnsafeRawBufferPointer) throws {
            bytes.append(contentsOf: chunk.prefix(max(0, Self.limit - bytes.count)))
        }

        /// Begins as an HTML document does: `<!doctype html` or `<html`, after a byte-order mark, blanks and
        /// comments, in any case.
        var isPage: Bool {
            var text = String(decoding: bytes.prefix(Self.opening), as: UTF8.self).lowercased()
            text = String(text.drop { $0 == "\u{FEFF}" || $0.isWhitespace })
            while text.hasPrefix("<!--"), let end = text.range(of: "-->") {
                text = String(text[end.upperBound...].drop(while: \.isWhitespace))
            }
            return text.hasPrefix("<!doctype html") || text.hasPrefix("<html")
        }

        /// A feed is read no further than its opening; a page up to its head's end (or 1 MB).
        var wantsMoreBody: Bool {
            guard bytes.count < Self.limit else { return false }
            guard bytes.count >= Self.opening else { return true }
            guard isPage else { return false }
            return String(decoding: bytes.suffix(64 * 1024), as: UTF8.self).lowercased().range(of: "</head>") == nil
        }
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
