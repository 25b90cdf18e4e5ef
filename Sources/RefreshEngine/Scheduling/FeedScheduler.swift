public import FeedModels
public import Foundation

/// The rules a schedule keeps: bounds on the interval, revalidation, backoff.
public struct SchedulePolicy: Sendable, Hashable {
    /// Never check a feed more often than this (seconds).
    public var minInterval: Double
    /// Check every live feed at least this often (seconds).
    public var maxInterval: Double
    /// Fetch unconditionally at least this often (seconds), in case a server answers 304 wrongly.
    public var revalidateEvery: Double
    /// The first backoff step after a failure (seconds); it doubles with every further failure.
    public var backoffBase: Double
    /// The interval for a feed whose publishing rhythm is not known yet (seconds).
    public var defaultInterval: Double

    public init(
        minInterval: Double = 15 * 60, maxInterval: Double = 24 * 3600, revalidateEvery: Double = 24 * 3600,
        backoffBase: Double = 15 * 60, defaultInterval: Double = 6 * 3600
    ) {
        self.minInterval = minInterval
        self.maxInterval = max(maxInterval, minInterval)
        self.revalidateEvery = revalidateEvery
        self.backoffBase = backoffBase
        self.defaultInterval = defaultInterval
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
    /// Published dates of the feed's recent episodes (any order).
    public var recentPublishedDates: [Date]
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
    /// A number in 0..<1 that spreads checks (jitter); pass a fixed one in tests.
    public var jitter: Double

    public init(
        now: Date, result: Result, consecutiveFailures: Int = 0, recentPublishedDates: [Date] = [],
        ttlMinutes: Int? = nil, syndicationUpdatePeriod: String? = nil, syndicationUpdateFrequency: Int? = nil,
        podcastUpdateFrequency: String? = nil, isComplete: Bool = false, maxAge: Int? = nil, expires: Date? = nil,
        retryAfter: Date? = nil, jitter: Double = Double.random(in: 0..<1)
    ) {
        self.now = now
        self.result = result
        self.consecutiveFailures = consecutiveFailures
        self.recentPublishedDates = recentPublishedDates
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
}

/// Per-feed scheduling as pure functions.
///
/// After a success the base interval is half the median gap between the feed's recent episodes (so a new episode
/// is seen within about half a publishing period), or ``SchedulePolicy/defaultInterval`` when fewer than two dates are
/// known. What the server and the feed ask — `Cache-Control: max-age`, `Expires`, `<ttl>`, `sy:updatePeriod` /
/// `updateFrequency`, `podcast:updateFrequency` — may only lengthen it (podfresh never polls more often than asked).
/// The result is kept within [`minInterval`, `maxInterval`] and spread by up to ±5 %. A feed that says
/// `itunes:complete` is not polled again. After a failure the interval backs off exponentially from
/// ``SchedulePolicy/backoffBase`` (doubling per failure, ±20 % jitter) up to `maxInterval`; a `Retry-After` wins when it
/// asks for longer (it is already capped at a week). A success resets the backoff.
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
            var (interval, basis) = cadence(input.recentPublishedDates, policy: policy)
            for (floor, hint) in hintFloors(input) where floor > interval {
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
            let spread = interval * (0.95 + 0.1 * input.jitter)
            return ScheduleDecision(
                nextCheckAt: input.now.addingTimeInterval(min(max(spread, policy.minInterval), policy.maxInterval)),
                reason: .cadence(interval: .seconds(interval), basis: basis))
        }
    }

    /// True when the last unconditional fetch is older than `revalidateEvery` (or never happened).
    public static func shouldRevalidate(lastUnconditionalAt: Date?, now: Date, policy: SchedulePolicy) -> Bool {
        guard let last = lastUnconditionalAt else { return true }
        return now.timeIntervalSince(last) >= policy.revalidateEvery
    }

    /// Half the median gap between distinct publication dates (seconds), with what it went by.
    static func cadence(_ dates: [Date], policy: SchedulePolicy) -> (Double, ScheduleReason.Basis) {
        let sorted = Array(Set(dates.map { $0.timeIntervalSince1970 })).sorted(by: >).prefix(20)
        guard sorted.count >= 2 else { return (policy.defaultInterval, .noRhythmYet) }
        var gaps = zip(sorted, sorted.dropFirst()).map { $0 - $1 }.filter { $0 > 0 }
        gaps.sort()
        guard !gaps.isEmpty else { return (policy.defaultInterval, .noRhythmYet) }
        let median = gaps.count % 2 == 1 ? gaps[gaps.count / 2] : (gaps[gaps.count / 2 - 1] + gaps[gaps.count / 2]) / 2
        return (median / 2, .medianGap(episodes: sorted.count))
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

/// Spreads feeds of one host over a run instead of fetching them all at once.
public enum HostSpreading {
    /// Shuffles the items (so an interrupted run still gives every feed a chance), then interleaves hosts round-robin,
    /// busiest host first, so no host gets a burst.
    public static func order<T>(_ items: [T], host: (T) -> String) -> [T] {
        var generator = SystemRandomNumberGenerator()
        return order(items, host: host, using: &generator)
    }

    public static func order<T, R: RandomNumberGenerator>(
        _ items: [T], host: (T) -> String, using generator: inout R
    ) -> [T] {
        var groups: [String: [T]] = [:]
        var hosts: [String] = []
        for item in items.shuffled(using: &generator) {
            let key = host(item)
            if groups[key] == nil { hosts.append(key) }
            groups[key, default: []].append(item)
        }
        hosts.sort { groups[$0]!.count > groups[$1]!.count }
        var result: [T] = []
        result.reserveCapacity(items.count)
        var round = 0
        while result.count < items.count {
            for key in hosts where round < groups[key]!.count { result.append(groups[key]![round]) }
            round += 1
        }
        return result
    }
}
