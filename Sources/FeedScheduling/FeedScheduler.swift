public import FeedModels
public import Foundation

/// The rules a schedule keeps: bounds on the interval, the slot windows, revalidation, backoff.
public struct SchedulePolicy: Sendable, Hashable {
    /// Never check a feed more often than this (seconds): the step inside a slot's window, and the shortest interval.
    public var minInterval: Double
    /// Check every live feed at least this often (seconds).
    public var maxInterval: Double
    /// Fetch unconditionally at least this often (seconds), in case a server answers 304 wrongly.
    public var revalidateEvery: Double
    /// The first backoff step after a failure (seconds); it doubles with every further failure.
    public var backoffBase: Double
    /// The interval for a feed whose publishing rhythm is not known yet (seconds).
    public var defaultInterval: Double
    /// Whether checks are placed at the slots a feed's publication model finds (false: the interval alone, as
    /// podfresh scheduled before it learned slots; the replay benchmark compares the two).
    public var usesSlots: Bool
    /// The first check of a slot's window comes this long before the earliest an episode has come on it (seconds).
    public var slotLead: Double
    /// The check for an episode on time comes this long after its expected time (seconds; up to 30 s more, to
    /// spread feeds that share a slot).
    public var slotSettle: Double
    /// A slot's window stays open this long after the latest an episode has come on it (seconds).
    public var slotTail: Double
    /// Checks a day between slot windows, spread over the hours of the week as the feed's publications are
    /// (``PublishingHours``), for a feed with at least three publications in the last half year.
    public var checksPerDay: Double

    /// The shipped defaults (`--min-interval 5m`, `--max-interval 4h`), chosen with `Scripts/replay-schedule.sh`
    /// (docs/benchmarks.md, "When to look").
    public static let defaultMinInterval: Double = 5 * 60
    public static let defaultMaxInterval: Double = 4 * 3600

    public init(
        minInterval: Double = defaultMinInterval, maxInterval: Double = defaultMaxInterval,
        revalidateEvery: Double = 24 * 3600, backoffBase: Double = 15 * 60, defaultInterval: Double = 2 * 3600,
        usesSlots: Bool = true, slotLead: Double = 0, slotSettle: Double = 60, slotTail: Double = 60 * 60,
        checksPerDay: Double = 8
    ) {
        self.minInterval = max(minInterval, 1)
        self.maxInterval = max(maxInterval, self.minInterval)
        self.revalidateEvery = revalidateEvery
        self.backoffBase = backoffBase
        self.defaultInterval = defaultInterval
        self.usesSlots = usesSlots
        self.slotLead = max(slotLead, 0)
        self.slotSettle = max(slotSettle, 0)
        self.slotTail = max(slotTail, 0)
        self.checksPerDay = max(checksPerDay, 0.1)
    }
}

/// Everything one scheduling decision looks at. Pure data: the clock and the randomness come in as values.
public struct ScheduleInput: Sendable, Hashable {
    /// How the check just made ended.
    public enum Result: Sendable, Hashable { case success, failure }

    public var now: Date
    public var result: Result
    /// Failures in a row, counting this check.
    public var consecutiveFailures: Int
    /// When the feed publishes, as learned from its history; nil when nothing is known.
    public var model: PublicationModel?
    /// The feed's host pings (podping) and its pings are seen: polling is only a safety net.
    public var pushed: Bool
    /// RSS `<ttl>`, minutes.
    public var ttlMinutes: Int?
    /// `sy:updatePeriod`.
    public var syndicationUpdatePeriod: String?
    /// `sy:updateFrequency`.
    public var syndicationUpdateFrequency: Int?
    /// `podcast:updateFrequency` (an `rrule` such as `FREQ=WEEKLY;INTERVAL=2`).
    public var podcastUpdateFrequency: String?
    /// `itunes:complete`.
    public var isComplete: Bool
    /// `Cache-Control: max-age`, seconds.
    public var maxAge: Int?
    /// `Expires`.
    public var expires: Date?
    /// `Retry-After`, resolved.
    public var retryAfter: Date?
    /// A number in 0..<1 that spreads checks (jitter): the composition root draws it, a test fixes it.
    public var jitter: Double

    public init(
        now: Date, result: Result, consecutiveFailures: Int = 0, model: PublicationModel? = nil, pushed: Bool = false,
        ttlMinutes: Int? = nil, syndicationUpdatePeriod: String? = nil, syndicationUpdateFrequency: Int? = nil,
        podcastUpdateFrequency: String? = nil, isComplete: Bool = false, maxAge: Int? = nil, expires: Date? = nil,
        retryAfter: Date? = nil, jitter: Double
    ) {
        self.now = now
        self.result = result
        self.consecutiveFailures = consecutiveFailures
        self.model = model
        self.pushed = pushed
        self.ttlMinutes = ttlMinutes
        self.syndicationUpdatePeriod = syndicationUpdatePeriod
        self.syndicationUpdateFrequency = syndicationUpdateFrequency
        self.podcastUpdateFrequency = podcastUpdateFrequency
        self.isComplete = isComplete
        self.maxAge = maxAge
        self.expires = expires
        self.retryAfter = retryAfter
        self.jitter = min(max(jitter, 0), 1)
    }
}

/// When a feed is next due, and why (shown by `list` and `status`).
public struct ScheduleDecision: Sendable, Hashable {
    /// `Date.distantFuture` for a feed that will publish nothing more.
    public var nextCheckAt: Date?
    public var reason: ScheduleReason

    public init(nextCheckAt: Date?, reason: ScheduleReason) {
        self.nextCheckAt = nextCheckAt
        self.reason = reason
    }
}

/// Per-feed scheduling as pure functions: the binary and `Scripts/replay-schedule.sh` both call ``decide(_:policy:)``.
///
/// After a success a feed is checked at the next of:
/// - **its interval**: half the median gap between its recent publications (``SchedulePolicy/defaultInterval`` with
///   fewer than two), lengthened by what the server and the feed ask (`Cache-Control: max-age`, `Expires`, `<ttl>`,
///   `sy:updatePeriod`/`updateFrequency`, `podcast:updateFrequency`'s rule), kept within [`minInterval`,
///   `maxInterval`] and spread by ±5 %. A feed whose pings are seen is polled at `maxInterval` only, as a safety net;
/// - **a slot's window** (``PublicationModel/activeSlots``): a check `slotSettle` after the expected time (and one
///   before it when episodes have come early on that slot, or `slotLead` asks), then after `minInterval`, twice
///   that, four times …, until `slotTail` after the latest an episode has come on it, or until a publication is seen
///   since the window opened. The hints never postpone a window's checks: a publisher's own rhythm beats a cache
///   lifetime, and a check inside a window costs one conditional request.
///
/// A feed that says `itunes:complete` is not polled again. After a failure the interval backs off exponentially from
/// ``SchedulePolicy/backoffBase`` (doubling per failure, ±20 % jitter) up to `maxInterval`; a `Retry-After` wins when
/// it asks for longer (it is already capped at a week). A success resets the backoff.
public enum FeedScheduler {
    /// The next check after a check that ended as `input` says.
    public static func decide(_ input: ScheduleInput, policy: SchedulePolicy) -> ScheduleDecision {
        switch input.result {
        case .failure:
            let failures = max(1, input.consecutiveFailures)
            let exponent = Double(min(failures - 1, 30))
            var interval = min(policy.backoffBase * pow(2, exponent), policy.maxInterval)
            interval *= 0.8 + 0.4 * input.jitter
            interval = min(max(interval, 60), policy.maxInterval)
            if let retryAfter = input.retryAfter, retryAfter.timeIntervalSince(input.now) > interval {
                return ScheduleDecision(nextCheckAt: retryAfter, reason: .retryAfter)
            }
            return ScheduleDecision(
                nextCheckAt: input.now.addingTimeInterval(interval), reason: .backoff(failures: failures))
        case .success:
            if input.isComplete {
                return ScheduleDecision(nextCheckAt: .distantFuture, reason: .complete)
            }
            let floors = hintFloors(input)
            let (interval, basis) = interval(input, floors: floors, policy: policy)
            let spread = min(max(interval * (0.95 + 0.1 * input.jitter), policy.minInterval), policy.maxInterval)
            var decision = ScheduleDecision(
                nextCheckAt: input.now.addingTimeInterval(spread),
                reason: .cadence(interval: .seconds(interval), basis: basis))
            guard policy.usesSlots, !input.pushed, let model = input.model else { return decision }
            if let hours = PublishingHours(model, now: input.now, policy: policy, floor: floors.map(\.0).max() ?? 0) {
                let next = hours.nextCheck(after: input.now, jitter: input.jitter, policy: policy)
                decision = ScheduleDecision(
                    nextCheckAt: next.at,
                    reason: .cadence(interval: .seconds(next.interval.rounded()), basis: .publishingHours))
            }
            if let window = SlotWindows.nextCheck(model, now: input.now, policy: policy, jitter: input.jitter),
                window.at < decision.nextCheckAt!
            {
                decision = ScheduleDecision(nextCheckAt: window.at, reason: .expected(window.expected))
            }
            return decision
        }
    }

    /// True when the last unconditional fetch is older than `revalidateEvery` (or never happened).
    public static func shouldRevalidate(lastUnconditionalAt: Date?, now: Date, policy: SchedulePolicy) -> Bool {
        guard let last = lastUnconditionalAt else { return true }
        return now.timeIntervalSince(last) >= policy.revalidateEvery
    }

    /// The interval between checks outside slot windows (seconds, before the jitter), with what set it.
    static func interval(
        _ input: ScheduleInput, floors: [(Double, ScheduleReason.PollingHint)], policy: SchedulePolicy
    ) -> (Double, ScheduleReason.Basis) {
        if input.pushed { return (policy.maxInterval, .pushed) }
        var interval: Double
        var basis: ScheduleReason.Basis
        if let half = input.model?.halfMedianGap {
            interval = half
            basis = .medianGap(episodes: min(20, input.model!.history.publications.count))
        } else {
            interval = policy.defaultInterval
            basis = .noRhythmYet
        }
        for (floor, hint) in floors where floor > interval {
            interval = floor
            basis = .hint(hint)
        }
        if interval < policy.minInterval {
            interval = policy.minInterval
            basis = .shortestAllowed
        } else if interval > policy.maxInterval {
            interval = policy.maxInterval
            basis = .longestAllowed
        }
        return (interval, basis)
    }

    /// The shortest intervals the server and the feed allow (seconds), each with who asked.
    static func hintFloors(_ input: ScheduleInput) -> [(Double, ScheduleReason.PollingHint)] {
        var floors: [(Double, ScheduleReason.PollingHint)] = []
        if let maxAge = input.maxAge, maxAge > 0 { floors.append((Double(maxAge), .maxAge)) }
        if let expires = input.expires, expires > input.now {
            floors.append((expires.timeIntervalSince(input.now), .expires))
        }
        if let ttl = input.ttlMinutes, ttl > 0 { floors.append((Double(ttl) * 60, .ttl)) }
        if let period = input.syndicationUpdatePeriod, let seconds = periodSeconds(period) {
            let frequency = Double(max(1, input.syndicationUpdateFrequency ?? 1))
            floors.append((seconds / frequency, .syndicationUpdatePeriod))
        }
        if let rule = input.podcastUpdateFrequency, let seconds = rruleSeconds(rule) {
            floors.append((seconds, .podcastUpdateFrequency))
        }
        return floors
    }

    static func periodSeconds(_ period: String) -> Double? {
        switch period.trimmingCharacters(in: .whitespaces).lowercased() {
        case "hourly": return 3600
        case "daily": return 86_400
        case "weekly": return 7 * 86_400
        case "monthly": return 30 * 86_400
        case "yearly": return 365 * 86_400
        default: return nil
        }
    }

    /// The repeat interval of an iCalendar `rrule` (`FREQ=…;INTERVAL=…`), in seconds.
    public static func rruleSeconds(_ rule: String) -> Double? {
        var frequency: Double?
        var interval = 1.0
        for part in rule.uppercased().split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "FREQ":
                switch pair[1] {
                case "MINUTELY": frequency = 60
                case "HOURLY": frequency = 3600
                case "DAILY": frequency = 86_400
                case "WEEKLY": frequency = 7 * 86_400
                case "MONTHLY": frequency = 30 * 86_400
                case "YEARLY": frequency = 365 * 86_400
                default: return nil
                }
            case "INTERVAL":
                if let value = Double(pair[1]), value >= 1, value < 10_000 { interval = value }
            default: break
            }
        }
        return frequency.map { $0 * interval }
    }
}
