import Foundation

/// Why a feed is next due when it is: the facts the scheduler (or a run, or a ping) went by, worded by ConsoleOutput.
///
/// Both stores keep it in the subscription's next-check-reason column as JSON (``storedText``); a column an older
/// podfresh wrote holds the sentence it showed then, which reads back as ``stored(_:)`` (``init(storedText:)``).
public enum ScheduleReason: Sendable, Hashable {
    /// What set a cadence's interval.
    public enum Basis: Sendable, Hashable {
        /// Fewer than two distinct publication dates: the default interval.
        case noRhythmYet
        /// Half the median gap between the publication dates of this many recent episodes.
        case medianGap(episodes: Int)
        /// The server or the feed asked not to be polled more often than this.
        case hint(PollingHint)
        /// The interval was raised to the shortest one allowed.
        case shortestAllowed
        /// The interval was lowered to the longest one allowed.
        case longestAllowed
    }

    /// Who asked for a polling interval: the server's response or the feed itself.
    public enum PollingHint: String, Sendable, Hashable, CaseIterable, Codable {
        /// `Cache-Control: max-age` on the response.
        case maxAge
        /// `Expires` on the response.
        case expires
        /// RSS `<ttl>`.
        case ttl
        /// `sy:updatePeriod` (with `sy:updateFrequency`).
        case syndicationUpdatePeriod
        /// `podcast:updateFrequency`.
        case podcastUpdateFrequency
    }

    /// A successful check: due again after `interval` (before the jitter that spreads checks).
    case cadence(interval: Duration, basis: Basis)
    /// A failed check: backing off after this many failures in a row.
    case backoff(failures: Int)
    /// A failed check whose server's `Retry-After` asked for longer than the backoff.
    case retryAfter
    /// The feed says `itunes:complete`: it will publish nothing more.
    case complete
    /// The server answered 410 Gone.
    case gone
    /// The network was down for the whole run: nothing was recorded against the feed.
    case networkOffline
    /// A podping made the feed due.
    case podping
    /// The sync server (gPodder API) subscribed the feed, or named it: checked in the same run.
    case syncServer
    /// The reason as an older podfresh stored it: a sentence, shown as it was written.
    case stored(String)
}

extension ScheduleReason {
    /// Whether a source of "due now" (podping's notices) made the feed due, rather than its schedule: with
    /// `watch --interval`, such a feed is checked between cycles.
    public var isPushed: Bool {
        switch self {
        case .podping, .syncServer: return true
        default: return false
        }
    }
}

// MARK: - As stored

extension ScheduleReason {
    /// The reason as both stores write it: its facts as JSON, or, for ``stored(_:)``, the text as it was.
    public var storedText: String {
        if case .stored(let text) = self { return text }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The reason stored as `text` (``storedText``); text that is not such JSON (an older podfresh's sentence) is
    /// ``stored(_:)``, except the older `podping`, which ``podping`` still means (`watch` wakes for it).
    public init(storedText text: String) {
        if text.hasPrefix("{"), let reason = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) {
            self = reason
        } else if text == Self.olderPodping {
            self = .podping
        } else {
            self = .stored(text)
        }
    }

    /// What an older podfresh stored for a due time set by a ping.
    static let olderPodping = "podping"

    /// The reason stored as `text`, or nil when none is stored.
    public init?(storedText text: String?) {
        guard let text else { return nil }
        self.init(storedText: text)
    }
}

// MARK: - Codable

/// Flat and stable: `{"kind":"cadence","seconds":3600,"basis":"medianGap","episodes":12}`, `{"kind":"backoff",
/// "failures":3}`, `{"kind":"podping"}`, `{"kind":"stored","text":"…"}`.
extension ScheduleReason: Codable {
    private enum Kind: String, Codable {
        case cadence, backoff, retryAfter, complete, gone, networkOffline, podping, syncServer, stored
    }

    private enum BasisKind: String, Codable {
        case noRhythmYet, medianGap, hint, shortestAllowed, longestAllowed
    }

    private enum CodingKeys: String, CodingKey {
        case kind, seconds, basis, episodes, hint, failures, text
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .kind) {
        case .cadence:
            let seconds = try container.decode(Double.self, forKey: .seconds)
            guard seconds.isFinite, abs(seconds) < 1e15 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .seconds, in: container, debugDescription: "not a usable interval")
            }
            let basis: Basis
            switch try container.decode(BasisKind.self, forKey: .basis) {
            case .noRhythmYet: basis = .noRhythmYet
            case .medianGap: basis = .medianGap(episodes: try container.decode(Int.self, forKey: .episodes))
            case .hint: basis = .hint(try container.decode(PollingHint.self, forKey: .hint))
            case .shortestAllowed: basis = .shortestAllowed
            case .longestAllowed: basis = .longestAllowed
            }
            self = .cadence(interval: .seconds(seconds), basis: basis)
        case .backoff: self = .backoff(failures: try container.decode(Int.self, forKey: .failures))
        case .retryAfter: self = .retryAfter
        case .complete: self = .complete
        case .gone: self = .gone
        case .networkOffline: self = .networkOffline
        case .podping: self = .podping
        case .syncServer: self = .syncServer
        case .stored: self = .stored(try container.decode(String.self, forKey: .text))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .cadence(let interval, let basis):
            try container.encode(Kind.cadence, forKey: .kind)
            let parts = interval.components
            try container.encode(Double(parts.seconds) + Double(parts.attoseconds) / 1e18, forKey: .seconds)
            switch basis {
            case .noRhythmYet: try container.encode(BasisKind.noRhythmYet, forKey: .basis)
            case .medianGap(let episodes):
                try container.encode(BasisKind.medianGap, forKey: .basis)
                try container.encode(episodes, forKey: .episodes)
            case .hint(let hint):
                try container.encode(BasisKind.hint, forKey: .basis)
                try container.encode(hint, forKey: .hint)
            case .shortestAllowed: try container.encode(BasisKind.shortestAllowed, forKey: .basis)
            case .longestAllowed: try container.encode(BasisKind.longestAllowed, forKey: .basis)
            }
        case .backoff(let failures):
            try container.encode(Kind.backoff, forKey: .kind)
            try container.encode(failures, forKey: .failures)
        case .retryAfter: try container.encode(Kind.retryAfter, forKey: .kind)
        case .complete: try container.encode(Kind.complete, forKey: .kind)
        case .gone: try container.encode(Kind.gone, forKey: .kind)
        case .networkOffline: try container.encode(Kind.networkOffline, forKey: .kind)
        case .podping: try container.encode(Kind.podping, forKey: .kind)
        case .syncServer: try container.encode(Kind.syncServer, forKey: .kind)
        case .stored(let text):
            try container.encode(Kind.stored, forKey: .kind)
            try container.encode(text, forKey: .text)
        }
    }
}
