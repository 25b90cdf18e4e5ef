public import Foundation

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
        /// The feed's host pings (podping) and its pings are seen: polling is only a safety net.
        case pushed
        /// Spread over the week as the feed's publications are: shorter in the hours it usually publishes in.
        case publishingHours
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
    /// A check placed at a publishing slot: when the feed's next episode is expected (``ExpectedEpisode``).
    case expected(ExpectedEpisode)
    /// The reason as an older podfresh stored it: a sentence, shown as it was written.
    case stored(String)
}

/// The episode a check is placed for: when it is expected, on which rhythm, and how regular the feed has been on it.
public struct ExpectedEpisode: Sendable, Hashable {
    /// How a slot recurs.
    public enum Rhythm: String, Sendable, Hashable, Codable, CaseIterable {
        /// Every day at about the same time.
        case daily
        /// Monday to Friday at about the same time.
        case weekdays
        /// On the same day of the week.
        case weekly
        /// On the same day of every other week.
        case biweekly
        /// On the same day of the month.
        case monthly
        /// As the feed's `podcast:updateFrequency` (`rrule` and `dtstart`) declares.
        case declared
    }

    /// When the episode is expected.
    public var at: Date
    public var rhythm: Rhythm
    /// Of the last ``ofLast`` days the slot recurred on, on how many an episode came on time; nil for a declared slot.
    public var onTime: Int?
    public var ofLast: Int?
    /// The expected time has passed without the episode: checking until the slot's window closes.
    public var late: Bool
    /// For a slot whose episodes spread over hours (an evening, say): the latest an episode has come on it, with
    /// ``at`` the earliest.
    public var until: Date?

    public init(
        at: Date, rhythm: Rhythm, onTime: Int? = nil, ofLast: Int? = nil, late: Bool = false, until: Date? = nil
    ) {
        self.at = at
        self.rhythm = rhythm
        self.onTime = onTime
        self.ofLast = ofLast
        self.late = late
        self.until = until
    }
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
        case cadence, backoff, retryAfter, complete, gone, networkOffline, podping, syncServer, expected, stored
    }

    private enum BasisKind: String, Codable {
        case noRhythmYet, medianGap, hint, shortestAllowed, longestAllowed, pushed, publishingHours
    }

    private enum CodingKeys: String, CodingKey {
        case kind, seconds, basis, episodes, hint, failures, text, at, rhythm, onTime, ofLast, late, until
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
            case .pushed: basis = .pushed
            case .publishingHours: basis = .publishingHours
            }
            self = .cadence(interval: .seconds(seconds), basis: basis)
        case .backoff: self = .backoff(failures: try container.decode(Int.self, forKey: .failures))
        case .retryAfter: self = .retryAfter
        case .complete: self = .complete
        case .gone: self = .gone
        case .networkOffline: self = .networkOffline
        case .podping: self = .podping
        case .syncServer: self = .syncServer
        case .expected:
            let at = try container.decode(Double.self, forKey: .at)
            guard at.isFinite, abs(at) < 1e12 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .at, in: container, debugDescription: "not a usable time")
            }
            self = .expected(
                ExpectedEpisode(
                    at: Date(timeIntervalSince1970: at),
                    rhythm: try container.decode(
                        ExpectedEpisode.Rhythm.self, forKey: .rhythm),
                    onTime: try container.decodeIfPresent(Int.self, forKey: .onTime),
                    ofLast: try container.decodeIfPresent(Int.self, forKey: .ofLast),
                    late: try container.decodeIfPresent(Bool.self, forKey: .late) ?? false,
                    until: try container.decodeIfPresent(Double.self, forKey: .until).flatMap { until in
                        until.isFinite && abs(until) < 1e12 ? Date(timeIntervalSince1970: until) : nil
                    }))
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
            case .pushed: try container.encode(BasisKind.pushed, forKey: .basis)
            case .publishingHours: try container.encode(BasisKind.publishingHours, forKey: .basis)
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
        case .expected(let expected):
            try container.encode(Kind.expected, forKey: .kind)
            try container.encode(expected.at.timeIntervalSince1970, forKey: .at)
            try container.encode(expected.rhythm, forKey: .rhythm)
            try container.encodeIfPresent(expected.onTime, forKey: .onTime)
            try container.encodeIfPresent(expected.ofLast, forKey: .ofLast)
            if expected.late { try container.encode(true, forKey: .late) }
            try container.encodeIfPresent(expected.until?.timeIntervalSince1970, forKey: .until)
        case .stored(let text):
            try container.encode(Kind.stored, forKey: .kind)
            try container.encode(text, forKey: .text)
        }
    }
}
