import Foundation
import Podping
import Prometheus
import RefreshEngine
import RefreshMetrics
import TestSupport
import Testing

/// The podping reader's metrics, from its events: blocks, notices, matches, node failures, cursor lag, and the time
/// from a ping's block to the stored check of the feed it named.
@Suite struct PodpingMetricsTests {
    @Test func blocksNoticesFailuresLagAndPingToMergeAreMeasured() async throws {
        let now = Date(timeIntervalSince1970: 1_732_581_663)
        let metrics = FetchMetrics(registry: PrometheusCollectorRegistry(), now: { now })
        let feed = FeedTarget(id: 7, url: URL(string: "https://feeds.example.org/7.xml")!)
        let other = FeedTarget(id: 8, url: URL(string: "https://feeds.example.org/8.xml")!)
        let events: [EngineEvent] = [
            .podping(
                .blocksRead(
                    PodpingBlocksRead(
                        count: 4, through: 100, head: 103, lastBlockTime: now.addingTimeInterval(-12), notices: 5,
                        tests: 2, refused: 1))),
            .podping(
                .received(
                    PodpingReceipt(
                        block: 99, blockTime: now.addingTimeInterval(-4), senders: ["podping.aaa"],
                        operationID: "pp_podcast_update", reason: "update", medium: "podcast", iris: 3, matched: 2,
                        untrusted: 1))),
            .podping(
                .matched(
                    PodpingMatch(
                        feed: feed, block: 99, blockTime: now.addingTimeInterval(-4), reason: "update",
                        iri: feed.url.absoluteString, dueAt: now))),
            // Matched but needing no fetch: no latency to measure.
            .podping(
                .matched(
                    PodpingMatch(
                        feed: other, block: 99, blockTime: now.addingTimeInterval(-4), reason: "update",
                        iri: other.url.absoluteString, dueAt: nil))),
            .podping(
                .nodeFailed(HiveNodeError(node: URL(string: "https://api.example")!, .rateLimited(retryAfter: nil)))),
            .podping(
                .nodeFailed(
                    HiveNodeError(node: URL(string: "https://api.example")!, .headTooOld(block: 9, seconds: 600)))),
            .fetch(.fetchStarted(feed)),
            .fetch(.fetchCompleted(RefreshOutcome(feed: feed, result: .notModified))),
            .fetch(.fetchStarted(other)),
            .fetch(.fetchCompleted(RefreshOutcome(feed: other, result: .notModified))),
        ]
        for event in events { metrics.record(event) }
        let text = try PrometheusText(String(decoding: await metrics.exposition(), as: UTF8.self))
        #expect(text.value("podfresh_podping_blocks_read_total") == 4)
        #expect(text.value("podfresh_podping_notices_total", ["result": "read"]) == 5)
        #expect(text.value("podfresh_podping_notices_total", ["result": "test"]) == 2)
        #expect(text.value("podfresh_podping_notices_total", ["result": "refused"]) == 1)
        #expect(text.value("podfresh_podping_feeds_matched_total", ["trusted": "true"]) == 1)
        #expect(text.value("podfresh_podping_feeds_matched_total", ["trusted": "false"]) == 1)
        #expect(text.value("podfresh_podping_node_failures_total", ["kind": "rate_limited"]) == 1)
        #expect(text.value("podfresh_podping_node_failures_total", ["kind": "lagging"]) == 1)
        #expect(text.value("podfresh_podping_node_failures_total", ["kind": "timeout"]) == 0)
        #expect(text.value("podfresh_podping_cursor_lag_blocks") == 3)
        #expect(text.value("podfresh_podping_cursor_lag_seconds") == 12)
        #expect(text.value("podfresh_podping_ping_to_merge_seconds_count") == 1, "one feed made due and stored")
        #expect(text.value("podfresh_podping_ping_to_merge_seconds_sum") == 4)
        #expect(text.bucket("podfresh_podping_ping_to_merge_seconds", upperBound: 3) == 0)
        #expect(text.bucket("podfresh_podping_ping_to_merge_seconds", upperBound: 4) == 1)
    }
}
