import Foundation
import NIOConcurrencyHelpers
import Podping
import Prometheus
import RefreshEngine

/// The podping reader's metrics, in ``FetchMetrics``'s registry (every name starts with `podfresh_podping_`):
/// - `blocks_read_total`: Hive blocks read.
/// - `notices_total{result}`: podping notices read, by what became of them: `read` (valid), `test` (live tests,
///   ignored), `refused` (malformed, too large, too many feeds).
/// - `feeds_matched_total{trusted}`: feed addresses in notices that name a subscription, believed or not.
/// - `node_failures_total{kind}`: requests a node failed (`transport`, `timeout`, `http_status`, `rate_limited`,
///   `rpc`, `bad_answer`, `lagging`).
/// - `cursor_lag_blocks`, `cursor_lag_seconds`: how far the last block read is behind the head, in blocks, and behind
///   this machine's clock.
/// - `ping_to_merge_seconds`: a histogram of the time from a ping's block to the stored check of the feed it named
///   (one observation per feed made due, at its next check).
final class PodpingMetrics: Sendable {
    static let latencyBuckets: [Double] = [1, 2, 3, 4, 5, 7.5, 10, 15, 30, 60, 120, 300]
    static let nodeFailureKinds = [
        "transport", "timeout", "http_status", "rate_limited", "rpc", "bad_answer", "lagging",
    ]

    private let blocksRead: Counter
    private let notices: [String: Counter]
    private let matched: [Bool: Counter]
    private let nodeFailures: [String: Counter]
    private let lagBlocks: Gauge
    private let lagSeconds: Gauge
    private let pingToMerge: ValueHistogram
    private let now: @Sendable () -> Date
    /// Feeds made due by a ping, with the earliest such ping's block time, until their next stored check.
    private let pending = NIOLockedValueBox([Int64: Date]())

    init(registry: PrometheusCollectorRegistry, now: @escaping @Sendable () -> Date) {
        self.now = now
        func name(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "podfresh", metricName: "podping_" + name, unitName: unit, helpText: help)
        }
        blocksRead = registry.makeCounter(descriptor: name("blocks_read", "total", "Hive blocks read."))
        var notices: [String: Counter] = [:]
        for result in ["read", "test", "refused"] {
            notices[result] = registry.makeCounter(
                descriptor: name("notices", "total", "Podping notices read, by result."), labels: [("result", result)])
        }
        self.notices = notices
        var matched: [Bool: Counter] = [:]
        for trusted in [true, false] {
            matched[trusted] = registry.makeCounter(
                descriptor: name(
                    "feeds_matched", "total", "Feed addresses in notices that name a subscription, by trust."),
                labels: [("trusted", trusted ? "true" : "false")])
        }
        self.matched = matched
        var failures: [String: Counter] = [:]
        for kind in Self.nodeFailureKinds {
            failures[kind] = registry.makeCounter(
                descriptor: name("node_failures", "total", "Requests a Hive API node failed, by kind."),
                labels: [("kind", kind)])
        }
        nodeFailures = failures
        lagBlocks = registry.makeGauge(
            descriptor: name("cursor_lag_blocks", "", "Blocks between the last block read and the chain's head."))
        lagSeconds = registry.makeGauge(
            descriptor: name("cursor_lag", "seconds", "Age of the last block read, by this machine's clock."))
        pingToMerge = registry.makeValueHistogram(
            descriptor: name(
                "ping_to_merge", "seconds", "Time from a ping's block to the stored check of the feed it named."),
            buckets: Self.latencyBuckets)
    }

    func record(_ event: PodpingEvent) {
        switch event {
        case .blocksRead(let read):
            blocksRead.increment(by: Int64(read.count))
            notices["read"]?.increment(by: Int64(read.notices))
            notices["test"]?.increment(by: Int64(read.tests))
            notices["refused"]?.increment(by: Int64(read.refused))
            lagBlocks.set(Double(max(0, read.head - read.through)))
            if let time = read.lastBlockTime { lagSeconds.set(max(0, now().timeIntervalSince(time))) }
        case .received(let receipt):
            matched[true]?.increment(by: Int64(receipt.matched - receipt.untrusted))
            matched[false]?.increment(by: Int64(receipt.untrusted))
        case .matched(let match):
            guard match.dueAt != nil else { return }
            pending.withLockedValue { pending in
                pending[match.feed.id] = min(pending[match.feed.id] ?? match.blockTime, match.blockTime)
            }
        case .nodeFailed(let error):
            nodeFailures[error.kind.rawValue]?.increment()
        case .startedAtHead, .skippedAhead, .unavailable, .storeFailed, .leaseHeldElsewhere, .leaseTaken:
            break
        }
    }

    /// A feed's check was stored: if a ping made it due, how long that took.
    func stored(_ outcome: RefreshOutcome) {
        switch outcome.result {
        case .updated, .notModified: break
        default: return
        }
        guard let pinged = pending.withLockedValue({ $0.removeValue(forKey: outcome.feed.id) }) else { return }
        pingToMerge.record(max(0, now().timeIntervalSince(pinged)))
    }
}
