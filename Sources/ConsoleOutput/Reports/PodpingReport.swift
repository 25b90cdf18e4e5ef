import FeedModels
import FeedParsing
import Foundation

/// What `list`, `status` and `episodes` say about podping: per feed, whether its host pings and its last ping; for
/// the store, the cursor into the chain.
public enum PodpingReport {
    /// The keys `list --json` adds to each subscription.
    static func feedFields(_ state: PodpingFeedState?) -> [(String, JSONValue)] {
        [
            ("host_pings", .bool(state?.hostPings ?? false)),
            ("uses_podping", state?.usesPodping.map { .bool($0) } ?? .null),
            ("podping_accounts", .array((state?.hiveAccounts ?? []).map { .string($0) })),
            ("last_ping_at", .date(state?.lastPingAt)),
            ("last_ping_reason", .string(state?.lastPingReason)),
            ("last_ping_block", .int(state?.lastPingBlock.map { Int($0) })),
            ("pings", .int(state?.pingCount ?? 0)),
        ]
    }

    /// The keys `episodes --json` adds to each episode: its feed's podping state.
    static func episodeFields(_ state: PodpingFeedState?) -> [(String, JSONValue)] {
        [("feed_host_pings", .bool(state?.hostPings ?? false)), ("feed_last_ping_at", .date(state?.lastPingAt))]
    }

    /// `status`'s podping line, or nil when podping was never used.
    static func statusLine(states: [Int64: PodpingFeedState], cursor: PodpingCursor?) -> String? {
        // Feeds that declare podping are not use of it: the line appears once the chain was read or a ping came.
        guard cursor != nil || states.values.contains(where: { $0.lastPingAt != nil }) else { return nil }
        let pinging = states.values.filter(\.hostPings).count
        var line = "podping: \(pinging) \(pinging == 1 ? "feed's host pings" : "feeds' hosts ping")"
        if let last = states.values.compactMap(\.lastPingAt).max() {
            line += ", last ping \(LocalTime.string(last))"
        }
        if let block = cursor?.block {
            line += "; chain read to block \(block)"
            if let updated = cursor?.updatedAt { line += " at \(LocalTime.string(updated))" }
        }
        if let holder = cursor?.holder, let until = cursor?.leaseExpiresAt, until > Date() {
            line += "; read by \(TerminalText.sanitize(holder))"
        }
        return line
    }

    /// `status --json`'s `podping` object.
    static func statusJSON(states: [Int64: PodpingFeedState], cursor: PodpingCursor?) -> JSONValue {
        .object([
            ("feeds_pinging", .int(states.values.filter(\.hostPings).count)),
            ("last_ping_at", .date(states.values.compactMap(\.lastPingAt).max())),
            ("cursor_block", .int(cursor?.block.map { Int($0) })),
            ("cursor_updated_at", .date(cursor?.updatedAt)),
            ("reader", .string(cursor?.holder)),
            ("reader_lease_until", .date(cursor?.leaseExpiresAt)),
        ])
    }
}
