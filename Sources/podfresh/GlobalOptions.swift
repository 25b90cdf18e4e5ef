import ArgumentParser
import ConsoleOutput
import FeedFetching
import FeedModels
import Foundation
import Measures

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The database: an SQLite file path, or a postgres:// URL.",
            discussion:
                "Default: $PODFRESH_DATABASE, else $XDG_DATA_HOME/podfresh/podfresh.sqlite, else ~/.local/share/podfresh/podfresh.sqlite.",
            valueName: "path-or-url"))
    var database: String?

    func validate() throws {
        if let database, database.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--database needs a file path; \"\(database)\" is empty.")
        }
        // The backend follows from the scheme before anything touches the file system: an unknown scheme is a usage
        // error, never a folder named after it.
        do {
            _ = try databaseTarget
        } catch let error as DatabaseLocationError {
            throw ValidationError(StoreMessages.location(error))
        }
    }

    /// The database this run uses, by `--database`, `$PODFRESH_DATABASE`, or the default path.
    var databaseTarget: DatabaseTarget {
        get throws { try DatabaseLocation.target(explicit: database, environment: ProcessInfo.processInfo.environment) }
    }
}

/// Options of commands that fetch feeds.
struct FetchOptions: ParsableArguments {
    /// The defaults, measured under internet-like latency (Scripts/bench-internet.sh): enough fetches in flight that
    /// slow servers do not hold every slot, and per host as many as a browser opens.
    static let defaultJobs = 128
    static let defaultPerHost = 6

    @Option(name: .long, help: "The most feeds fetched at the same time (1–256).")
    var jobs: Int = FetchOptions.defaultJobs

    @Option(
        name: .long,
        help: "The most feeds fetched at the same time from one host (1–64; on PostgreSQL, by all workers together).")
    var perHost: Int = FetchOptions.defaultPerHost

    @Option(name: .long, help: "Give up on one feed after this long in all (e.g. 60s, 2m).")
    var timeout = DurationArgument("60s")

    @Option(
        name: .long,
        help: "Give up on a host whose name does not resolve, or that does not accept a connection, within this long.")
    var connectTimeout = DurationArgument("10s")

    @Option(
        name: .long,
        help: "Give up on a server that has not begun to answer a request within this long (connecting included).")
    var firstByteTimeout = DurationArgument("30s")

    @Option(name: .long, help: "The largest feed body accepted, in megabytes.")
    var maxFeedSize: Int = 75

    @Flag(
        name: .customLong("http1"),
        help: "Ask feeds over HTTP/1.1 only, even of servers that offer HTTP/2 (then at most --per-host at once).")
    var http1 = false

    /// The default (feeds over HTTP/2 where the server offers it), still accepted: it was opt-in for a while.
    @Flag(name: .customLong("http2"), help: .hidden)
    var http2 = false

    func validate() throws {
        guard !(http1 && http2) else { throw ValidationError("Please give --http1 or --http2, not both.") }
        guard (1...256).contains(jobs) else { throw ValidationError("Please give a --jobs between 1 and 256.") }
        guard (1...64).contains(perHost) else { throw ValidationError("Please give a --per-host between 1 and 64.") }
        guard (1...2048).contains(maxFeedSize) else {
            throw ValidationError("Please give a --max-feed-size between 1 and 2048 (MB).")
        }
        guard connectTimeout.seconds >= 0.1 else {
            throw ValidationError("Please give a --connect-timeout of at least 100ms, such as 10s.")
        }
        guard firstByteTimeout.seconds >= 0.1 else {
            throw ValidationError("Please give a --first-byte-timeout of at least 100ms, such as 30s.")
        }
    }

    /// The fetch limits these options set. Connecting and the first byte never wait longer than the whole fetch.
    var configuration: FetchConfiguration {
        var configuration = FetchConfiguration(
            connectTimeout: .seconds(min(connectTimeout.seconds, timeout.seconds)),
            totalTimeout: timeout.duration,
            maxBodyBytes: maxFeedSize * 1_000_000,
            userAgent: PodfreshVersion.userAgent)
        configuration.firstByteTimeout = .seconds(min(firstByteTimeout.seconds, timeout.seconds))
        configuration.allowsHTTP2 = !http1
        return configuration
    }
}

/// Options of workers sharing a PostgreSQL database.
struct FleetOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "On PostgreSQL: how long a worker's claim on a feed lasts before other workers may take it (e.g. 5m).",
            valueName: "duration"))
    var lease = DurationArgument("5m")

    /// A lease must outlast one fetch (`--timeout`) with time to store it.
    func validate(against fetch: FetchOptions) throws {
        guard lease.seconds.isFinite, lease.seconds >= 5 else {
            throw ValidationError("Please give a --lease of at least 5s, such as 5m.")
        }
        guard lease.seconds > fetch.timeout.seconds else {
            throw ValidationError(
                "Please give a --lease longer than --timeout (\(Measure.duration(seconds: fetch.timeout.seconds))): a lease must outlast a fetch."
            )
        }
    }
}

/// Options of commands that schedule feeds.
struct ScheduleOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "Never check a feed more often than this: the step inside a window where an episode is expected.")
    var minInterval = DurationArgument("5m")

    @Option(name: .long, help: "Check every feed at least this often.")
    var maxInterval = DurationArgument("4h")

    @Option(
        name: .long,
        help:
            "Fetch a feed unconditionally, and read its body to its end, at least this often (e.g. 24h): in case its server answers 304 wrongly, and to see edits past its newest episodes."
    )
    var revalidateEvery = DurationArgument("24h")

    @Flag(
        help:
            "Read every body to its end and parse it, even when its newest episodes are all stored or it is the same as last time."
    )
    var full = false

    func validate() throws {
        guard minInterval.seconds >= 1 else { throw ValidationError("Please give a --min-interval of at least 1s.") }
        guard maxInterval.seconds >= minInterval.seconds else {
            throw ValidationError("--max-interval must not be shorter than --min-interval.")
        }
    }
}

/// A duration written like `90s`, `15m`, `2h`, `1d`, `1w`, or plain seconds.
struct DurationArgument: ExpressibleByArgument, Hashable, Sendable, CustomStringConvertible {
    var seconds: Double
    /// How it was written, when it was written (a default such as `"15m"`, or what the user typed).
    private var text: String?

    init(seconds: Double) { self.seconds = seconds }

    /// A duration written as a user would type it (`"15m"`), for defaults: `--help` shows exactly this.
    init(_ text: String) {
        guard let parsed = Self(argument: text) else { preconditionFailure("not a duration: \(text)") }
        self = parsed
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.seconds == rhs.seconds }
    func hash(into hasher: inout Hasher) { hasher.combine(seconds) }

    init?(argument: String) {
        text = argument.trimmingCharacters(in: .whitespaces)
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "forever" || text == "infinity" {
            seconds = .infinity
            return
        }
        let units: [(String, Double)] = [
            ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800),
        ]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)), value.isFinite, value >= 0 {
                seconds = value * factor
                return
            }
        }
        guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
        seconds = value
    }

    var duration: Duration {
        seconds.isFinite ? .milliseconds(Int64((min(seconds, 1e12) * 1000).rounded())) : .seconds(Int64.max / 4)
    }
    /// The duration as it was typed (`15m`, `24h`, `forever`); otherwise the largest unit that divides it exactly.
    /// `--help` shows defaults through this.
    var description: String {
        if let text { return text }
        guard seconds.isFinite else { return "forever" }
        for (suffix, factor) in [("w", 604_800.0), ("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)]
        where seconds >= factor {
            let count = seconds / factor
            if count == count.rounded() { return "\(Int(count))\(suffix)" }
        }
        if seconds == 0 { return "0s" }
        let milliseconds = seconds * 1000
        if milliseconds == milliseconds.rounded() { return "\(Int(milliseconds))ms" }
        return "\(seconds)s"
    }
    static var defaultCompletionKind: CompletionKind { .default }
}

/// `--exec-timeout`, for the commands that run an `--exec` hook.
struct HookTimeoutOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Stop an --exec hook, with every process it started, after this long (e.g. 30s, 2m).",
            valueName: "duration"))
    var execTimeout: DurationArgument = DurationArgument(seconds: 60)

    func validate() throws {
        guard execTimeout.seconds >= 0.001, execTimeout.seconds.isFinite else {
            throw ValidationError("Please give an --exec-timeout of at least 1ms, such as 30s or 2m.")
        }
    }
}

/// `--wait`, for the commands that take the SQLite run lock.
struct RunLockOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "If another refresh, watch or download holds the database, wait for it (bare --wait: as long as it takes; --wait 5m or --wait=5m: at most that long).",
            valueName: "duration"))
    var wait: DurationArgument?
}

/// `--wide`: on a terminal, every column and line whole, as a pipe or a file gets them.
struct WideOption: ParsableArguments {
    @Flag(
        help: """
            Print every column and line whole, as in a pipe or a file (on a terminal, output is fitted to its \
            width: titles cut with "…", short statuses, no media URLs).
            """)
    var wide = false

    /// The width output is fitted to: the terminal's, or nil (not a terminal, or `--wide`) for every column whole.
    var width: Int? {
        wide ? nil : TerminalWidth.ofStandardOutput(environment: ProcessInfo.processInfo.environment)
    }
}
