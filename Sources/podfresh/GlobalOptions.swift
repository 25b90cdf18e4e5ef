import ArgumentParser
import FeedStorage
import Foundation

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The SQLite database file.",
            discussion: "Default: $PODFRESH_DATABASE, else $XDG_DATA_HOME/podfresh/podfresh.sqlite, else ~/.local/share/podfresh/podfresh.sqlite.",
            valueName: "path"))
    var database: String?

    /// The database path this run uses.
    var databasePath: String {
        DatabaseLocation.resolve(explicit: database, environment: ProcessInfo.processInfo.environment)
    }
}

/// Options of commands that fetch feeds.
struct FetchOptions: ParsableArguments {
    @Option(name: .long, help: "The most feeds fetched at the same time (1–64).")
    var jobs: Int = 5

    @Option(name: .long, help: "The most feeds fetched at the same time from one host (1–16).")
    var perHost: Int = 2

    @Option(name: .long, help: "Give up on one feed after this long (e.g. 60s, 2m).")
    var timeout: DurationArgument = DurationArgument(seconds: 60)

    @Option(name: .long, help: "The largest feed body accepted, in megabytes.")
    var maxFeedSize: Int = 50

    func validate() throws {
        guard (1...64).contains(jobs) else { throw ValidationError("Please give a --jobs between 1 and 64.") }
        guard (1...16).contains(perHost) else { throw ValidationError("Please give a --per-host between 1 and 16.") }
        guard (1...2048).contains(maxFeedSize) else { throw ValidationError("Please give a --max-feed-size between 1 and 2048 (MB).") }
    }
}

/// Options of commands that schedule feeds.
struct ScheduleOptions: ParsableArguments {
    @Option(name: .long, help: "Never check a feed more often than this (e.g. 15m).")
    var minInterval: DurationArgument = DurationArgument(seconds: 15 * 60)

    @Option(name: .long, help: "Check every feed at least this often (e.g. 24h).")
    var maxInterval: DurationArgument = DurationArgument(seconds: 24 * 3600)

    @Option(name: .long, help: "Fetch a feed unconditionally at least this often, in case its server answers 304 wrongly (e.g. 24h).")
    var revalidateEvery: DurationArgument = DurationArgument(seconds: 24 * 3600)

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

    init(seconds: Double) { self.seconds = seconds }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "forever" || text == "infinity" {
            seconds = .infinity
            return
        }
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800)]
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
    var description: String { "\(seconds)s" }
    static var defaultCompletionKind: CompletionKind { .default }
}
