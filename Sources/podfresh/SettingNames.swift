import FeedParsing
import RefreshEngine

/// The command-line names that messages mention. The libraries describe a limit or a remedy in their own words; the
/// executable hands them the flag or command a user of podfresh types.
enum SettingNames {
    static let maxFeedSize = "--max-feed-size"
    static let minInterval = "--min-interval"
    static let maxInterval = "--max-interval"
    static let execTimeout = "--exec-timeout"
    static let subscriptionListAdvice = "use `podfresh import`"
    static let upgradeAdvice = "run a command that writes (e.g. `podfresh refresh --offline`) once to upgrade it"

    /// Parser options whose error for an OPML file says to import it.
    static var parserOptions: FeedParserOptions {
        var options = FeedParserOptions()
        options.subscriptionListAdvice = subscriptionListAdvice
        return options
    }

    /// `policy`, with its bounds named by their flags.
    static func named(_ policy: SchedulePolicy) -> SchedulePolicy {
        var policy = policy
        policy.minIntervalName = minInterval
        policy.maxIntervalName = maxInterval
        return policy
    }
}
