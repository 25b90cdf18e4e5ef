public import FeedModels
public import FeedParsing
public import Foundation
import Measures
import RefreshEngine

/// What `podfresh list` prints: a table of subscriptions (episodes, last success, status, next check), a line saying
/// there are none yet, or with `--json` one JSON array.
public struct SubscriptionList: Sendable {
    /// The subscriptions, in the order they are listed.
    public var subscriptions: [Subscription]
    /// How many episodes are stored per subscription id; a missing id counts 0.
    public var episodeCounts: [Int64: Int]
    /// The time "ago" and "in" are measured from.
    public var now: Date

    /// - Parameters:
    ///   - subscriptions: The subscriptions, in the order they are listed.
    ///   - episodeCounts: Stored episodes per subscription id.
    ///   - now: The time "ago" and "in" are measured from.
    public init(subscriptions: [Subscription], episodeCounts: [Int64: Int], now: Date) {
        self.subscriptions = subscriptions
        self.episodeCounts = episodeCounts
        self.now = now
    }

    /// The line `list` prints when there is nothing to list (`refresh` says it too, on standard error).
    public static let noSubscriptions =
        "no subscriptions yet: add one with `podfresh add URL` or `podfresh import FILE.opml`"

    /// The table's column headers, in order (`DL`: the download settings, ``downloads(of:)``).
    public static let headers = ["ID", "TITLE", "EPISODES", "LAST SUCCESS", "STATUS", "NEXT CHECK", "DL"]

    /// The columns that give way (cut with "…") when the table is wider than the terminal: title, status, next check,
    /// downloads.
    static let shrinkable: Set<Int> = [1, 4, 5, 6]

    /// How narrow a column that gives way may get: seven columns still fit a 60-column terminal.
    static let minimumWidth = 7

    /// A next check further away than this is "never": the store parks complete feeds in the far future.
    private static let neverAfter: TimeInterval = 50 * 365 * 86_400

    // MARK: - Text

    /// The table under ``headers``, or ``noSubscriptions`` when there are none.
    ///
    /// - Parameter width: The terminal's width: the table fits it, with short statuses ("failing ×3", "moved") and
    ///   next checks ("in 23h"), and titles cut with "…" (`list FEED` and `--wide` give the rest). Nil (a pipe, a
    ///   file, `--wide`) gives every column whole.
    /// - Returns: The lines joined with newlines, without a final newline.
    public func text(width: Int?) -> String {
        guard !subscriptions.isEmpty else { return Self.noSubscriptions }
        return TextTable.render(
            headers: Self.headers, rows: width == nil ? rows() : shortRows(), width: width,
            shrinkable: Self.shrinkable, minimumWidth: Self.minimumWidth)
    }

    /// One row of cells per subscription, in ``headers`` order, every cell safe to print on a terminal.
    public func rows() -> [[String]] {
        subscriptions.map { subscription in
            [
                String(subscription.id),
                TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString),
                String(episodeCounts[subscription.id] ?? 0),
                subscription.lastSuccessAt.map { Self.ago($0, now: now) } ?? "never",
                TerminalText.sanitize(Self.status(of: subscription)),
                Self.nextCheck(of: subscription, now: now),
                TerminalText.sanitize(Self.downloads(of: subscription)),
            ]
        }
    }

    /// ``rows()`` for a terminal: the short status, the next check without its reason, times in their largest unit.
    func shortRows() -> [[String]] {
        subscriptions.map { subscription in
            [
                String(subscription.id),
                TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString),
                String(episodeCounts[subscription.id] ?? 0),
                subscription.lastSuccessAt.map { Self.shortAgo($0, now: now) } ?? "never",
                Self.shortStatus(of: subscription),
                Self.shortNextCheck(of: subscription, now: now),
                TerminalText.sanitize(Self.downloads(of: subscription)),
            ]
        }
    }

    /// A subscription's state in a word or two, for a terminal: "gone", "failing ×3", "moved", "new", "complete" or
    /// "ok". `status` and `list FEED` give the cause.
    public static func shortStatus(of subscription: Subscription) -> String {
        if subscription.isGone { return "gone" }
        if subscription.failureCount > 0 { return "failing ×\(subscription.failureCount)" }
        if subscription.lastCheckedAt == nil { return "new" }
        if subscription.endedEarly { return "ended early" }
        if subscription.movedFrom != nil { return "moved" }
        return subscription.isComplete ? "complete" : "ok"
    }

    /// When a subscription is next checked, for a terminal: "now", "in 23h", "never"; `list FEED` and `--wide` say
    /// why.
    public static func shortNextCheck(of subscription: Subscription, now: Date) -> String {
        if subscription.isGone { return "never" }
        guard let next = subscription.nextCheckAt, next > now else { return "now" }
        if next > now.addingTimeInterval(neverAfter) { return "never" }
        return "in " + largestUnit(next.timeIntervalSince(now))
    }

    /// "5m ago", "2h ago", "3d ago": how long ago, in its largest unit.
    static func shortAgo(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        return seconds < 60 ? "just now" : largestUnit(seconds) + " ago"
    }

    /// A duration in its largest whole unit: "45s", "12m", "23h", "3d".
    static func largestUnit(_ seconds: TimeInterval) -> String {
        let seconds = Int(seconds.rounded())
        if seconds < 60 { return "\(max(0, seconds))s" }
        if seconds < 3_600 { return "\(seconds / 60)m" }
        if seconds < 86_400 { return "\(seconds / 3_600)h" }
        return "\(seconds / 86_400)d"
    }

    // MARK: - One feed

    /// `list FEED`: one subscription, a line per fact, with its status's cause and its next check's reason in full.
    ///
    /// - Parameters:
    ///   - subscription: The subscription.
    ///   - width: The terminal's width: long values wrap under themselves. Nil (a pipe, `--wide`): one line each.
    /// - Returns: The lines.
    public func detail(of subscription: Subscription, width: Int?) -> [String] {
        let facts: [(String, String)] = [
            ("id", String(subscription.id)),
            ("title", TerminalText.sanitize(subscription.title ?? "(none)")),
            ("url", TerminalText.sanitize(subscription.url.absoluteString)),
            ("episodes", String(episodeCounts[subscription.id] ?? 0)),
            (
                "last success",
                subscription.lastSuccessAt.map { Self.ago($0, now: now) + " (" + LocalTime.string($0) + ")" }
                    ?? "never"
            ),
            ("status", TerminalText.sanitize(Self.status(of: subscription))),
            ("next check", Self.nextCheck(of: subscription, now: now)),
            ("downloads", TerminalText.sanitize(Self.downloads(of: subscription))),
            ("downloading", Self.downloadsFrom(of: subscription)),
            ("filters", DownloadFilterText.line(subscription.downloadFilter)),
            ("extras", subscription.extras ? "on (transcripts, chapters, artwork beside each file)" : "off"),
            ("tags", Self.tagsLine(subscription.tagMode)),
        ]
        let labelWidth = 14
        return facts.flatMap { label, value in
            let line = (label + ":").padding(toLength: labelWidth, withPad: " ", startingAt: 0) + value
            guard let width else { return [line] }
            return TerminalWidth.wrap(line, to: width, indent: labelWidth)
        }
    }

    /// A subscription's state in a few words: gone, failing (how often, why), new, ok or complete, and a move.
    ///
    /// Not sanitised: the error text comes from the feed's server.
    public static func status(of subscription: Subscription) -> String {
        if subscription.isGone {
            return "gone: " + (FeedFailureText.lastError(of: subscription) ?? "HTTP 410")
                + "; `podfresh refresh \(subscription.id)` checks it again"
        }
        if subscription.failureCount > 0 {
            return "failing ×\(subscription.failureCount): "
                + (FeedFailureText.lastError(of: subscription) ?? "unknown error")
        }
        if subscription.lastCheckedAt == nil { return "new" }
        var text = "ok"
        if subscription.isComplete { text = "complete" }
        if subscription.endedEarly { text = endedEarly }
        if let from = subscription.movedFrom { text += " (moved from \(from.absoluteString))" }
        return text
    }

    /// `list FEED`'s tags line: what `set FEED --tags` chose, in words.
    static func tagsLine(_ mode: TagMode) -> String {
        switch mode {
        case .off: "off"
        case .on: "on (each downloaded MP3 or M4A gets the episode's tags, replacing the host's)"
        case .merge: "merge (each downloaded MP3 or M4A gets the episode's tags; the host's other tags stay)"
        }
    }

    /// The warning status of a feed whose last document broke off before its end.
    public static let endedEarly =
        "ended early: its last document breaks off before its end (cut off); the episodes before the break are kept"

    /// A subscription's download settings in a few words: "off", or "on", then "keep N" when retention is set and
    /// "dir"/"template" when its own directory or file-name template is set, "delete played" when played episodes'
    /// files go (`--delete-played on`), "filters" when download filters are set, "extras" when transcripts, chapters
    /// and artwork are saved: "on, keep 5, dir".
    ///
    /// Not sanitised.
    public static func downloads(of subscription: Subscription) -> String {
        var parts = [subscription.downloadsEnabled ? "on" : "off"]
        if let keep = subscription.keepNewest { parts.append("keep \(keep)") }
        if subscription.downloadDirectory != nil { parts.append("dir") }
        if subscription.fileNameTemplate != nil { parts.append("template") }
        if subscription.deletePlayed { parts.append("delete played") }
        if !subscription.downloadFilter.isEmpty { parts.append("filters") }
        if subscription.extras { parts.append("extras") }
        if subscription.tagMode != .off { parts.append("tags") }
        return parts.joined(separator: ", ")
    }

    /// Which episodes a subscription's downloads take (`set --download on`, `--backlog`): "the episodes since
    /// 2026-12-07T22:30:00Z and the newest 1 before", "every episode"; with downloads off, what turning them on takes.
    public static func downloadsFrom(of subscription: Subscription) -> String {
        let before: String
        switch subscription.downloadBacklog {
        case nil: return "every episode"
        case 0?: before = ""
        case let count?: before = " and the newest \(count) before"
        }
        guard subscription.downloadsEnabled else {
            return "once turned on, the episodes from then on" + before
        }
        guard let since = subscription.downloadsSince else { return "every episode" }
        return "the episodes since " + LocalTime.string(since) + before
    }

    /// When a subscription is next checked, relative to `now`, and why (sanitised).
    public static func nextCheck(of subscription: Subscription, now: Date) -> String {
        if subscription.isGone { return "never (gone)" }
        guard let next = subscription.nextCheckAt else { return "now (never checked)" }
        let reason = subscription.nextCheckReason.map { TerminalText.sanitize(ScheduleReasonText.line($0)) }
        if next > now.addingTimeInterval(neverAfter) { return "never (\(reason ?? "complete"))" }
        let when = next <= now ? "now" : "in " + Measure.duration(seconds: next.timeIntervalSince(now).rounded())
        return reason.map { "\(when) (\($0))" } ?? when
    }

    /// How long ago `date` was: "just now" under a minute, else "5m ago", "2h 30m ago", "3d ago".
    static func ago(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        return seconds < 60 ? "just now" : Measure.duration(seconds: seconds.rounded()) + " ago"
    }

    // MARK: - JSON

    /// `list --json`: one JSON array of ``json(_:episodes:now:)`` objects, on one line.
    public func json() -> String {
        JSONValue.array(
            subscriptions.map {
                guard case .object(let fields) = Self.json($0, episodes: episodeCounts[$0.id] ?? 0, now: now) else {
                    preconditionFailure("a subscription is a JSON object")
                }
                return .object(fields + PodpingReport.feedFields(podping[$0.id]))
            }
        ).serialized()
    }

    /// Each feed's podping state, for `--json` (empty: no feed was ever pinged or said it pings).
    public var podping: [Int64: PodpingFeedState] = [:]

    /// One subscription as `list --json` prints it, keys in a fixed order (the README documents them).
    ///
    /// - Parameters:
    ///   - episodes: How many episodes are stored for it.
    ///   - now: A next check far beyond it (a complete feed's) is null.
    public static func json(_ subscription: Subscription, episodes: Int, now: Date) -> JSONValue {
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
            ("last_error", .string(FeedFailureText.lastError(of: subscription))),
            ("last_error_kind", .string(subscription.lastErrorKind.map(EventJSON.kindName))),
            ("gone", .bool(subscription.isGone)),
            ("complete", .bool(subscription.isComplete)),
            ("ended_early", .bool(subscription.endedEarly)),
            ("moved_from", .url(subscription.movedFrom)),
            (
                "next_check",
                .date(subscription.nextCheckAt.flatMap { $0 > now.addingTimeInterval(neverAfter) ? nil : $0 })
            ),
            ("next_check_reason", .string(subscription.nextCheckReason.map { ScheduleReasonText.line($0) })),
            ("next_check_expected", ScheduleReasonText.json(expectedIn: subscription.nextCheckReason)),
            ("downloads", .bool(subscription.downloadsEnabled)),
            ("keep", .int(subscription.keepNewest)),
            ("download_dir", .string(subscription.downloadDirectory)),
            ("name_template", .string(subscription.fileNameTemplate)),
            ("delete_played", .bool(subscription.deletePlayed)),
            ("filters", DownloadFilterText.json(subscription.downloadFilter)),
            ("extras", .bool(subscription.extras)),
            ("downloads_since", .date(subscription.downloadsSince)),
            ("download_backlog", .int(subscription.downloadBacklog)),
            ("tags", .string(subscription.tagMode.rawValue)),
        ])
    }
}
