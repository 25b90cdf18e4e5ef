public import FeedFetching
public import FeedModels
public import FeedParsing

/// Why one feed's refresh failed, with a typed kind for decisions and a stable name for the store and JSON output.
public struct RefreshFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it was: the fetch's, the parse's, the store's, or a podfresh bug.
    public enum Kind: Sendable, Hashable, RawRepresentable {
        case fetch(FeedFetchError.Kind)
        case parse(FeedParseError.Kind)
        case store(StoreError.Kind)
        /// Not the feed's fault nor the network's: a podfresh bug.
        case `internal`

        /// The stable name stored with the subscription and printed in JSON (`timeout`, `not-xml`, `database` …).
        public var rawValue: String {
            switch self {
            case .fetch(let kind): return kind.rawValue
            case .parse(let kind): return kind.rawValue
            case .store(let kind): return kind.rawValue
            case .internal: return "internal"
            }
        }

        public init?(rawValue: String) {
            if let kind = FeedFetchError.Kind(rawValue: rawValue) {
                self = .fetch(kind)
            } else if let kind = FeedParseError.Kind(rawValue: rawValue) {
                self = .parse(kind)
            } else if let kind = StoreError.Kind(rawValue: rawValue) {
                self = .store(kind)
            } else if rawValue == "internal" {
                self = .internal
            } else {
                return nil
            }
        }
    }

    public var kind: Kind
    /// What went wrong and, where possible, what to do, on one line.
    public var message: String
    /// The HTTP status, when a server answered.
    public var status: Int?
    /// True while the failure waits for the batch's verdict on the network: the host could not be reached, and if no
    /// host could, the network is down and the feed is not blamed. The batch ends with either
    /// ``DataFetchEvent/networkOffline(fetches:)`` or ``DataFetchEvent/failuresConfirmed(_:)``.
    public var awaitsNetworkVerdict: Bool
    /// What the user can do about it, when podfresh knows (the console words it).
    public var remedy: Remedy?

    /// What the user can do about a failure.
    public enum Remedy: Sendable, Hashable {
        /// The feed went over the byte limit on a feed's body (this many bytes): a higher limit would take it.
        case raiseFeedSizeLimit(bytes: Int)
        /// The document is a subscription list: import it instead of subscribing to it.
        case importSubscriptionList
    }

    public init(
        kind: Kind, message: String, status: Int? = nil, awaitsNetworkVerdict: Bool = false, remedy: Remedy? = nil
    ) {
        self.kind = kind
        self.message = message
        self.status = status
        self.awaitsNetworkVerdict = awaitsNetworkVerdict
        self.remedy = remedy
    }

    public var description: String { message }
}
