import FeedModels
public import Foundation

/// What podfresh knows of when a feed publishes: its recent publications, the zone its publisher schedules in, and
/// the recurring slots found in them (``Slot``), or the slot its `podcast:updateFrequency` declares.
///
/// Pure data, learned from dates: both stores keep it as JSON (``storedText``) and the scheduler reads it. It is
/// learned again when a check brings a publication not seen before, and at least once a day
/// (``relearnAfter``), since a slot a feed stops using fades only as the days without an episode on it pass.
public struct PublicationModel: Sendable, Hashable {
    public private(set) var history: PublicationHistory
    public private(set) var zone: LocalZone
    public private(set) var slots: [Slot]
    /// The feed's `podcast:updateFrequency`, whose slot is used while the history shows none.
    public private(set) var declared: DeclaredSchedule?
    /// When the slots were last learned.
    public private(set) var learnedAt: Date

    /// A model learns again at least this often.
    public static let relearnAfter: TimeInterval = 86_400

    /// The slots to check at: those learned, else the declared one.
    public var activeSlots: [Slot] { slots.isEmpty ? declared?.slot(in: zone).map { [$0] } ?? [] : slots }

    /// Learns the model of `history` as seen at `now`.
    public static func learn(
        _ history: PublicationHistory, declared: DeclaredSchedule? = nil, now: Date
    ) -> PublicationModel {
        let publications = history.publications
        var best: (zone: LocalZone, result: SlotLearning.Result, score: Int)?
        for zone in candidateZones(publications) {
            let result = SlotLearning(zone: zone, now: now).learn(publications)
            // Each slot costs two publications explained: one rhythm in the right zone beats two in the wrong one
            // (a daylight-saving change splits a slot in two). A later zone must score clearly more to win, since
            // chance alone explains a publication or two.
            let score = result.explained - 2 * result.slots.count
            if best == nil || score >= best!.score + 2 { best = (zone, result, score) }
        }
        let zone = best?.zone ?? .utc
        return PublicationModel(
            history: history, zone: zone, slots: best?.result.slots ?? [], declared: declared, learnedAt: now)
    }

    /// The model after a check at `now` that saw `publications`, and, when it read the feed's own fields, its
    /// `podcast:updateFrequency` (`.some(nil)`: it has none now); nil when nothing changed and the model is fresh
    /// enough to keep.
    public func updated(
        adding publications: [Publication], declared newDeclared: DeclaredSchedule?? = .none, now: Date
    ) -> PublicationModel? {
        var history = self.history
        history.add(publications, now: now)
        let declared = newDeclared ?? self.declared
        let changed = history != self.history || declared != self.declared
        guard changed || now.timeIntervalSince(learnedAt) >= Self.relearnAfter || now < learnedAt else { return nil }
        return Self.learn(history, declared: declared, now: now)
    }

    init(history: PublicationHistory, zone: LocalZone, slots: [Slot], declared: DeclaredSchedule?, learnedAt: Date) {
        self.history = history
        self.zone = zone
        self.slots = slots
        self.declared = declared
        self.learnedAt = learnedAt
    }

    /// The zones to try: those that match the offsets the feed writes, when it writes any but UTC; else UTC and one
    /// zone of each daylight-saving rule.
    static func candidateZones(_ publications: [Publication]) -> [LocalZone] {
        let written = publications.compactMap { p in p.writtenOffset.map { (p.at, $0) } }
        guard written.contains(where: { $0.1 != 0 }) else { return LocalZone.ruleFamilies }
        let matching = LocalZone.writtenCandidates.filter { zone in
            let matches = written.reduce(0) { $0 + (zone.offset(at: $1.0) == $1.1 ? 1 : 0) }
            return matches * 5 >= written.count * 4
        }
        if !matching.isEmpty { return matching }
        var counts: [Int: Int] = [:]
        for (_, offset) in written { counts[offset, default: 0] += 1 }
        let common = counts.max { ($0.value, $0.key) < ($1.value, $1.key) }!.key
        return [.fixed(common)]
    }

    /// The publications of the last half year that came on none of the slots: the ones the hours of the week
    /// (``PublishingHours``) spread checks for, since a slot's window finds its own.
    func offSlot(now: Date) -> [Publication] {
        let from = now.addingTimeInterval(-Double(SlotLearning.lookbackDays) * 86_400)
        let slots = activeSlots
        return history.publications.filter { publication in
            guard publication.at >= from, publication.at <= now else { return false }
            let local = zone.localSeconds(publication.at)
            let day = LocalDays.floorDiv(local, 86_400)
            let second = local - day * 86_400
            return !slots.contains { $0.covers(day: day, second: second, margin: SlotLearning.tolerance) }
        }
    }

    /// Half the median gap between the latest publications (at most 20), or nil with fewer than two.
    public var halfMedianGap: TimeInterval? {
        let dates = history.publications.suffix(20).map(\.at.timeIntervalSince1970)
        let gaps = zip(dates.dropFirst(), dates).map { $0 - $1 }.filter { $0 > 0 }.sorted()
        guard !gaps.isEmpty else { return nil }
        let median =
            gaps.count % 2 == 1 ? gaps[gaps.count / 2] : (gaps[gaps.count / 2 - 1] + gaps[gaps.count / 2]) / 2
        return median / 2
    }
}
