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
    /// The same failure as the feed's last check (``identity`` matches the one stored with the subscription, which
    /// was failing): `watch` and cron mode (`--quiet`) do not say it again, as they do not repeat a broken link's.
    public var isRepeat = false
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

    /// What makes two failures the same one: the kind and the cause's facts, without the times and byte counts
    /// that differ from one check to the next (a `Retry-After` date, how long a limit took to strike, the bytes
    /// received before a cut). Nil for text stored by a podfresh from before causes were typed.
    ///
    /// - Parameters:
    ///   - kind: The failure's stable kind (``Kind/rawValue``), as stored.
    ///   - storedCause: The cause as stored (``storedCause``).
    public static func identity(kind: String?, storedCause: String?) -> String? {
        guard let kind, let storedCause, storedCause.hasPrefix("{"),
            let object = try? JSONSerialization.jsonObject(with: Data(storedCause.utf8))
        else { return nil }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: withoutTimes(object), options: [.sortedKeys, .fragmentsAllowed])
        else { return nil }
        return kind + " " + String(decoding: data, as: UTF8.self)
    }

    /// This failure's ``identity(kind:storedCause:)``.
    public var identity: String? { Self.identity(kind: kind.rawValue, storedCause: storedCause) }

    /// The keys of a stored cause that say when or how much rather than what: left out of an ``identity``.
    static let timeKeys: Set<String> = ["retryAfter", "after", "receivedBytes"]

    private static func withoutTimes(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            return object.filter { !timeKeys.contains($0.key) }.mapValues(withoutTimes)
        }
        if let array = value as? [Any] { return array.map(withoutTimes) }
        return value
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
