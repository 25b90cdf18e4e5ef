public import Foundation

/// The state of the whole set of subscriptions at one moment, read when `/metrics` is scraped.
///
/// The executable supplies these from whatever store it uses (a ``FleetGaugeSource``), so this module knows nothing of
/// SQLite or PostgreSQL. On SQLite, ``leasesHeld`` is the number of feeds this process is fetching now; on a shared
/// PostgreSQL store it is the number of leases the fleet holds.
public struct FleetGauges: Sendable, Hashable {
    /// Subscriptions due now: never checked, or their next check has passed (gone feeds are never due).
    public var due: Int
    /// Subscriptions due for longer than the overdue threshold (see ``init(dueSince:now:overdueAfter:leasesHeld:)``).
    public var overdue: Int
    /// Feeds being fetched now (SQLite: the coordinator's active feeds; a fleet: leases held).
    public var leasesHeld: Int

    public init(due: Int, overdue: Int, leasesHeld: Int) {
        self.due = due
        self.overdue = overdue
        self.leasesHeld = leasesHeld
    }

    /// Counts the due and the overdue from the time each due subscription became due.
    ///
    /// A subscription is overdue when it has been due for longer than `overdueAfter`: it became due at its next-check
    /// time, or when it was added if it was never checked. A worker that keeps up checks a feed within a minute or so
    /// of it becoming due, so overdue feeds mean the workers are stopped, stuck or too few.
    ///
    /// - Parameters:
    ///   - dueSince: When each due subscription became due, one date per due subscription.
    ///   - now: The moment the gauges describe.
    ///   - overdueAfter: How long a feed may be due before it counts as overdue (``defaultOverdueThreshold``).
    ///   - leasesHeld: Feeds being fetched now.
    public init(dueSince: [Date], now: Date, overdueAfter: Duration, leasesHeld: Int) {
        let threshold = Double(overdueAfter.components.seconds) + Double(overdueAfter.components.attoseconds) / 1e18
        let cutoff = now.addingTimeInterval(-threshold)
        self.init(due: dueSince.count, overdue: dueSince.filter { $0 < cutoff }.count, leasesHeld: leasesHeld)
    }

    /// Ten minutes: `watch` looks for due feeds at least once a minute, and a cold run of a thousand feeds takes well
    /// under a minute, so a feed due for ten minutes is waiting on something that is wrong.
    public static let defaultOverdueThreshold: Duration = .seconds(600)
}

/// Reads the ``FleetGauges`` now; called once per scrape of `/metrics`. It may query a database, so it is `async` and
/// may throw: a scrape whose gauges cannot be read keeps the previous values and counts the error
/// (`podfresh_fleet_gauge_errors_total`).
public typealias FleetGaugeSource = @Sendable () async throws -> FleetGauges
