public import FeedModels
public import FeedParsing
public import Foundation
import Measures
import RefreshEngine

/// What `podfresh status` prints: counts of subscriptions (due now, failing, gone, moved), a line for each feed that
/// needs attention, and the last run with what conditional GET saved; or with `--json` one JSON object.
public struct StatusReport: Sendable {
    /// Every subscription.
    public var subscriptions: [Subscription]
    /// How many subscriptions are due now.
    public var dueCount: Int
    /// The last refresh run, nil when none has run.
    public var lastRun: RefreshRun?
    /// Downloaded files on disk, as the store's records count them.
    public var downloads: DownloadUsage
    /// Downloads waiting after a permanent failure (broken links), soonest tried first.
    public var brokenLinks: [DownloadRecord]
    /// When the report is made, for "next try in …".
    public var now: Date
    /// Each feed's podping state, and the cursor into the chain.
    public var podping: [Int64: PodpingFeedState] = [:]
    public var podpingCursor: PodpingCursor?
    /// The sync set-up and its last outcome; nil when sync is not set up.
    public var sync: SyncState?
    /// The settings new subscriptions start with (`set --new-feeds`); nil for the defaults.
    public var newFeedSettings: NewFeedSettings?

    /// - Parameters:
    ///   - subscriptions: Every subscription.
    ///   - dueCount: How many are due now.
    ///   - lastRun: The last refresh run, if any.
    ///   - downloads: Downloaded files on disk, from the store's records.
    ///   - records: Download records; those waiting at `now` after a permanent failure are reported.
    public init(
        subscriptions: [Subscription], dueCount: Int, lastRun: RefreshRun?, downloads: DownloadUsage = DownloadUsage(),
        records: [DownloadRecord] = [], now: Date = Date()
    ) {
        self.subscriptions = subscriptions
        self.dueCount = dueCount
        self.lastRun = lastRun
        self.downloads = downloads
        self.now = now
        brokenLinks = records.filter { $0.isWaiting(at: now) && !$0.deletedByUser && !$0.removedByRetention }
            .sorted { ($0.retryAfter ?? now) < ($1.retryAfter ?? now) }
    }

    /// Subscriptions whose last checks failed (gone ones excepted: they are listed as gone).
    public var failing: [Subscription] { subscriptions.filter { $0.failureCount > 0 && !$0.isGone } }
    /// Subscriptions whose server said 410 Gone.
    public var gone: [Subscription] { subscriptions.filter(\.isGone) }
    /// Subscriptions whose last document broke off before its end (failing and gone ones are listed as such).
    public var endedEarly: [Subscription] {
        subscriptions.filter { $0.endedEarly && $0.failureCount == 0 && !$0.isGone }
    }
    /// Subscriptions that moved to a new URL.
    public var moved: [Subscription] { subscriptions.filter { $0.movedFrom != nil } }

    /// The share of the last run's checks answered 304 Not Modified (0…1), nil when it checked nothing.
    public var conditionalHitRate: Double? {
        let checked = lastRun?.feedsChecked ?? 0
        return checked > 0 ? Double(lastRun?.feedsNotModified ?? 0) / Double(checked) : nil
    }

    // MARK: - Text

    /// The counts, then one line per failing, gone and moved subscription, then the last run.
    ///
    /// - Parameter width: The terminal's width: a longer line wraps (under the feed's name for a feed's line), so the
    ///   cause of a failure is read whole. Nil (a pipe, a file, `--wide`): one line each.
    public func lines(width: Int?) -> [String] {
        let whole = self.lines()
        guard let width else { return whole }
        return whole.flatMap { TerminalWidth.wrap($0, to: width, indent: Self.hangingIndent($0)) }
    }

    /// Where a wrapped line goes on: a feed's line under the feed (past its label, `failing`, `ended early` …), any
    /// other line two columns in.
    static func hangingIndent(_ line: String) -> Int {
        guard line.hasPrefix("  "), let gap = line.dropFirst(2).range(of: "  ") else { return 2 }
        let afterLabel = line[gap.upperBound...].prefix { $0 == " " }.count
        return line.distance(from: line.startIndex, to: gap.upperBound) + afterLabel
    }

    /// The counts, then one line per failing, gone and moved subscription, then the last run: each whole.
    public func lines() -> [String] {
        let failing = self.failing
        let gone = self.gone
        let moved = self.moved
        var lines = [
            "subscriptions: \(subscriptions.count)   due now: \(dueCount)   failing: \(failing.count)   gone: \(gone.count)   moved: \(moved.count)"
        ]
        for subscription in failing {
            lines.append(
                "  failing  \(subscription.id) \(Self.name(subscription)): \(TerminalText.sanitize(FeedFailureText.lastError(of: subscription) ?? "")) (×\(subscription.failureCount))"
            )
        }
        for subscription in gone {
            lines.append(
                "  gone     \(subscription.id) \(Self.name(subscription)) (`podfresh refresh \(subscription.id)` checks it again; it revives if it answers)"
            )
        }
        for subscription in endedEarly {
            lines.append(
                "  ended early  \(subscription.id) \(Self.name(subscription)): its last document breaks off before its end; the episodes before the break are kept"
            )
        }
        for subscription in moved {
            lines.append(
                "  moved    \(subscription.id) \(subscription.movedFrom?.absoluteString ?? "") → \(subscription.url.absoluteString) (undo with `podfresh move \(subscription.id) --undo`)"
            )
        }
        if let last = lastRun {
            var line =
                "last run: \(LocalTime.string(last.startedAt)), \(last.feedsChecked) checked, \(last.feedsFailed) failed, \(last.newEpisodes) new episode\(last.newEpisodes == 1 ? "" : "s")"
            if let hitRate = conditionalHitRate {
                line +=
                    "; conditional GET: \(Int((hitRate * 100).rounded()))% not modified, \(Measure.bytes(last.bytesSaved)) saved, \(Measure.bytes(last.bytesDownloaded)) downloaded"
            }
            if last.feedsReadShort > 0 {
                line +=
                    "; \(last.feedsReadShort) \(last.feedsReadShort == 1 ? "feed" : "feeds") read short (nothing new past their newest episodes)"
            }
            lines.append(line)
        } else {
            lines.append("last run: never")
        }
        lines.append(
            "downloads on disk: \(downloads.files) \(downloads.files == 1 ? "file" : "files"), \(Measure.bytes(downloads.bytes))"
        )
        if let next = brokenLinks.first?.retryAfter {
            // Broken links, or also downloads whose host did not resolve or answer: each waits before its next try.
            let label =
                brokenLinks.allSatisfy { DownloadFailure.isBrokenLink(stored: $0.permanentError ?? $0.lastError) }
                ? "broken links" : "failed downloads"
            lines.append(
                "\(label): \(brokenLinks.count) waiting, next try after \(LocalTime.string(next)) "
                    + "(\(EventText.fromNow(next, now: now))); `podfresh download --retry` tries them now")
            for record in brokenLinks {
                let feed =
                    subscriptions.first { $0.id == record.subscriptionID }.map(Self.name)
                    ?? "feed \(record.subscriptionID)"
                let failures = record.permanentFailures == 1 ? "once" : "\(record.permanentFailures) times"
                let error =
                    DownloadFailureText.stored(record.permanentError ?? record.lastError).map {
                        ": " + TerminalText.sanitize($0)
                    } ?? ""
                lines.append("  \(feed): \(TerminalText.sanitize(record.episodeKey)): failed \(failures)\(error)")
            }
        }
        if let line = PodpingReport.statusLine(states: podping, cursor: podpingCursor) { lines.append(line) }
        if let sync { lines += SyncText.statusLines(sync) }
        if let line = NewFeedSettingsText.statusLine(newFeedSettings) { lines.append(line) }
        return lines
    }

    private static func name(_ subscription: Subscription) -> String {
        TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString)
    }

    // MARK: - JSON

    /// `status --json`: ``jsonValue`` on one line.
    public func json() -> String { jsonValue.serialized() }

    /// The `status --json` object, keys in a fixed order (the README documents them).
    public var jsonValue: JSONValue {
        let runJSON: JSONValue =
            lastRun.map { run in
                .object([
                    ("started", .date(run.startedAt)), ("ended", .date(run.endedAt)),
                    ("feeds_checked", .int(run.feedsChecked)), ("feeds_failed", .int(run.feedsFailed)),
                    ("feeds_not_modified", .int(run.feedsNotModified)), ("new_episodes", .int(run.newEpisodes)),
                    ("bytes_downloaded", .int(run.bytesDownloaded)), ("bytes_saved", .int(run.bytesSaved)),
                    ("feeds_read_short", .int(run.feedsReadShort)),
                ])
            } ?? .null
        return JSONValue.object([
            ("subscriptions", .int(subscriptions.count)),
            ("due_now", .int(dueCount)),
            (
                "failing",
                .array(
                    failing.map {
                        .object([
                            ("id", .int(Int($0.id))), ("title", .string($0.title)), ("url", .url($0.url)),
                            ("failures", .int($0.failureCount)), ("error", .string(FeedFailureText.lastError(of: $0))),
                        ])
                    })
            ),
            (
                "gone",
                .array(
                    gone.map {
                        .object([("id", .int(Int($0.id))), ("title", .string($0.title)), ("url", .url($0.url))])
                    })
            ),
            (
                "moved",
                .array(
                    moved.map {
                        .object([
                            ("id", .int(Int($0.id))), ("title", .string($0.title)), ("from", .url($0.movedFrom)),
                            ("to", .url($0.url)),
                        ])
                    })
            ),
            (
                "ended_early",
                .array(
                    endedEarly.map {
                        .object([("id", .int(Int($0.id))), ("title", .string($0.title)), ("url", .url($0.url))])
                    })
            ),
            ("last_run", runJSON),
            ("conditional_hit_rate", .number(conditionalHitRate.map { ($0 * 1000).rounded() / 1000 })),
            (
                "downloads_on_disk",
                .object([("files", .int(downloads.files)), ("bytes", .int(Int(clamping: downloads.bytes)))])
            ),
            (
                "broken_links",
                .array(
                    brokenLinks.map {
                        .object([
                            ("feed_id", .int(Int($0.subscriptionID))), ("id", .string($0.episodeKey)),
                            ("failures", .int($0.permanentFailures)),
                            ("error", .string(DownloadFailureText.stored($0.permanentError ?? $0.lastError))),
                            ("retry_after", .date($0.retryAfter)),
                        ])
                    })
            ),
            ("podping", PodpingReport.statusJSON(states: podping, cursor: podpingCursor)),
            ("sync", SyncText.statusJSON(sync)),
            ("new_feed_settings", NewFeedSettingsText.json(newFeedSettings)),
        ])
    }
}
