import FeedFetching
public import FeedModels
import FeedParsing
public import RefreshEngine

/// How a feed's failed refresh reads, now (an event) or later (a subscription's last error in `list` and `status`):
/// the one place its cause is worded, from ``RefreshFailure``'s typed cause.
public enum FeedFailureText {
    /// The cause on one line, without the remedy: `HTTP 404 Not Found`, `not a usable feed: …`, `database: …`.
    public static func line(_ failure: RefreshFailure) -> String {
        line(failure.cause)
    }

    /// A cause on one line, without the remedy.
    public static func line(_ cause: RefreshFailure.Cause) -> String {
        switch cause {
        case .fetch(let error): FetchFailureText.line(error)
        case .parse(let error): "not a usable feed: \(FeedParseErrorText.line(error))"
        case .store(let error): "database: \(StoreErrorText.line(error))"
        case .notChecked(.subscriptionNotFound): "not checked: the subscription was not found in this run"
        case .notChecked(.leaseNotFound): "not checked: the feed's lease was not found"
        case .notChecked(.noFetchSlot):
            "not checked: the run ended before a fetch slot was free for it (a podfresh bug)"
        case .unexpected(let reason): reason
        }
    }

    /// The cause and, when podfresh knows one, the remedy in the options' words: `… (--max-feed-size)`.
    public static func lineWithRemedy(_ failure: RefreshFailure) -> String {
        failure.remedy.map { line(failure) + " (" + ErrorText.remedy($0) + ")" } ?? line(failure)
    }

    /// A subscription's last error as stored (``RefreshFailure/storedCause``), worded; text stored by a podfresh from
    /// before causes were typed is shown as it was stored.
    public static func stored(_ text: String?) -> String? {
        guard let text else { return nil }
        return RefreshFailure.cause(stored: text).map(line) ?? text
    }

    /// A subscription's last error, worded (nil when the last check did not fail).
    public static func lastError(of subscription: Subscription) -> String? {
        stored(subscription.lastError)
    }
}
