public import Foundation

/// Replays feeds' publication histories through ``FeedScheduler/decide(_:policy:)``, the function the refresh calls,
/// and measures how long each episode waited to be found and how many checks that took (`podfresh replay-schedule`,
/// `Scripts/replay-schedule.sh`).
///
/// Each replay covers `window` days ending at a random moment (seeded) within the week after the feed's newest
/// episode. The first check is at the window's start and sees every episode published by then (a first fetch, which
/// holds the whole history); before each later check the model and the schedule see only what a real check would
/// have stored by then. An episode's delay is the time from its date to the first check at or after it; requests are
/// the checks within the window per feed per day.
public struct ScheduleReplay: Sendable {
    /// One feed's history, as its file lists it.
    public struct Feed: Sendable {
        public var name: String
        public var publications: [Publication]
        public var declared: DeclaredSchedule?
        /// `<ttl>` (minutes), `sy:updatePeriod`, `sy:updateFrequency`, `podcast:updateFrequency`'s rule.
        public var ttlMinutes: Int?
        public var syndicationUpdatePeriod: String?
        public var syndicationUpdateFrequency: Int?
        public var podcastUpdateFrequency: String?

        public init(
            name: String, publications: [Publication], declared: DeclaredSchedule? = nil, ttlMinutes: Int? = nil,
            syndicationUpdatePeriod: String? = nil, syndicationUpdateFrequency: Int? = nil,
            podcastUpdateFrequency: String? = nil
        ) {
            self.name = name
            self.publications = publications.sorted { $0.at < $1.at }
            self.declared = declared
            self.ttlMinutes = ttlMinutes
            self.syndicationUpdatePeriod = syndicationUpdatePeriod
            self.syndicationUpdateFrequency = syndicationUpdateFrequency
            self.podcastUpdateFrequency = podcastUpdateFrequency
        }
    }

    /// When the next check comes.
    public enum Policy: Sendable {
        /// podfresh's scheduler under this policy.
        case scheduler(SchedulePolicy)
        /// A fixed interval (seconds), from a random first moment.
        case every(TimeInterval)
    }

    /// What a policy came to over every feed and phase.
    public struct Result: Sendable, Hashable {
        public var feeds: Int
        public var episodes: Int
        public var requestsPerFeedDay: Double
        public var delayMedianMinutes: Double
        public var delayP95Minutes: Double
    }

    public var window: TimeInterval
    public var phases: Int
    public var seed: UInt64

    public init(windowDays: Double = 90, phases: Int = 5, seed: UInt64 = 1) {
        window = windowDays * 86_400
        self.phases = phases
        self.seed = seed
    }

    /// Whether a feed's history is long and busy enough to replay: at least 6 dated episodes, 3 of them in its last
    /// window, and history spanning at least 1.5 windows.
    public func counts(_ feed: Feed) -> Bool {
        guard feed.publications.count >= 6, let first = feed.publications.first?.at,
            let last = feed.publications.last?.at
        else { return false }
        let recent = feed.publications.filter { $0.at > last.addingTimeInterval(-window) }.count
        return recent >= 3 && last.timeIntervalSince(first) >= 1.5 * window
    }

    /// Replays every feed that ``counts(_:)`` under `policy`.
    public func run(_ feeds: [Feed], policy: Policy) -> Result {
        summary(perFeed(feeds, policy: policy).map(\.replays))
    }

    /// Each feed that ``counts(_:)``, replayed under `policy`: its name and what its phases came to.
    public func perFeed(_ feeds: [Feed], policy: Policy) -> [(name: String, replays: Replays, result: Result)] {
        var phasesDrawn = SplitMix(seed: seed)
        var jitter = SplitMix(seed: seed ^ 0x5DEE_CE66_D1CE_B00C)
        var result: [(name: String, replays: Replays, result: Result)] = []
        for feed in feeds where counts(feed) {
            var replays = Replays(feedDays: Double(phases) * window / 86_400)
            for _ in 0..<phases {
                // Every policy gets the same phases: they come from a generator of their own.
                let end = feed.publications.last!.at.addingTimeInterval(phasesDrawn.unit() * 7 * 86_400)
                let one = replay(feed, from: end.addingTimeInterval(-window), to: end, policy: policy, using: &jitter)
                replays.delays += one.delays
                replays.checks += one.checks
            }
            result.append((feed.name, replays, summary([replays])))
        }
        return result
    }

    /// The delays and checks of one feed's phases.
    public struct Replays: Sendable {
        public var delays: [Double] = []
        public var checks = 0
        public var feedDays: Double
    }

    func summary(_ replays: [Replays]) -> Result {
        let delays = replays.flatMap(\.delays).sorted()
        let feedDays = replays.reduce(0) { $0 + $1.feedDays }
        let checks = replays.reduce(0) { $0 + $1.checks }
        /// The nearest-rank percentile, in minutes.
        func percentile(_ p: Double) -> Double {
            guard !delays.isEmpty else { return 0 }
            let rank = Int((p * Double(delays.count)).rounded(.up))
            return delays[min(max(rank, 1), delays.count) - 1] / 60
        }
        return Result(
            feeds: replays.count, episodes: delays.count,
            requestsPerFeedDay: feedDays > 0 ? Double(checks) / feedDays : 0,
            delayMedianMinutes: percentile(0.5), delayP95Minutes: percentile(0.95))
    }

    /// One feed's replay from `start` to `end`: each episode's delay (seconds), and the checks made after `start` up
    /// to `end`.
    func replay(
        _ feed: Feed, from start: Date, to end: Date, policy: Policy, using generator: inout SplitMix
    ) -> (delays: [Double], checks: Int) {
        let publications = feed.publications
        var next = publications.firstIndex { $0.at > start } ?? publications.count
        guard next < publications.count, publications[next].at <= end else { return ([], 0) }
        var now = start
        var model = PublicationModel.learn(
            PublicationHistory(Array(publications[..<next]), now: start), declared: feed.declared, now: start)
        var delays: [Double] = []
        var checks = 0
        if case .every(let interval) = policy { now = start.addingTimeInterval(-generator.unit() * interval) }
        /// The check after the one at `now`.
        func nextCheck(_ generator: inout SplitMix) -> Date {
            switch policy {
            case .every(let interval):
                return now.addingTimeInterval(interval)
            case .scheduler(let schedulePolicy):
                let decision = FeedScheduler.decide(
                    ScheduleInput(
                        now: now, result: .success, model: model, ttlMinutes: feed.ttlMinutes,
                        syndicationUpdatePeriod: feed.syndicationUpdatePeriod,
                        syndicationUpdateFrequency: feed.syndicationUpdateFrequency,
                        podcastUpdateFrequency: feed.podcastUpdateFrequency, jitter: generator.unit()),
                    policy: schedulePolicy)
                let at = decision.nextCheckAt ?? now.addingTimeInterval(schedulePolicy.maxInterval)
                return max(at, now.addingTimeInterval(1))
            }
        }
        // Episodes of the window not found by its end are still waited for; those checks are not counted.
        while next < publications.count, publications[next].at <= end {
            now = nextCheck(&generator)
            if now <= end { checks += 1 }
            var seen: [Publication] = []
            while next < publications.count, publications[next].at <= now {
                if publications[next].at <= end { delays.append(now.timeIntervalSince(publications[next].at)) }
                seen.append(publications[next])
                next += 1
            }
            if case .scheduler = policy, let updated = model.updated(adding: seen, now: now) { model = updated }
        }
        // Checks after the last episode of the window, up to its end, count as well.
        while now < end {
            now = nextCheck(&generator)
            if now <= end { checks += 1 }
            if case .scheduler = policy, let updated = model.updated(adding: [], now: now) { model = updated }
        }
        return (delays, checks)
    }
}

/// A small seeded generator, so a replay gives the same figures every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
