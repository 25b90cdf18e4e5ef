import ConsoleOutput
import FeedModels
import Foundation
import Measures
import RefreshEngine
import RefreshMetrics

/// Runs `body` (the watch service) while `/metrics` is served at `address`, counting the command's events.
///
/// The server is bound before `body` starts, and one line on standard error says where it serves (with the real port
/// when port 0 was given). It serves until `body` returns: after a graceful shutdown, once the merges in flight have
/// committed and been counted. An address that cannot be bound is said on standard error and exits 70 before any
/// feed is checked.
func withMetrics(
    at address: MetricsAddress, _ environment: RefreshEnvironment, body: () async throws -> Void
) async throws {
    let metrics = FetchMetrics(gauges: storeFleetGauges(environment))
    // Subscribed before the service runs, so no event is missed.
    let events = environment.events.subscribe()
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await metrics.consume(events) }
        // The consumer stops when watch is done (its stream would end only when the events finish).
        defer { group.cancelAll() }
        do {
            try await MetricsServer.serve(at: address, exposition: { await metrics.exposition() }) { server in
                environment.renderer.error(WatchMessages.servingMetrics(at: server.url))
                try await body()
            }
        } catch let error as MetricsServerError {
            environment.renderer.error(WatchMessages.metricsUnavailable(MetricsText.unavailable(error)))
            throw ExitStatus.internalError
        }
    }
}

/// The fleet gauges of the store `watch` runs on: due and overdue from the store's due subscriptions (a feed is due
/// since its next-check time, or since it was added when it was never checked; on PostgreSQL, feeds a worker holds are
/// not waiting and not counted), by the store's clock. As "leases held": on PostgreSQL every worker's leases that have
/// not expired; on SQLite, which has no leases (one watch holds the run lock for the whole file), the feeds this process
/// is fetching now.
func storeFleetGauges(
    _ environment: RefreshEnvironment, overdueAfter: Duration = FleetGauges.defaultOverdueThreshold
) -> FleetGaugeSource {
    let store = environment.store
    let claims = environment.claims
    let coordinator = environment.coordinator
    let clock = environment.clock
    return {
        let now = clock.date
        let due = try await store.dueSubscriptions(at: now)
        let leases = try await claims?.activeLeaseCount() ?? coordinator.activeFeedIDs.count
        return FleetGauges(
            dueSince: due.map { $0.nextCheckAt ?? $0.addedAt }, now: now, overdueAfter: overdueAfter,
            leasesHeld: leases)
    }
}
