import ArgumentParser
import ConsoleOutput
import FeedParsing
import FeedStorage
import Foundation
import RefreshEngine

extension RootCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe to feeds (http, https, file URLs or local paths).",
            discussion: "Each feed is fetched once to check that it is a feed and to learn its title, unless --no-fetch is given; a feed that fails that check is not kept.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var fetch: FetchOptions

        @Argument(help: "Feed URLs or paths.")
        var urls: [String]

        @Flag(help: "Do not fetch the feeds now.")
        var noFetch = false

        @Option(help: ArgumentHelp(
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

        func run() async throws {
            let mode = OutputMode.detect(json: json, quiet: false) == .tty ? .plain : OutputMode.detect(json: json, quiet: false)
            let status = try await withRefreshEnvironment(global, fetch: fetch, output: mode) { environment in
                var added: [Subscription] = []
                var failed = false
                for input in urls {
                    guard let url = FeedAddress.url(from: input) else { continue }
                    do {
                        let subscription = try environment.store.addSubscription(url: url, title: nil, at: Date(), backlog: backlog)
                        added.append(subscription)
                        if noFetch { Console.line("added \(subscription.id) \(url.absoluteString)") }
                    } catch let error as StoreError where error.kind == .duplicate {
                        environment.renderer.error("\(url.absoluteString) is already subscribed")
                        failed = true
                    }
                }
                guard !noFetch, !added.isEmpty else { return failed ? ExitStatus.feedsFailed : .success }
                let run = try await runRefresh(environment, policy: .all, feedIDs: added.map(\.id))
                for outcome in run.summary.outcomes {
                    let reason: String
                    switch outcome.result {
                    case .failed(let failure): reason = "it could not be read as a feed (\(failure.message))"
                    case .gone(let message): reason = "the server says it is gone for good (\(message))"
                    case .cancelled: reason = "it was not checked before podfresh was stopped"
                    default: continue
                    }
                    _ = try environment.store.removeSubscription(id: outcome.feed.id)
                    environment.renderer.error("not subscribed to \(outcome.feed.url.absoluteString): \(reason)")
                    failed = true
                }
                if let signal = run.stoppedBy { return ExitCode(stoppedBy: signal) }
                return failed ? ExitStatus.feedsFailed : .success
            }
            if status != .success { throw status }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unsubscribe from feeds and forget their episodes.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Feeds to remove (id, URL or part of a title).")
        var feeds: [String]

        func run() async throws {
            let store = try openStore(global)
            let selected: [Subscription]
            do {
                selected = try FeedSelector.resolve(feeds, in: try store.subscriptions())
            } catch let error as FeedSelector.SelectionError {
                Console.error(error.description)
                throw ExitCode.validationFailure
            }
            for subscription in selected {
                _ = try store.removeSubscription(id: subscription.id)
                Console.line("removed \(subscription.id) \(TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString))")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show subscriptions: episodes, last success, status and next check.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() async throws {
            let store = try openStoreForReading(global)
            let subscriptions = try store.subscriptions()
            let counts = try store.episodeCounts()
            if json {
                Console.line(JSONValue.array(subscriptions.map { subscriptionJSON($0, episodes: counts[$0.id] ?? 0) }).serialized())
                return
            }
            guard !subscriptions.isEmpty else {
                Console.line("no subscriptions yet: add one with `podfresh add URL` or `podfresh import FILE.opml`")
                return
            }
            let now = Date()
            let rows = subscriptions.map { subscription in
                [
                    String(subscription.id),
                    TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString),
                    String(counts[subscription.id] ?? 0),
                    subscription.lastSuccessAt.map { Console.ago($0, now: now) } ?? "never",
                    TerminalText.sanitize(statusText(subscription)),
                    nextCheckText(subscription, now: now),
                ]
            }
            // On a terminal the table fits its width (titles, status and next check give way, with "…"); in a pipe
            // or a file nothing is cut.
            Console.line(
                TextTable.render(
                    headers: ["ID", "TITLE", "EPISODES", "LAST SUCCESS", "STATUS", "NEXT CHECK"], rows: rows,
                    width: TextTable.terminalWidth(environment: ProcessInfo.processInfo.environment), shrinkable: [1, 4, 5]))
        }
    }
}

/// A subscription's state in a few words.
func statusText(_ subscription: Subscription) -> String {
    if subscription.isGone {
        return "gone: " + (subscription.lastError ?? "HTTP 410") + "; `podfresh refresh \(subscription.id)` checks it again"
    }
    if subscription.failureCount > 0 {
        return "failing ×\(subscription.failureCount): " + (subscription.lastError ?? "unknown error")
    }
    if subscription.lastCheckedAt == nil { return "new" }
    var text = "ok"
    if subscription.isComplete { text = "complete" }
    if let from = subscription.movedFrom { text += " (moved from \(from.absoluteString))" }
    return text
}

func nextCheckText(_ subscription: Subscription, now: Date) -> String {
    if subscription.isGone { return "never (gone)" }
    guard let next = subscription.nextCheckAt else { return "now (never checked)" }
    if next > now.addingTimeInterval(50 * 365 * 86_400) { return "never (\(subscription.nextCheckReason ?? "complete"))" }
    let when = next <= now ? "now" : "in " + FeedScheduler.format(next.timeIntervalSince(now))
    return subscription.nextCheckReason.map { "\(when) (\(TerminalText.sanitize($0)))" } ?? when
}

func subscriptionJSON(_ subscription: Subscription, episodes: Int) -> JSONValue {
    .object([
        ("id", .int(Int(subscription.id))),
        ("url", .url(subscription.url)),
        ("title", .string(subscription.title)),
        ("link", .url(subscription.link)),
        ("episodes", .int(episodes)),
        ("added", .date(subscription.addedAt)),
        ("last_checked", .date(subscription.lastCheckedAt)),
        ("last_success", .date(subscription.lastSuccessAt)),
        ("last_status", .int(subscription.lastStatus)),
        ("failures", .int(subscription.failureCount)),
        ("last_error", .string(subscription.lastError)),
        ("last_error_kind", .string(subscription.lastErrorKind)),
        ("gone", .bool(subscription.isGone)),
        ("complete", .bool(subscription.isComplete)),
        ("moved_from", .url(subscription.movedFrom)),
        ("next_check", .date(subscription.nextCheckAt.flatMap { $0 > Date().addingTimeInterval(50 * 365 * 86_400) ? nil : $0 })),
        ("next_check_reason", .string(subscription.nextCheckReason)),
    ])
}

/// Opens the database for a command that writes (creating and migrating it when needed). A ``StoreError`` exits 70
/// through ``ExitStatus/mapping(_:)``.
func openStore(_ global: GlobalOptions) throws -> FeedStore {
    try FeedStore(path: global.databasePath)
}

/// Opens the database for a command that only reads (`list`, `status`, `episodes`, `export`): nothing is created or
/// migrated, a read-only file or folder works, and another process's write transaction is never waited for.
func openStoreForReading(_ global: GlobalOptions) throws -> FeedStore {
    // The first reader after an upgrade of podfresh upgrades the file, when it may write it.
    try FeedStore.openForReading(path: global.databasePath, upgradingOlderSchema: true)
}

/// Plain writes to standard output and standard error for commands that do not refresh.
enum Console {
    static func line(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    static func error(_ text: String) { FileHandle.standardError.write(Data(("podfresh: " + text + "\n").utf8)) }

    static func ago(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        return seconds < 60 ? "just now" : FeedScheduler.format(seconds) + " ago"
    }
}
