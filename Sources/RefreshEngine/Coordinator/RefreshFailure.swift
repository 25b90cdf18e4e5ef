public import FeedFetching
public import FeedModels
public import FeedParsing
import Foundation
import Measures

/// Why one feed's refresh failed, with a typed kind for decisions and a stable name for the store and JSON output.
public struct RefreshFailure: Error, Sendable, Hashable {
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

    /// What happened: the typed error of the step that failed, for ConsoleOutput to word.
    public enum Cause: Sendable, Hashable, Codable {
        /// Fetching the feed failed.
        case fetch(FeedFetchError)
        /// The document is not a usable feed.
        case parse(FeedParseError)
        /// The store failed.
        case store(StoreError)
        /// The feed was not checked, though nothing failed on its side (a podfresh bug).
        case notChecked(NotChecked)
        /// An error of a type podfresh did not expect: its reason text, or its type's name.
        case unexpected(reason: String)
    }

    /// Why a feed of a batch was not checked.
    public enum NotChecked: String, Sendable, Hashable, Codable {
        /// Its subscription was not among the run's.
        case subscriptionNotFound = "subscription-not-found"
        /// Its lease was not found among the run's claims.
        case leaseNotFound = "lease-not-found"
        /// The run ended before a fetch slot was free for it.
        case noFetchSlot = "no-fetch-slot"
    }

    /// What happened.
    public var cause: Cause
    /// True while the failure waits for the batch's verdict on the network: the host could not be reached, and if no
    /// host could, the network is down and the feed is not blamed. The batch ends with either
    /// ``DataFetchEvent/networkOffline(fetches:)`` or ``DataFetchEvent/failuresConfirmed(_:)``.
    public var awaitsNetworkVerdict: Bool

    /// What the user can do about a failure.
    public enum Remedy: Sendable, Hashable {
        /// The feed went over the byte limit on a feed's body (this many bytes): a higher limit would take it.
        case raiseFeedSizeLimit(bytes: Int)
        /// The document is a subscription list: import it instead of subscribing to it.
        case importSubscriptionList
    }

    public init(_ cause: Cause, awaitsNetworkVerdict: Bool = false) {
        self.cause = cause
        self.awaitsNetworkVerdict = awaitsNetworkVerdict
    }

    /// What kind of failure it was.
    public var kind: Kind {
        switch cause {
        case .fetch(let error): .fetch(error.kind)
        case .parse(let error): .parse(error.kind)
        case .store(let error): .store(error.kind)
        case .notChecked, .unexpected: .internal
        }
    }

    /// The HTTP status, when a server answered.
    public var status: Int? {
        switch cause {
        case .fetch(let error): error.status
        case .parse: 200
        default: nil
        }
    }

    /// What the user can do about it, when podfresh knows (the console words it).
    public var remedy: Remedy? {
        switch cause {
        case .fetch(let error): error.maxBodyBytes.map { .raiseFeedSizeLimit(bytes: $0) }
        case .parse(let error): error.isSubscriptionList ? .importSubscriptionList : nil
        default: nil
        }
    }

    /// The cause as stored with the subscription (its last error): the typed facts as JSON, worded when shown, so a
    /// change of wording reaches failures stored before it.
    public var storedCause: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        guard let data = try? encoder.encode(cause) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The cause stored by ``storedCause``; nil for text stored by a podfresh from before causes were typed (that
    /// text is already worded).
    public static func cause(stored text: String) -> Cause? {
        guard text.hasPrefix("{") else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(Cause.self, from: Data(text.utf8))
    }
}

extension RefreshFailure.Cause {
    /// The cause of `error`, thrown while fetching or parsing a feed: a typed error of its step, else an unexpected one
    /// named by `ErrorWords`.
    public init(_ error: any Error) {
        switch error {
        case let error as FeedFetchError: self = .fetch(error)
        case let error as FeedParseError: self = .parse(error)
        case let error as StoreError: self = .store(error)
        default: self = .unexpected(reason: ErrorWords.describe(error))
        }
    }
}
