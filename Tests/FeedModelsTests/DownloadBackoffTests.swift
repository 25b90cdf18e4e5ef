import FeedModels
import Foundation
import Testing

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)
private let hour: TimeInterval = 3600

/// A record in progress for episode `e1` of feed 7, as a start leaves it.
private func started(_ record: DownloadRecord? = nil) throws -> DownloadRecord {
    let start = DownloadStart(
        subscriptionID: 7, episodeKey: "e1", url: URL(string: "https://cdn.example.com/e1.mp3")!,
        partPath: "/d/e1.mp3.part", filePath: "/d/e1.mp3", startedAt: t0)
    return try #require(try plan(.started(start), current: record))
}

private func plan(_ change: DownloadChange, current: DownloadRecord?) throws -> DownloadRecord? {
    try DownloadPlan(change, subscriptionID: 7, episodeKey: "e1", current: current, episodeStored: true).record
}

/// Broken links (a media URL that failed permanently) wait longer after each failure, and are tried again at once
/// when asked; the rule both stores carry out.
struct DownloadBackoffTests {
    @Test func theWaitGrowsFromAnHourFourfoldUpToAWeek() {
        #expect(DownloadBackoff.wait(afterFailures: 0) == 0)
        #expect(DownloadBackoff.wait(afterFailures: 1) == 1 * hour)
        #expect(DownloadBackoff.wait(afterFailures: 2) == 4 * hour)
        #expect(DownloadBackoff.wait(afterFailures: 3) == 16 * hour)
        #expect(DownloadBackoff.wait(afterFailures: 4) == 64 * hour)
        #expect(DownloadBackoff.wait(afterFailures: 5) == 7 * 24 * hour)
        #expect(DownloadBackoff.wait(afterFailures: 500) == 7 * 24 * hour, "capped, and no overflow")
    }

    @Test func aPermanentFailureCountsSetsTheNextTryAndKeepsTheMessage() throws {
        let first = try #require(
            try plan(.failedPermanently(error: "HTTP 404", partialBytes: nil, at: t0), current: try started()))
        #expect(first.permanentFailures == 1)
        #expect(first.retryAfter == t0 + hour)
        #expect(first.permanentError == "HTTP 404" && first.lastError == "HTTP 404")
        #expect(!DownloadPlan.wantsDownload(first, now: t0 + hour - 1), "waits")
        #expect(DownloadPlan.wantsDownload(first, now: t0 + hour), "tried again once the wait is over")

        // The next attempt starts: the streak and the message survive the start, for the next failure to compare.
        let restarted = try started(first)
        #expect(restarted.permanentFailures == 1 && restarted.permanentError == "HTTP 404")
        #expect(restarted.lastError == nil)

        let second = try #require(
            try plan(.failedPermanently(error: "HTTP 404", partialBytes: nil, at: t0 + 2 * hour), current: restarted))
        #expect(second.permanentFailures == 2)
        #expect(second.retryAfter == t0 + 2 * hour + 4 * hour)
    }

    @Test func aRepeatedFailureIsTheSameMessageAsTheLastPermanentOne() throws {
        let first = try DownloadPlan(
            .failedPermanently(error: "HTTP 404", partialBytes: nil, at: t0), subscriptionID: 7, episodeKey: "e1",
            current: try started(), episodeStored: true)
        #expect(!first.isRepeatedFailure, "the first one is news")
        let record = try #require(first.record)
        let same = try DownloadPlan(
            .failedPermanently(error: "HTTP 404", partialBytes: nil, at: t0 + 2 * hour), subscriptionID: 7,
            episodeKey: "e1", current: try started(record), episodeStored: true)
        #expect(same.isRepeatedFailure)
        let changed = try DownloadPlan(
            .failedPermanently(error: "HTTP 410", partialBytes: nil, at: t0 + 2 * hour), subscriptionID: 7,
            episodeKey: "e1", current: try started(record), episodeStored: true)
        #expect(!changed.isRepeatedFailure, "a changed failure is said again")
        #expect(changed.record?.permanentFailures == 2, "still the same broken link: the wait keeps growing")
    }

    @Test func aFailureThatDoesNotWaitOrACompletionEndsTheStreak() throws {
        let broken = try #require(
            try plan(.failedPermanently(error: "HTTP 404", partialBytes: nil, at: t0), current: try started()))
        let transient = try #require(
            try plan(.failed(error: "timed out", partialBytes: 10), current: try started(broken)))
        #expect(transient.permanentFailures == 0 && transient.retryAfter == nil && transient.permanentError == nil)

        let done = try #require(
            try plan(
                .completed(
                    DownloadCompletion(
                        subscriptionID: 7, episodeKey: "e1", filePath: "/d/e1.mp3", bytes: 10,
                        url: URL(string: "https://cdn.example.com/e1.mp3")!, downloadedAt: t0)),
                current: try started(broken)))
        #expect(done.permanentFailures == 0 && done.retryAfter == nil && done.permanentError == nil)
    }

    @Test func retryingNowClearsTheWaitButNotTheCount() throws {
        let broken = try #require(
            try plan(.failedPermanently(error: "HTTP 404", partialBytes: nil, at: t0), current: try started()))
        let retry = try #require(try plan(.retryNow, current: broken))
        #expect(retry.retryAfter == nil)
        #expect(retry.permanentFailures == 1 && retry.permanentError == "HTTP 404")
        #expect(DownloadPlan.wantsDownload(retry, now: t0))
        #expect(try plan(.retryNow, current: nil) == nil, "nothing to retry without a record")
    }

    @Test func aPermanentFailureOfACompleteRecordChangesNothing() throws {
        let complete = DownloadRecord(
            subscriptionID: 7, episodeKey: "e1", state: .complete, filePath: "/d/e1.mp3", bytes: 10,
            downloadedAt: t0)
        #expect(try plan(.failedPermanently(error: "HTTP 404", partialBytes: nil, at: t0), current: complete) == nil)
    }
}

/// How many of a feed's newest episodes `download` takes.
struct DownloadWindowTests {
    private func feed(downloads: Bool, keep: Int?) -> Subscription {
        Subscription(
            id: 1, url: URL(string: "https://a.example/feed")!, addedAt: t0, downloadsEnabled: downloads,
            keepNewest: keep)
    }

    @Test func keepAllOnAFeedWhoseDownloadsAreOnTakesEveryEpisode() {
        #expect(DownloadPlan.downloadWindow(latest: nil, subscription: feed(downloads: true, keep: nil)) == nil)
    }

    @Test func aKeepOfNTakesTheNewestN() {
        #expect(DownloadPlan.downloadWindow(latest: nil, subscription: feed(downloads: true, keep: 5)) == 5)
        #expect(DownloadPlan.downloadWindow(latest: nil, subscription: feed(downloads: false, keep: 3)) == 3)
    }

    @Test func latestSaysOtherwise() {
        #expect(DownloadPlan.downloadWindow(latest: 2, subscription: feed(downloads: true, keep: nil)) == 2)
        #expect(DownloadPlan.downloadWindow(latest: 9, subscription: feed(downloads: true, keep: 5)) == 9)
    }

    @Test func aFeedNamedWithoutDownloadsOnOrAKeepTakesItsNewestEpisode() {
        #expect(DownloadPlan.downloadWindow(latest: nil, subscription: feed(downloads: false, keep: nil)) == 1)
    }
}
