public import Foundation
import NIOConcurrencyHelpers
public import Prometheus
public import RefreshEngine

/// Turns a command's ``EngineEvent``s (fetches, downloads, podping) into Prometheus metrics in one registry.
///
/// One `FetchMetrics` per registry and per process run: its metrics are registered in the
/// `PrometheusCollectorRegistry` it is given (never swift-metrics' global `MetricsSystem`), so tests can give each
/// instance a registry of its own. Feed it events with ``consume(_:)`` (or ``record(_:)`` one at a time) and serve
/// ``exposition()`` at `/metrics` (``MetricsServer``).
///
/// The metrics (every name starts with `podfresh_`):
/// - `feeds_checked_total{result}`: feeds checked, by result: `updated`, `not_modified`, `failed`, `gone`,
///   `removed`, `offline` (`--offline`), `network_offline` (the fetch failed because the network itself was down,
///   which blames no feed). Cancelled fetches are not checks and are not counted.
/// - `new_episodes_total`: episodes stored for the first time and announced.
/// - `fetched_bytes_total`: bytes of feed bodies received (after decompression).
/// - `saved_bytes_total`: bytes not downloaded because the server answered 304 (the size of the body last fetched).
/// - `fetch_duration_seconds`: a histogram of the time from a feed's `fetchStarted` to its completion or failure
///   (fetch, parse and merge), one observation per check that started a fetch.
/// - `feeds_due`, `feeds_overdue`, `leases_held`: ``FleetGauges``, read at each scrape.
/// - `last_successful_merge_timestamp_seconds`: when a check last updated a feed or found it unchanged (unix
///   seconds; 0 until one has).
/// - `fleet_gauge_errors_total`: scrapes whose ``FleetGaugeSource`` threw.
/// - `podping_*`: the podping reader's (``PodpingMetrics``).
public final class FetchMetrics: Sendable {
    /// The upper bounds of the fetch-duration histogram: 50 ms to 60 s (the default `--timeout`).
    public static let fetchDurationBuckets: [Duration] = [
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
    ]

    /// The values of the `result` label of `podfresh_feeds_checked_total`, in the order they are documented.
    public static let results = [
        "updated", "not_modified", "failed", "gone", "removed", "offline", "network_offline", "dropped",
    ]

    /// The registry every metric is registered in.
    public let registry: PrometheusCollectorRegistry

    private let gaugeSource: FleetGaugeSource?
    private let now: @Sendable () -> Date
    private let monotonicNow: @Sendable () -> ContinuousClock.Instant

    private let feedsChecked: [String: Counter]
    private let newEpisodes: Counter
    private let fetchedBytes: Counter
    private let savedBytes: Counter
    private let fetchDuration: DurationHistogram
    private let feedsDue: Gauge
    private let feedsOverdue: Gauge
    private let leasesHeld: Gauge
    private let lastSuccessfulMerge: Gauge
    private let gaugeErrors: Counter
    private let downloads: [String: Counter]
    private let downloadedBytes: Counter
    private let podping: PodpingMetrics

    /// What is carried between events (under the box's lock, never across an `await`).
    private struct State {
        /// When each feed in flight started (from `fetchStarted`), by feed id.
        var started: [Int64: ContinuousClock.Instant] = [:]
        /// Failures that await the batch's verdict on the network (``RefreshFailure/awaitsNetworkVerdict``): counted
        /// as `failed` on `failuresConfirmed` (or when the batch ends), as `network_offline` on `networkOffline`.
        var awaitingVerdict: Set<Int64> = []
    }
    private let state = NIOLockedValueBox(State())

    /// Registers every metric in `registry`.
    ///
    /// - Parameters:
    ///   - registry: Where the metrics live; one per `FetchMetrics` (a new one by default).
    ///   - gauges: Reads the fleet gauges at each ``exposition()``; nil leaves `feeds_due`, `feeds_overdue` and
    ///     `leases_held` at 0.
    ///   - now: The wall clock, for the last successful merge.
    ///   - monotonicNow: The clock fetch durations are measured with.
    public init(
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        gauges: FleetGaugeSource? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        monotonicNow: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.registry = registry
        self.gaugeSource = gauges
        self.now = now
        self.monotonicNow = monotonicNow
        // Every result is registered up front, so each series exists (at 0) before its first check.
        var checked: [String: Counter] = [:]
        for result in Self.results {
            checked[result] = registry.makeCounter(
                descriptor: Self.name("feeds_checked", unit: "total", help: "Feeds checked, by result."),
                labels: [("result", result)])
        }
        feedsChecked = checked
        var downloads: [String: Counter] = [:]
        for result in ["completed", "failed"] {
            downloads[result] = registry.makeCounter(
                descriptor: Self.name("episode_downloads", unit: "total", help: "Episode downloads, by result."),
                labels: [("result", result)])
        }
        self.downloads = downloads
        downloadedBytes = registry.makeCounter(
            descriptor: Self.name(
                "downloaded_bytes", unit: "total", help: "Bytes of episode media written (resumed bytes once)."))
        newEpisodes = registry.makeCounter(
            descriptor: Self.name(
                "new_episodes", unit: "total", help: "Episodes stored for the first time and announced."))
        fetchedBytes = registry.makeCounter(
            descriptor: Self.name(
                "fetched_bytes", unit: "total", help: "Bytes of feed bodies received, after decompression."))
        savedBytes = registry.makeCounter(
            descriptor: Self.name(
                "saved_bytes", unit: "total", help: "Bytes not downloaded because the server answered 304 Not Modified."
            ))
        fetchDuration = registry.makeDurationHistogram(
            descriptor: Self.name(
                "fetch_duration", unit: "seconds",
                help: "Time from the start of a feed's fetch to its stored outcome (fetch, parse, merge)."),
            buckets: Self.fetchDurationBuckets)
        feedsDue = registry.makeGauge(
            descriptor: Self.name("feeds_due", unit: "", help: "Subscriptions due for a check now."))
        feedsOverdue = registry.makeGauge(
            descriptor: Self.name(
                "feeds_overdue", unit: "", help: "Subscriptions due for longer than the overdue threshold."))
        leasesHeld = registry.makeGauge(
            descriptor: Self.name("leases_held", unit: "", help: "Feeds being fetched now."))
        lastSuccessfulMerge = registry.makeGauge(
            descriptor: Self.name(
                "last_successful_merge_timestamp", unit: "seconds",
                help: "Unix time of the last check that updated a feed or found it unchanged."))
        podping = PodpingMetrics(registry: registry, now: now)
        gaugeErrors = registry.makeCounter(
            descriptor: Self.name(
                "fleet_gauge_errors", unit: "total", help: "Scrapes whose due, overdue and lease gauges failed."))
    }

    /// `podfresh_NAME_UNIT` (no `_UNIT` when `unit` is empty), with its `# HELP` text.
    private static func name(_ name: String, unit: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "podfresh", metricName: name, unitName: unit, helpText: help)
    }

    // MARK: - Events

    /// Records every event of `events` until the stream ends (or the task is cancelled).
    public func consume(_ events: AsyncStream<EngineEvent>) async {
        for await event in events { record(event) }
    }

    /// Records one event.
    public func record(_ event: EngineEvent) {
        switch event {
        case .fetch(let event): record(event)
        case .download(let event): record(event)
        case .podping(let event): podping.record(event)
        case .hookFailed, .sync, .idle, .checking: break
        }
    }

    private func record(_ event: DataFetchEvent) {
        switch event {
        case .fetchStarted(let feed):
            let started = monotonicNow()
            state.withLockedValue { $0.started[feed.id] = started }
        case .fetchCompleted(let outcome), .fetchFailed(let outcome):
            finished(outcome)
        case .fetchCancelled(let feed):
            state.withLockedValue { _ = $0.started.removeValue(forKey: feed.id) }
        case .networkOffline:
            let held = state.withLockedValue { state in
                defer { state.awaitingVerdict.removeAll() }
                return state.awaitingVerdict.count
            }
            feedsChecked["network_offline"]?.increment(by: Int64(held))
        case .failuresConfirmed(let outcomes):
            let confirmed = state.withLockedValue { state in
                outcomes.filter { state.awaitingVerdict.remove($0.feed.id) != nil }.count
            }
            feedsChecked["failed"]?.increment(by: Int64(confirmed))
        case .batchCompleted:
            // A verdict always comes before the batch ends; should one not, the failures stand.
            let held = state.withLockedValue { state in
                defer { state.awaitingVerdict.removeAll() }
                return state.awaitingVerdict.count
            }
            feedsChecked["failed"]?.increment(by: Int64(held))
        case .batchStarted, .batchProgress:
            break
        }
    }

    private func record(_ event: DownloadEvent) {
        switch event {
        case .completed(let outcome):
            downloads["completed"]?.increment()
            if case .completed(let bytes, let resumedFrom) = outcome.result {
                downloadedBytes.increment(by: bytes - resumedFrom)
            }
        case .failed:
            downloads["failed"]?.increment()
        case .queued, .started, .progressed, .removed, .skipped, .problem, .finished, .filtered, .olderLeftOut,
            .extraSaved,
            .extraFailed, .tagged:
            break
        }
    }

    private func finished(_ outcome: RefreshOutcome) {
        let ended = monotonicNow()
        let awaitsVerdict = outcome.failure?.awaitsNetworkVerdict == true
        let started = state.withLockedValue { state in
            if awaitsVerdict { state.awaitingVerdict.insert(outcome.feed.id) }
            return state.started.removeValue(forKey: outcome.feed.id)
        }
        if let started { fetchDuration.record(started.duration(to: ended)) }
        podping.stored(outcome)
        if let label = Self.label(outcome.result), !awaitsVerdict { feedsChecked[label]?.increment() }
        if outcome.newEpisodeCount > 0 { newEpisodes.increment(by: Int64(outcome.newEpisodeCount)) }
        if let bytes = outcome.bytesFetched, bytes > 0 { fetchedBytes.increment(by: Int64(bytes)) }
        if let bytes = outcome.bytesSaved, bytes > 0 { savedBytes.increment(by: Int64(bytes)) }
        switch outcome.result {
        case .updated, .notModified: lastSuccessfulMerge.set(now().timeIntervalSince1970)
        default: break
        }
    }

    /// The `result` label of a check, or nil for a cancelled fetch (not a check).
    static func label(_ result: RefreshResult) -> String? {
        switch result {
        case .updated: "updated"
        case .notModified: "not_modified"
        case .failed: "failed"
        case .gone: "gone"
        case .removed: "removed"
        case .offline: "offline"
        case .dropped: "dropped"
        case .cancelled: nil
        }
    }

    // MARK: - Scraping

    /// Reads the fleet gauges and returns every metric in Prometheus' text format (version 0.0.4).
    public func exposition() async -> [UInt8] {
        if let gaugeSource {
            do {
                let gauges = try await gaugeSource()
                feedsDue.set(Double(gauges.due))
                feedsOverdue.set(Double(gauges.overdue))
                leasesHeld.set(Double(gauges.leasesHeld))
            } catch {
                gaugeErrors.increment()
            }
        }
        return registry.emitToBuffer()
    }
}
