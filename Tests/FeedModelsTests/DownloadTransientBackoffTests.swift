import FeedModels
import Foundation
import Testing

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)
private let minute: TimeInterval = 60

private func started(_ record: DownloadRecord? = nil) throws -> DownloadRecord {
    let start = DownloadStart(
        subscriptionID: 7, episodeKey: "e1", url: URL(string: "https://cdn.example.com/e1.mp3")!,
        partPath: "/d/e1.mp3.part", filePath: "/d/e1.mp3", startedAt: t0)
    return try #require(try plan(.started(start), current: record).record)
}

private func plan(_ change: DownloadChange, current: DownloadRecord?) throws -> DownloadPlan {
    try DownloadPlan(change, subscriptionID: 7, episodeKey: "e1", current: current, episodeStored: true)
}

/// A download failure that may pass by itself (a host that does not resolve or answer, a cut connection, a 5xx)
/// waits as a failing feed does, so cron mode says it once, not on every run.
struct DownloadTransientBackoffTests {
    @Test func theWaitIsAFeedsBackoffFifteenMinutesDoublingUpToFourHours() {
        #expect(DownloadBackoff.transientWait(afterFailures: 0) == 0)
        #expect(DownloadBackoff.transientWait(afterFailures: 1) == 15 * minute)
        #expect(DownloadBackoff.transientWait(afterFailures: 2) == 30 * minute)
        #expect(DownloadBackoff.transientWait(afterFailures: 4) == 120 * minute)
        #expect(DownloadBackoff.transientWait(afterFailures: 5) == 240 * minute)
        #expect(DownloadBackoff.transientWait(afterFailures: 900) == 240 * minute, "capped, and no overflow")
    }

    @Test func aTransientFailureCountsWaitsAndIsARepeatOnlyWithTheSameMessage() throws {
        let error = #"{"download":{"cause":"no such host"}}"#
        let first = try plan(.failedTransiently(error: error, partialBytes: nil, at: t0), current: try started())
        #expect(!first.isRepeatedFailure, "the first one is news")
        let record = try #require(first.record)
        #expect(record.permanentFailures == 1 && record.retryAfter == t0 + 15 * minute)
        #expect(!DownloadPlan.wantsDownload(record, now: t0 + 15 * minute - 1), "waits")
        #expect(DownloadPlan.wantsDownload(record, now: t0 + 15 * minute))

        let same = try plan(
            .failedTransiently(error: error, partialBytes: nil, at: t0 + 20 * minute), current: try started(record))
        #expect(same.isRepeatedFailure, "said once")
        #expect(same.record?.retryAfter == t0 + 50 * minute)
        let other = try plan(
            .failedTransiently(error: "HTTP 503", partialBytes: nil, at: t0 + 60 * minute),
            current: try started(same.record))
        #expect(!other.isRepeatedFailure, "a new cause is said again")

        // A completed download ends the streak.
        let done = try #require(
            try plan(
                .completed(
                    DownloadCompletion(
                        subscriptionID: 7, episodeKey: "e1", filePath: "/d/e1.mp3", bytes: 10,
                        url: URL(string: "https://cdn.example.com/e1.mp3")!, downloadedAt: t0 + 2 * 3600)),
                current: other.record
            ).record)
        #expect(done.permanentFailures == 0 && done.retryAfter == nil && done.permanentError == nil)
    }
}
