import FeedModels
import Foundation

/// When in the week a feed tends to publish, hour by hour, and the checks spread to match: between slot windows a
/// feed is checked more often in the hours it usually publishes in and less often in the others, within the same
/// number of checks a week (``SchedulePolicy/checksPerDay``).
///
/// A check every `Δ` hours finds an episode `Δ/2` after it on average, so with `λ` episodes an hour expected, the
/// delay is least for a given number of checks when `Δ` goes as `1/√λ`. The rates are the last half year's
/// publications per hour of the week (local time), smoothed over two hours either side, with a floor so that no
/// hour goes unchecked for longer than `maxInterval`.
///
/// A feed that publishes in bursts (a news feed's working day, a show's two parts an evening) is likelier to publish
/// again soon after it just has: for ``burstHorizon`` after its newest publication, the chance of the next one, read
/// off the gaps between its publications of the last half year, is a rate of its own, checked at the same scale.
struct PublishingHours {
    /// Seconds between checks in each hour of the week (0 is Sunday 00:00 local).
    let intervals: [Double]
    let zone: LocalZone
    /// `interval = scale / √rate`, in seconds with the rate per hour.
    let scale: Double
    /// The shortest interval allowed.
    let shortest: Double
    /// The gaps between the publications of the last half year, seconds, shortest first.
    let gaps: [Double]
    let newest: Date?

    /// How long after a publication its gaps say when the next may come.
    static let burstHorizon: TimeInterval = 6 * 3600

    /// The intervals for `model` at `now`, or nil with fewer than three publications off its slots in the last half
    /// year.
    init?(_ model: PublicationModel, now: Date, policy: SchedulePolicy, floor: Double) {
        let recent = model.offSlot(now: now)
        guard recent.count >= 3, let oldest = recent.first?.at else { return nil }
        let weeks = min(max(now.timeIntervalSince(oldest) / (7 * 86_400), 1), Double(SlotLearning.lookbackDays) / 7)
        var counts = [Double](repeating: 0, count: 168)
        for publication in recent { counts[Self.hourOfWeek(model.zone.localSeconds(publication.at))] += 1 }
        let kernel: [Double] = [1, 2, 3, 2, 1]
        var rates = [Double](repeating: 0, count: 168)
        for hour in 0..<168 {
            var sum = 0.0
            for (k, weight) in kernel.enumerated() { sum += weight * counts[(hour + k - 2 + 168) % 168] }
            rates[hour] = sum / 9 / weeks
        }
        let total = rates.reduce(0, +)
        let prior = max(total / 168 * 0.1, 1e-4)
        let roots = rates.map { ($0 + prior).squareRoot() }
        let low = max(policy.minInterval, floor)
        let high = max(policy.maxInterval, low)
        func intervals(_ c: Double) -> [Double] { roots.map { min(max(c / $0, low), high) } }
        func checksPerWeek(_ c: Double) -> Double { intervals(c).reduce(0) { $0 + 3600 / $1 } }
        // A feed's checks grow as the square root of how often it publishes, which is what spends a number of checks
        // over many feeds with the least delay per episode: ``SchedulePolicy/checksPerDay`` is a weekly show's.
        let perWeek = Double(recent.count) / weeks
        let budget = min(max(policy.checksPerDay * 7 * perWeek.squareRoot(), 7), 168 * 3600 / low)
        // The scale whose checks come to the budget, by bisection in log space (fewer checks as it grows).
        var lo = 1.0
        var hi = 1e9
        for _ in 0..<32 {
            let mid = (lo * hi).squareRoot()
            if checksPerWeek(mid) > budget { lo = mid } else { hi = mid }
        }
        self.intervals = intervals(hi)
        zone = model.zone
        scale = hi
        shortest = low
        let from = now.addingTimeInterval(-Double(SlotLearning.lookbackDays) * 86_400)
        let lookback = model.history.publications.filter { $0.at >= from && $0.at <= now }
        gaps = zip(lookback.dropFirst(), lookback).map { $0.at.timeIntervalSince($1.at) }.sorted()
        newest = lookback.last?.at
    }

    static func hourOfWeek(_ local: Int) -> Int {
        let day = LocalDays.floorDiv(local, 86_400)
        return LocalDays.weekday(day) * 24 + (local - day * 86_400) / 3600
    }

    /// The next check after `now`: when the checks owed, hour by hour, add up to one (0.95–1.05 by `jitter`).
    func nextCheck(after now: Date, jitter: Double, policy: SchedulePolicy) -> (at: Date, interval: Double) {
        let target = 0.95 + 0.1 * jitter
        var credit = 0.0
        var at = now.timeIntervalSince1970
        let limit = at + policy.maxInterval
        while at < limit {
            let local = zone.localSeconds(Date(timeIntervalSince1970: at))
            let interval = intervals[Self.hourOfWeek(local)]
            let toHourEnd = Double(3600 - ((local % 3600) + 3600) % 3600)
            if credit + toHourEnd / interval >= target {
                at += (target - credit) * interval
                break
            }
            credit += toHourEnd / interval
            at += toHourEnd
        }
        var next = min(max(at, now.timeIntervalSince1970 + policy.minInterval), limit)
        if let soon = afterBurst(now: now) { next = min(next, soon.timeIntervalSince1970) }
        let nowHour = intervals[Self.hourOfWeek(zone.localSeconds(now))]
        return (Date(timeIntervalSince1970: next), nowHour)
    }

    /// A check owed to the chance of another publication soon after the newest, or nil past ``burstHorizon`` or when
    /// the feed's gaps give none: the rate is the share of the gaps longer than the time since the newest that end
    /// within the next half of that time (a quarter of an hour at least).
    func afterBurst(now: Date) -> Date? {
        guard gaps.count >= 5, let newest else { return nil }
        let since = now.timeIntervalSince(newest)
        guard since >= 0, since < Self.burstHorizon else { return nil }
        let width = max(since / 2, 15 * 60)
        /// The share of gaps no longer than `x`.
        func share(_ x: Double) -> Double {
            var low = 0
            var high = gaps.count
            while low < high {
                let mid = (low + high) / 2
                if gaps[mid] <= x { low = mid + 1 } else { high = mid }
            }
            return Double(low) / Double(gaps.count)
        }
        let open = 1 - share(since)
        guard open > 0 else { return nil }
        let perHour = (share(since + width) - share(since)) / open / (width / 3600)
        guard perHour > 0 else { return nil }
        return now.addingTimeInterval(max(scale / perHour.squareRoot(), shortest))
    }
}
