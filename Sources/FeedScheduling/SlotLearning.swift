import FeedModels
import Foundation

/// Finds a feed's slots in one time zone: its publications' local times of day are grouped (within ``tolerance``),
/// and each group is tried as a daily, weekdays, weekly, every-other-week and monthly rhythm against the days it
/// could have recurred on. A rhythm holds when at least half of its recent days had an episode, two at least.
struct SlotLearning {
    let zone: LocalZone
    let now: Date

    /// Publications this close in local time of day are one slot.
    static let tolerance = 30 * 60
    /// Only the last half year says when a feed publishes now.
    static let lookbackDays = 182
    /// A weekly rhythm is judged on this many of its latest days; a slot moved or dropped loses it within them.
    static let recentDays = 8
    /// How many of the latest days ``Slot/onTime`` counts over (`11 of the last 12`).
    static let shownDays = 12
    /// At most this many slot windows a week: beyond that a feed publishes too often for windows to pay.
    static let windowsPerWeek = 21.0

    struct Event {
        let day: Int
        let second: Int
    }

    struct Result {
        var slots: [Slot]
        /// Publications on the slots found.
        var explained: Int
    }

    func learn(_ publications: [Publication]) -> Result {
        let from = now.addingTimeInterval(-Double(Self.lookbackDays) * 86_400)
        let events = publications.filter { $0.at >= from && $0.at <= now }.map { publication -> Event in
            let local = zone.localSeconds(publication.at)
            let day = LocalDays.floorDiv(local, 86_400)
            return Event(day: day, second: local - day * 86_400)
        }
        let nowLocal = zone.localSeconds(now)
        let nowDay = LocalDays.floorDiv(nowLocal, 86_400)
        let nowSecond = nowLocal - nowDay * 86_400
        /// Slots of the events' groups within `tolerance`, each with how many publications it explains.
        func found(tolerance: Int, wide: Bool) -> [(slot: Slot, explained: Int)] {
            var found: [(slot: Slot, explained: Int)] = []
            for cluster in Self.clusters(events, tolerance: tolerance) {
                let lastDay = nowSecond >= cluster.center + tolerance ? nowDay : nowDay - 1
                found += slots(of: cluster, events: events, lastDay: lastDay, wide: wide)
            }
            // The most regular first.
            return found.sorted { ($0.slot.regularity, $0.explained) > ($1.slot.regularity, $1.explained) }
        }
        var chosen: [(slot: Slot, explained: Int)] = []
        var windows = 0.0
        for (slot, explained) in found(tolerance: Self.tolerance, wide: false)
        where windows + slot.perWeek <= Self.windowsPerWeek {
            windows += slot.perWeek
            chosen.append((slot, explained))
        }
        // Publications that keep to an evening rather than a minute: a wide slot takes the place of the minute-slots
        // within it when it explains clearly more (two publications at least), so a show on time keeps its minute.
        for (wide, explained) in found(tolerance: Self.wideTolerance, wide: true) where wide.isWide {
            let inside = chosen.indices.filter { wide.contains(chosen[$0].slot) }
            let replaced = inside.reduce(0) { $0 + chosen[$1].explained }
            let freed = inside.reduce(0.0) { $0 + chosen[$1].slot.perWeek }
            guard explained >= replaced + 2, windows - freed + wide.perWeek <= Self.windowsPerWeek else { continue }
            windows += wide.perWeek - freed
            for index in inside.reversed() { chosen.remove(at: index) }
            chosen.append((wide, explained))
        }
        var result = Result(slots: chosen.map(\.slot), explained: chosen.reduce(0) { $0 + $1.explained })
        result.slots.sort { $0.second < $1.second }
        return result
    }

    /// Publications this close in local time of day may make one wide slot.
    static let wideTolerance = 4 * 3600

    /// Signed difference `a - b` of two times of day, in (-12 h, 12 h].
    static func difference(_ a: Int, _ b: Int) -> Int {
        var d = (a - b) % 86_400
        if d > 43_200 { d -= 86_400 }
        if d <= -43_200 { d += 86_400 }
        return d
    }

    struct Cluster {
        var center: Int
        var members: [Int]
    }

    /// Groups of at least two events whose times of day lie within ``tolerance`` of the group's centre (the median).
    static func clusters(_ events: [Event], tolerance: Int = tolerance) -> [Cluster] {
        var remaining = Array(events.indices)
        var result: [Cluster] = []
        while remaining.count >= 2 {
            var best = -1
            var bestCount = 0
            for i in remaining {
                let count = remaining.reduce(0) {
                    $0 + (abs(difference(events[$1].second, events[i].second)) <= tolerance ? 1 : 0)
                }
                if count >= bestCount {
                    best = i
                    bestCount = count
                }
            }
            guard bestCount >= 2 else { break }
            let near = remaining.filter { abs(difference(events[$0].second, events[best].second)) <= tolerance }
            let offsets = near.map { difference(events[$0].second, events[best].second) }.sorted()
            let center = ((events[best].second + offsets[offsets.count / 2]) % 86_400 + 86_400) % 86_400
            var members = remaining.filter { abs(difference(events[$0].second, center)) <= tolerance }
            if members.count < 2 { members = near }
            let taken = Set(members)
            remaining.removeAll { taken.contains($0) }
            result.append(Cluster(center: center, members: members))
        }
        return result
    }

    /// The slots one group of publications makes, each with how many of them it explains.
    /// `wide`: a group of publications spread over hours, which needs three on its days rather than two (chance puts two
    /// in any few hours), and makes no monthly slot.
    private func slots(
        of cluster: Cluster, events: [Event], lastDay: Int, wide: Bool
    ) -> [(slot: Slot, explained: Int)] {
        let least = wide ? 3 : 2
        let memberDays = Set(cluster.members.map { events[$0].day })
        guard let firstDay = memberDays.min(), lastDay >= firstDay else { return [] }
        let recentMembers = cluster.members.sorted { events[$0].day > events[$1].day }.prefix(Self.shownDays)
        let offsets = recentMembers.map { Self.difference(events[$0].second, cluster.center) }
        let early = offsets.min() ?? 0
        let late = offsets.max() ?? 0

        /// The latest days (newest first, at most `limit`) between the first publication and `lastDay` that pass.
        func days(_ limit: Int, where test: (Int) -> Bool) -> [Int] {
            var result: [Int] = []
            var day = lastDay
            while day >= firstDay && result.count < limit {
                if test(day) { result.append(day) }
                day -= 1
            }
            return result
        }
        func hits(_ days: [Int]) -> Int { days.reduce(0) { $0 + (memberDays.contains($1) ? 1 : 0) } }
        func make(_ days: Slot.Days, rhythm: ExpectedEpisode.Rhythm, shown: [Int]) -> (slot: Slot, explained: Int) {
            let slot = Slot(
                second: cluster.center, days: days, early: early, late: late, onTime: hits(shown),
                ofLast: shown.count, rhythm: rhythm)
            return (slot, memberDays.filter { slot.recurs(on: $0) }.count)
        }

        // Every day, or Monday to Friday, judged on their last two weeks.
        let everyDay = days(14) { _ in true }
        if hits(everyDay) >= 4, hits(everyDay) * 4 >= everyDay.count * 3 {
            return [make(.weekly(mask: 0b111_1111), rhythm: .daily, shown: days(Self.shownDays) { _ in true })]
        }
        var mask = 0
        let isWorkday = { (day: Int) in Slot.mondayToFriday & (1 << LocalDays.weekday(day)) != 0 }
        let workdays = days(10, where: isWorkday)
        if hits(workdays) >= 4, hits(workdays) * 4 >= workdays.count * 3 { mask = Slot.mondayToFriday }
        /// The weekday's days of one parity of week numbers, when they hold its episodes and the others none.
        func alternateWeeks(_ weekday: Int) -> (slot: Slot, explained: Int)? {
            for parity in 0..<2 {
                let on = days(6) { LocalDays.weekday($0) == weekday && abs(LocalDays.floorDiv($0, 7) % 2) == parity }
                let off = days(6) { LocalDays.weekday($0) == weekday && abs(LocalDays.floorDiv($0, 7) % 2) != parity }
                if hits(on) >= least, hits(on) * 10 >= on.count * 6, hits(off) * 5 <= off.count {
                    return make(.biweekly(weekday: weekday, parity: parity), rhythm: .biweekly, shown: on)
                }
            }
            return nil
        }
        // Single weekdays, judged on their last weeks; one that fits every other week only is biweekly.
        var biweekly: [(slot: Slot, explained: Int)] = []
        for weekday in 0..<7 where mask & (1 << weekday) == 0 {
            let recent = days(Self.recentDays) { LocalDays.weekday($0) == weekday }
            guard hits(recent) >= least, hits(recent) * 3 >= recent.count else { continue }
            if hits(recent) * 4 < recent.count * 3, let alternate = alternateWeeks(weekday) {
                biweekly.append(alternate)
            } else {
                mask |= 1 << weekday
            }
        }
        if mask != 0 {
            let shown = days(Self.shownDays) { mask & (1 << LocalDays.weekday($0)) != 0 }
            return [make(.weekly(mask: mask), rhythm: Slot.rhythm(ofMask: mask), shown: shown)] + biweekly
        }
        if !biweekly.isEmpty || wide { return biweekly }
        // A day of the month.
        var counts: [Int: Int] = [:]
        for day in memberDays { counts[LocalDays.civil(day).day, default: 0] += 1 }
        guard let dayOfMonth = counts.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) })?.key else { return [] }
        let monthly = Slot(second: cluster.center, days: .monthly(day: dayOfMonth), rhythm: .monthly)
        let recent = days(6) { monthly.recurs(on: $0) }
        if hits(recent) >= 2, hits(recent) * 2 >= recent.count {
            return [make(.monthly(day: dayOfMonth), rhythm: .monthly, shown: recent)]
        }
        return []
    }
}

extension Slot {
    /// Whether every occurrence of `other` falls on this slot's days, within its window (widened by
    /// ``SlotLearning/tolerance``).
    func contains(_ other: Slot) -> Bool {
        let onDays: Bool
        switch (days, other.days) {
        case (.weekly(let mask), .weekly(let inner)): onDays = inner & ~mask == 0
        case (.weekly(let mask), .biweekly(let weekday, _)): onDays = mask & (1 << weekday) != 0
        default: onDays = days == other.days
        }
        guard onDays else { return false }
        let offset = SlotLearning.difference(other.second, second)
        return offset + other.early >= early - SlotLearning.tolerance
            && offset + other.late <= late + SlotLearning.tolerance
    }

    /// How regular the feed has been on the slot, 0…1.
    var regularity: Double {
        guard let onTime, let ofLast, ofLast > 0 else { return 0 }
        return Double(onTime) / Double(ofLast)
    }
}
