public import Foundation

/// One episode's publication as its feed dated it: the instant, and the zone offset the date was written in.
public struct Publication: Sendable, Hashable {
    /// The instant (`pubDate`, `dc:date` or Atom `published`).
    public var at: Date
    /// Seconds east of UTC as the date was written (`-0500` is -18000); nil when the date named no zone.
    public var writtenOffset: Int?

    public init(at: Date, writtenOffset: Int? = nil) {
        self.at = at
        self.writtenOffset = writtenOffset
    }
}

/// The publications a feed's model learns from: distinct, not in the future, newest last, at most
/// ``PublicationHistory/capacity`` of them.
///
/// Items dated within ``burstSpan`` of each other count once (the first of them): a back catalogue imported with one
/// date, or two parts of one release, are one publication, not a rhythm of minutes.
public struct PublicationHistory: Sendable, Hashable {
    /// How many publications are kept: enough for a year of a weekly show, or three months of a daily one.
    public static let capacity = 96
    /// Items this close to the one before are the same release.
    public static let burstSpan: TimeInterval = 15 * 60
    /// A date this far past the check is the publisher's clock, not a future episode; later ones are left out.
    public static let clockSlack: TimeInterval = 10 * 60

    /// Oldest first.
    public private(set) var publications: [Publication]

    public init() { publications = [] }

    /// The history of `publications` as seen at `now` (dates later than that are left out).
    public init(_ publications: [Publication], now: Date) {
        self.publications = []
        add(publications, now: now)
    }

    /// Adds what a check at `now` saw. A date already known (within a second) is kept once, with the zone it was
    /// first written in unless only the new one names a zone.
    public mutating func add(_ new: [Publication], now: Date) {
        let limit = now.addingTimeInterval(Self.clockSlack)
        var all = publications
        all.append(contentsOf: new.filter { $0.at <= limit && $0.at.timeIntervalSince1970 > 0 })
        all.sort { $0.at < $1.at }
        var merged: [Publication] = []
        merged.reserveCapacity(all.count)
        for publication in all {
            if let last = merged.last, publication.at.timeIntervalSince(last.at) < Self.burstSpan {
                if merged[merged.count - 1].writtenOffset == nil {
                    merged[merged.count - 1].writtenOffset = publication.writtenOffset
                }
                continue
            }
            merged.append(publication)
        }
        publications = Array(merged.suffix(Self.capacity))
    }

    /// The newest publication, if any.
    public var newest: Publication? { publications.last }

    public var isEmpty: Bool { publications.isEmpty }
}
