import FeedModels
import FeedParsing
import Foundation
import Testing

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

private func start(_ key: String = "e1", etag: String? = "\"m2\"", at date: Date = t0) -> DownloadStart {
    DownloadStart(
        subscriptionID: 7, episodeKey: key, url: URL(string: "https://cdn.example.com/\(key).mp3")!,
        partPath: "/d/\(key).mp3.part", filePath: "/d/\(key).mp3", etag: etag, lastModified: "Tue, 12 Nov 2024",
        startedAt: date)
}

private func completion(_ key: String = "e1", at date: Date = t0 + 60) -> DownloadCompletion {
    DownloadCompletion(
        subscriptionID: 7, episodeKey: key, filePath: "/d/\(key).mp3", bytes: 1000,
        url: URL(string: "https://media.example.net/\(key).mp3")!, etag: "\"m2\"", downloadedAt: date)
}

/// A record in progress for `key`, 400 bytes so far, after a failure.
private func inProgress(_ key: String = "e1") -> DownloadRecord {
    DownloadRecord(
        subscriptionID: 7, episodeKey: key, state: .inProgress, partPath: "/d/\(key).mp3.part",
        filePath: "/d/\(key).mp3", bytes: 400, etag: "\"m1\"", url: URL(string: "https://cdn.example.com/old.mp3"),
        startedAt: t0 - 3600, lastError: "timed out")
}

/// A complete record for `key` (episode `key`, `bytes` long).
private func complete(_ key: String, bytes: Int64 = 1000, subscriptionID: Int64 = 7) -> DownloadRecord {
    DownloadRecord(
        subscriptionID: subscriptionID, episodeKey: key, state: .complete, filePath: "/d/\(key).mp3", bytes: bytes,
        startedAt: t0 - 7200, downloadedAt: t0 - 7000)
}

/// Plans `change` for episode `e1` of feed 7.
private func plan(
    _ change: DownloadChange, current: DownloadRecord?, episodeStored: Bool = true
) throws(StoreError) -> DownloadRecord? {
    try DownloadPlan(change, subscriptionID: 7, episodeKey: "e1", current: current, episodeStored: episodeStored)
        .record
}

/// The download-record rules both stores carry out, without a database.
struct DownloadPlanTests {
    // MARK: - Starting and finishing

    @Test func aStartMakesANewInProgressRecordWithThePartPathAndValidators() throws {
        let record = try #require(try plan(.started(start()), current: nil))

        #expect(record.state == .inProgress)
        #expect(record.partPath == "/d/e1.mp3.part" && record.filePath == "/d/e1.mp3")
        #expect(record.etag == "\"m2\"" && record.lastModified == "Tue, 12 Nov 2024")
        #expect(record.url == URL(string: "https://cdn.example.com/e1.mp3"))
        #expect(record.startedAt == t0 && record.bytes == nil && record.downloadedAt == nil)
    }

    @Test func aRestartClearsTheEarlierErrorBytesAndMarks() throws {
        var current = inProgress()
        current.deletedByUser = true
        current.removedByRetention = true

        let record = try #require(try plan(.started(start(at: t0 + 10)), current: current))

        #expect(record.lastError == nil && record.bytes == nil)
        #expect(!record.deletedByUser && !record.removedByRetention)
        #expect(record.startedAt == t0 + 10 && record.etag == "\"m2\"")
    }

    @Test func aCompletionKeepsTheStartTimeAndClearsThePartPathAndError() throws {
        let record = try #require(try plan(.completed(completion()), current: inProgress()))

        #expect(record.state == .complete)
        #expect(record.partPath == nil && record.lastError == nil)
        #expect(record.filePath == "/d/e1.mp3" && record.bytes == 1000)
        #expect(record.url == URL(string: "https://media.example.net/e1.mp3"))
        #expect(record.startedAt == t0 - 3600, "the start of the download, not of the last attempt")
        #expect(record.downloadedAt == t0 + 60)
        #expect(record.isOnDisk)
    }

    @Test func aCompletionWithoutARecordStartsAndEndsAtItsOwnTime() throws {
        let record = try #require(try plan(.completed(completion(at: t0 + 5)), current: nil))

        #expect(record.startedAt == t0 + 5 && record.downloadedAt == t0 + 5)
    }

    @Test(arguments: [DownloadChange.started(start()), .completed(completion())])
    func aStartOrCompletionOfAnEpisodeNotStoredIsRefused(change: DownloadChange) {
        #expect(throws: StoreError(.noEpisode(key: "e1", subscriptionID: 7))) {
            try plan(change, current: nil, episodeStored: false)
        }
    }

    // MARK: - Failures

    @Test func aFailureKeepsTheErrorAndTheBytesSoFarForAResume() throws {
        let record = try #require(try plan(.failed(error: "stalled", partialBytes: 512), current: inProgress()))

        #expect(record.lastError == "stalled" && record.bytes == 512)
        #expect(record.partPath == "/d/e1.mp3.part" && record.etag == "\"m1\"", "kept for If-Range")
    }

    @Test func aFailureWithoutAByteCountKeepsTheCountKnownBefore() throws {
        let record = try #require(try plan(.failed(error: "reset", partialBytes: nil), current: inProgress()))

        #expect(record.bytes == 400)
    }

    @Test func aFailureChangesNothingWithoutARecordInProgress() throws {
        #expect(try plan(.failed(error: "x", partialBytes: 1), current: nil) == nil)
        #expect(try plan(.failed(error: "x", partialBytes: 1), current: complete("e1")) == nil)
    }

    // MARK: - Marks

    @Test func marksSetTheirFlagOnAnyRecordAndChangeNothingWithoutOne() throws {
        #expect(try plan(.removedByRetention, current: complete("e1"))?.removedByRetention == true)
        #expect(try plan(.deletedByUser, current: complete("e1"))?.deletedByUser == true)
        #expect(try plan(.deletedByUser, current: inProgress())?.deletedByUser == true)
        #expect(try plan(.removedByRetention, current: nil) == nil)
        #expect(try plan(.deletedByUser, current: nil) == nil)
        #expect(try plan(.allowedAgain, current: nil) == nil)
        #expect(try plan(.deletedByUser, current: complete("e1"))?.isOnDisk == false)
    }

    @Test func allowingAgainADeletedFileMakesItInProgressToBeResumed() throws {
        var deleted = complete("e1")
        deleted.deletedByUser = true

        let record = try #require(try plan(.allowedAgain, current: deleted))

        #expect(record.state == .inProgress && record.downloadedAt == nil)
        #expect(!record.deletedByUser && !record.removedByRetention)
        #expect(DownloadPlan.wantsDownload(record))
    }

    @Test func allowingAgainAnUnmarkedRecordLeavesItAsItIs() throws {
        #expect(try plan(.allowedAgain, current: complete("e1")) == complete("e1"))
        #expect(try plan(.allowedAgain, current: inProgress()) == inProgress())
    }

    // MARK: - Selections

    @Test func anEpisodeIsDownloadedWithoutARecordOrToResumeOneNotDeleted() {
        var deleted = inProgress()
        deleted.deletedByUser = true
        var removed = inProgress()
        removed.removedByRetention = true

        #expect(DownloadPlan.wantsDownload(nil))
        #expect(DownloadPlan.wantsDownload(inProgress()))
        #expect(!DownloadPlan.wantsDownload(complete("e1")))
        #expect(!DownloadPlan.wantsDownload(deleted))
        #expect(!DownloadPlan.wantsDownload(removed))
    }

    @Test func episodesToDownloadKeepTheFeedsOrder() {
        let episodes = ["e1", "e2", "e3", "e4"].map { key in
            StoredEpisode(
                subscriptionID: 7, key: key, episode: ParsedEpisode(id: key), firstSeenAt: t0, lastSeenAt: t0)
        }

        let chosen = DownloadPlan.episodesToDownload(
            episodes, records: ["e2": complete("e2"), "e3": inProgress("e3")])

        #expect(chosen.map(\.key) == ["e1", "e3", "e4"])
    }

    @Test func retentionDeletesTheFilesOnDiskPastTheNewestN() {
        var deleted = complete("e2")
        deleted.deletedByUser = true
        let newestFirst = [complete("e1"), deleted, inProgress("e3"), complete("e4"), complete("e5")]

        #expect(DownloadPlan.pastRetention(newestFirst, keepNewest: 2).map(\.episodeKey) == ["e5"])
        #expect(DownloadPlan.pastRetention(newestFirst, keepNewest: 0).map(\.episodeKey) == ["e1", "e4", "e5"])
        #expect(DownloadPlan.pastRetention(newestFirst, keepNewest: -1).count == 3, "a negative count keeps none")
        #expect(DownloadPlan.pastRetention(newestFirst, keepNewest: 3).isEmpty)
    }

    @Test func usageCountsOnlyTheFilesOnDiskPerFeed() {
        var removed = complete("e3", bytes: 50)
        removed.removedByRetention = true
        let records = [
            complete("e1", bytes: 100), complete("e2", bytes: 20), removed, inProgress("e4"),
            complete("f1", bytes: 7, subscriptionID: 9),
        ]

        #expect(
            DownloadPlan.usage(of: records) == [
                7: DownloadUsage(files: 2, bytes: 120), 9: DownloadUsage(files: 1, bytes: 7),
            ])
        #expect(DownloadPlan.usage(of: [inProgress()]).isEmpty, "feeds without files are left out")
    }
}
