import FeedModels
import Foundation

// Both stores keep the model as this JSON in the subscription's publication-model column: compact (a year of a
// weekly show is about 2 kB) and in stable names, so a renamed case never needs a decoder of its own.
//
// {"v":1,"zone":"America/New_York","learned":1733.., "p":[[1733..,-18000],[1734..,null]],
//  "slots":[{"s":21600,"days":"weekly","mask":4,"early":-60,"late":300,"onTime":11,"of":12,"rhythm":"weekly"}],
//  "declared":{"rule":"FREQ=WEEKLY","start":1690..}}
extension PublicationModel {
    /// The model as both stores write it.
    public var storedText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(Stored(self)) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The model stored as `text`; nil for none, or for text this podfresh cannot read (the model is then learned
    /// again from the stored episodes).
    public init?(storedText text: String?) {
        guard let text, let stored = try? JSONDecoder().decode(Stored.self, from: Data(text.utf8)), stored.v == 1
        else { return nil }
        var history = PublicationHistory()
        let learnedAt = Date(timeIntervalSince1970: stored.learned)
        history.add(
            stored.p.compactMap { entry in
                guard let at = entry.first ?? nil, at.isFinite else { return nil }
                let offset = entry.count > 1 ? entry[1].flatMap { abs($0) <= 64_800 ? Int($0) : nil } : nil
                return Publication(at: Date(timeIntervalSince1970: at), writtenOffset: offset)
            }, now: max(learnedAt, Date(timeIntervalSince1970: stored.p.compactMap { $0.first ?? nil }.max() ?? 0)))
        self.init(
            history: history, zone: LocalZone(identifier: stored.zone),
            slots: stored.slots.compactMap(\.slot),
            declared: stored.declared.map {
                DeclaredSchedule(rule: $0.rule, start: $0.start.map(Date.init(timeIntervalSince1970:)))
            },
            learnedAt: learnedAt)
    }

    private struct Stored: Codable {
        var v: Int
        var zone: String
        var learned: Double
        var p: [[Double?]]
        var slots: [StoredSlot]
        var declared: StoredDeclared?

        init(_ model: PublicationModel) {
            v = 1
            zone = model.zone.identifier
            learned = model.learnedAt.timeIntervalSince1970.rounded()
            p = model.history.publications.map {
                [$0.at.timeIntervalSince1970.rounded(), $0.writtenOffset.map(Double.init)]
            }
            slots = model.slots.map(StoredSlot.init)
            declared = model.declared.map { StoredDeclared(rule: $0.rule, start: $0.start?.timeIntervalSince1970) }
        }
    }

    private struct StoredDeclared: Codable {
        var rule: String
        var start: Double?
    }

    private struct StoredSlot: Codable {
        var s: Int
        var days: String
        var mask: Int?
        var weekday: Int?
        var parity: Int?
        var day: Int?
        var interval: Int?
        var anchor: Int?
        var early: Int
        var late: Int
        var onTime: Int?
        var of: Int?
        var rhythm: ExpectedEpisode.Rhythm

        init(_ slot: Slot) {
            s = slot.second
            switch slot.days {
            case .weekly(let mask):
                days = "weekly"
                self.mask = mask
            case .biweekly(let weekday, let parity):
                days = "biweekly"
                self.weekday = weekday
                self.parity = parity
            case .monthly(let day):
                days = "monthly"
                self.day = day
            case .everyDays(let interval, let anchor):
                days = "everyDays"
                self.interval = interval
                self.anchor = anchor
            }
            early = slot.early
            late = slot.late
            onTime = slot.onTime
            of = slot.ofLast
            rhythm = slot.rhythm
        }

        var slot: Slot? {
            guard (0..<86_400).contains(s), abs(early) < 86_400, abs(late) < 86_400 else { return nil }
            let parsed: Slot.Days
            switch days {
            case "weekly":
                guard let mask, mask > 0, mask < 128 else { return nil }
                parsed = .weekly(mask: mask)
            case "biweekly":
                guard let weekday, (0..<7).contains(weekday), let parity, (0..<2).contains(parity) else { return nil }
                parsed = .biweekly(weekday: weekday, parity: parity)
            case "monthly":
                guard let day, (1...31).contains(day) else { return nil }
                parsed = .monthly(day: day)
            case "everyDays":
                guard let interval, (1...3000).contains(interval), let anchor, abs(anchor) < 10_000_000 else {
                    return nil
                }
                parsed = .everyDays(interval: interval, anchor: anchor)
            default:
                return nil
            }
            return Slot(second: s, days: parsed, early: early, late: late, onTime: onTime, ofLast: of, rhythm: rhythm)
        }
    }
}
