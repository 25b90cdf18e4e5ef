import EpisodeDownloads
import FeedFetching
import FeedParsing
import Foundation
import HTTPTransport
import Prometheus
import RefreshEngine
import RefreshMetrics
import TestSupport
import Testing

/// A monotonic clock a test moves by hand. The lock guards `instant`, its only state, so it is `@unchecked Sendable`.
final class HandClock: @unchecked Sendable {
    private let lock = NSLock()
    private var instant = ContinuousClock.now

    var now: ContinuousClock.Instant { lock.withLock { instant } }
    func advance(by duration: Duration) { lock.withLock { instant = instant.advanced(by: duration) } }
}

@Suite struct FetchMetricsTests {
    let feeds = (1...6).map { FeedTarget(id: Int64($0), url: URL(string: "https://example.com/\($0).xml")!) }

    func announcements(_ count: Int, feed: Int64) -> [EpisodeAnnouncement] {
        (0..<count).map { EpisodeAnnouncement(feedID: feed, episode: ParsedEpisode(id: "episode-\($0)")) }
    }

    func scrape(_ metrics: FetchMetrics) async throws -> PrometheusText {
        try PrometheusText(String(decoding: await metrics.exposition(), as: UTF8.self))
    }

    @Test func eachCheckIsCountedByResultWithItsEpisodesBytesAndDuration() async throws {
        let clock = HandClock()
        let mergedAt = Date(timeIntervalSince1970: 1_731_387_600)
        let metrics = FetchMetrics(
            registry: PrometheusCollectorRegistry(), now: { mergedAt }, monotonicNow: { clock.now })
        let failure = RefreshFailure(
            .fetch(FeedFetchError(.httpStatus(500, reasonPhrase: "Internal Server Error", retryAfter: nil))))

        // Given one batch: updated (3 new episodes, 12 000 bytes) in 30 ms, not modified (5 000 bytes saved) in
        // 400 ms, failed in 2 s, gone in 20 s, and one fetch cancelled after it started.
        let events: [(EngineEvent, Duration)] = [
            (.fetch(.batchStarted(total: 5)), .zero),
            (.fetch(.fetchStarted(feeds[0])), .zero),
            (
                .fetch(
                    .fetchCompleted(
                        RefreshOutcome(
                            feed: feeds[0], result: .updated(newEpisodes: announcements(3, feed: 1), updatedCount: 0),
                            bytesFetched: 12_000))), .milliseconds(30)
            ),
            (.fetch(.fetchStarted(feeds[1])), .zero),
            (
                .fetch(.fetchCompleted(RefreshOutcome(feed: feeds[1], result: .notModified, bytesSaved: 5_000))),
                .milliseconds(400)
            ),
            (.fetch(.fetchStarted(feeds[2])), .zero),
            (.fetch(.fetchFailed(RefreshOutcome(feed: feeds[2], result: .failed(failure)))), .seconds(2)),
            (.fetch(.fetchStarted(feeds[3])), .zero),
            (
                .fetch(.fetchCompleted(RefreshOutcome(feed: feeds[3], result: .gone(FeedFetchError(.gone))))),
                .seconds(20)
            ),
            (.fetch(.fetchStarted(feeds[4])), .zero),
            (.fetch(.fetchCancelled(feeds[4])), .seconds(1)),
            (.fetch(.batchCompleted(RefreshSummary(outcomes: [], startedAt: mergedAt, endedAt: mergedAt))), .zero),
        ]
        // When each event arrives after its delay.
        for (event, delay) in events {
            clock.advance(by: delay)
            metrics.record(event)
        }

        // Then the exposition says exactly that.
        let text = try await scrape(metrics)
        #expect(text.types["podfresh_feeds_checked_total"] == "counter")
        #expect(text.value("podfresh_feeds_checked_total", ["result": "updated"]) == 1)
        #expect(text.value("podfresh_feeds_checked_total", ["result": "not_modified"]) == 1)
        #expect(text.value("podfresh_feeds_checked_total", ["result": "failed"]) == 1)
        #expect(text.value("podfresh_feeds_checked_total", ["result": "gone"]) == 1)
        #expect(text.value("podfresh_feeds_checked_total", ["result": "network_offline"]) == 0)
        #expect(text.total("podfresh_feeds_checked_total") == 4, "a cancelled fetch is not a check")
        #expect(text.value("podfresh_new_episodes_total") == 3)
        #expect(text.value("podfresh_fetched_bytes_total") == 12_000)
        #expect(text.value("podfresh_saved_bytes_total") == 5_000)
        #expect(text.value("podfresh_last_successful_merge_timestamp_seconds") == 1_731_387_600)

        #expect(text.types["podfresh_fetch_duration_seconds"] == "histogram")
        #expect(text.value("podfresh_fetch_duration_seconds_count") == 4)
        #expect(text.value("podfresh_fetch_duration_seconds_sum") == 22.43)
        let buckets: [(Double, Double)] = [
            (0.05, 1), (0.1, 1), (0.25, 1), (0.5, 2), (1, 2), (2.5, 3), (5, 3), (10, 3), (30, 4), (60, 4),
        ]
        for (upperBound, count) in buckets {
            #expect(
                text.bucket("podfresh_fetch_duration_seconds", upperBound: upperBound) == count, "le=\(upperBound)")
        }
        #expect(text.value("podfresh_fetch_duration_seconds_bucket", ["le": "+Inf"]) == 4)
    }

    @Test func failuresAwaitingTheNetworkVerdictAreNetworkOfflineWhenTheNetworkIsDownAndFailedWhenItIsUp() async throws
    {
        let metrics = FetchMetrics()
        var unreachable = RefreshFailure(.fetch(FeedFetchError(.transport(.networkUnreachable(host: "a.example")))))
        unreachable.awaitsNetworkVerdict = true
        let summary = RefreshSummary(outcomes: [], startedAt: Date(), endedAt: Date())

        // A batch whose every fetch failed to connect: the network is down, no feed is blamed.
        let down = [feeds[0], feeds[1]].map { RefreshOutcome(feed: $0, result: .failed(unreachable)) }
        for outcome in down {
            metrics.record(.fetch(.fetchStarted(outcome.feed)))
            metrics.record(.fetch(.fetchFailed(outcome)))
        }
        var text = try await scrape(metrics)
        #expect(text.total("podfresh_feeds_checked_total") == 0, "held until the verdict")
        metrics.record(.fetch(.networkOffline(fetches: 2)))
        metrics.record(.fetch(.batchCompleted(summary)))
        text = try await scrape(metrics)
        #expect(text.value("podfresh_feeds_checked_total", ["result": "network_offline"]) == 2)
        #expect(text.value("podfresh_feeds_checked_total", ["result": "failed"]) == 0)

        // A batch where another feed answered: the held failure stands.
        let up = RefreshOutcome(feed: feeds[2], result: .failed(unreachable))
        metrics.record(.fetch(.fetchStarted(feeds[2])))
        metrics.record(.fetch(.fetchFailed(up)))
        metrics.record(.fetch(.fetchStarted(feeds[3])))
        metrics.record(.fetch(.fetchCompleted(RefreshOutcome(feed: feeds[3], result: .notModified))))
        metrics.record(.fetch(.failuresConfirmed([up])))
        metrics.record(.fetch(.batchCompleted(summary)))
        text = try await scrape(metrics)
        #expect(text.value("podfresh_feeds_checked_total", ["result": "failed"]) == 1)
        #expect(text.value("podfresh_feeds_checked_total", ["result": "not_modified"]) == 1)
        #expect(text.value("podfresh_feeds_checked_total", ["result": "network_offline"]) == 2)
        #expect(text.value("podfresh_fetch_duration_seconds_count") == 4)
    }

    @Test func downloadsAreCountedByResultWithTheBytesWrittenByThisProcess() async throws {
        let metrics = FetchMetrics()
        var text = try await scrape(metrics)
        #expect(text.value("podfresh_episode_downloads_total", ["result": "completed"]) == 0)
        #expect(text.value("podfresh_downloaded_bytes_total") == 0)
        let target = DownloadTarget(
            feed: feeds[0], episodeKey: "e1", title: "One", url: URL(string: "https://cdn.example/1.mp3")!,
            file: "/media/1.mp3")
        metrics.record(.download(.started(target)))
        metrics.record(
            .download(
                .completed(
                    DownloadOutcome(target: target, result: .completed(bytes: 5000, resumedFrom: 2000), seconds: 1))))
        metrics.record(
            .download(
                .failed(
                    DownloadOutcome(
                        target: target,
                        result: .failed(
                            DownloadFailure(.download(DownloadError(.shortBody(received: 1, total: 2, cutBy: nil))))),
                        seconds: 1))))
        text = try await scrape(metrics)
        #expect(text.value("podfresh_episode_downloads_total", ["result": "completed"]) == 1)
        #expect(text.value("podfresh_episode_downloads_total", ["result": "failed"]) == 1)
        #expect(text.value("podfresh_downloaded_bytes_total") == 3000, "resumed bytes are not counted again")
    }

    @Test func eachScrapeReadsTheFleetGaugesAndAFailingReadKeepsTheLastValues() async throws {
        struct Unreadable: Error {}
        let answers = AnswerQueue([
            .success(FleetGauges(due: 7, overdue: 2, leasesHeld: 3)), .failure(Unreadable()),
        ])
        let metrics = FetchMetrics(gauges: { try answers.next() })

        var text = try await scrape(metrics)
        #expect(text.value("podfresh_feeds_due") == 7)
        #expect(text.value("podfresh_feeds_overdue") == 2)
        #expect(text.value("podfresh_leases_held") == 3)
        #expect(text.value("podfresh_fleet_gauge_errors_total") == 0)

        text = try await scrape(metrics)
        #expect(text.value("podfresh_feeds_due") == 7)
        #expect(text.value("podfresh_fleet_gauge_errors_total") == 1)
    }

    @Test func aMetricNeverRecordedIsZeroAndNoMergeMeansTimestampZero() async throws {
        let text = try await scrape(FetchMetrics())
        for result in FetchMetrics.results {
            #expect(text.value("podfresh_feeds_checked_total", ["result": result]) == 0, "\(result)")
        }
        #expect(text.value("podfresh_last_successful_merge_timestamp_seconds") == 0)
        #expect(text.value("podfresh_fetch_duration_seconds_count") == 0)
    }

    @Test func overdueMeansDueForLongerThanTheThreshold() {
        let now = Date(timeIntervalSince1970: 1_731_387_600)
        let gauges = FleetGauges(
            dueSince: [now, now - 60, now - 599, now - 601, now - 86_400], now: now, overdueAfter: .seconds(600),
            leasesHeld: 1)
        #expect(gauges == FleetGauges(due: 5, overdue: 2, leasesHeld: 1))
        #expect(FleetGauges.defaultOverdueThreshold == .seconds(600))
    }
}

/// Answers handed out one at a time, the last one repeated. The lock guards `answers`, its only state, so it is
/// `@unchecked Sendable`.
final class AnswerQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Result<FleetGauges, any Error>]

    init(_ answers: [Result<FleetGauges, any Error>]) { self.answers = answers }

    func next() throws -> FleetGauges {
        try lock.withLock { answers.count > 1 ? answers.removeFirst() : answers[0] }.get()
    }
}
