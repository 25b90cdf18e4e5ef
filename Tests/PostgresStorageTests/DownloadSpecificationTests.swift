import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import PostgresStorage
import TestSupport
import Testing

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

/// An episode `id` published `age` hours before t0, its enclosure at `enclosure` (default: by id).
private func episode(_ id: String, hoursAgo age: Double, enclosure: String? = nil) -> ParsedEpisode {
    ParsedEpisode(
        id: id, guid: id, title: id, published: t0.addingTimeInterval(-age * 3600),
        enclosures: [
            Enclosure(
                url: URL(string: enclosure ?? "https://cdn.example.com/\(id).mp3")!, length: 10, type: "audio/mpeg")
        ])
}

private func fetched(_ subscription: Subscription, _ episodes: [ParsedEpisode], at date: Date = t0) -> FeedCheck {
    FeedCheck(
        subscriptionID: subscription.id, checkedAt: date, status: 200,
        result: .fetched(
            ParsedFeed(format: .rss2, title: "Show", episodes: episodes), etag: nil, lastModified: nil,
            unconditional: true))
}

/// A feed with episodes e1 (newest) … e5 (oldest).
private func feedWithFiveEpisodes(_ store: any SpecifiedStore) async throws -> Subscription {
    let feed = try await store.addSubscription(
        url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
    _ = try await store.apply(fetched(feed, (1...5).map { episode("e\($0)", hoursAgo: Double($0)) }))
    return feed
}

private func start(_ feed: Subscription, _ key: String, etag: String? = "\"m1\"") -> DownloadStart {
    DownloadStart(
        subscriptionID: feed.id, episodeKey: key, url: URL(string: "https://cdn.example.com/\(key).mp3")!,
        partPath: "/downloads/Show/\(key).mp3.part", filePath: "/downloads/Show/\(key).mp3", etag: etag,
        lastModified: "Tue, 12 Nov 2024 05:00:00 GMT", startedAt: t0)
}

private func completion(_ feed: Subscription, _ key: String, bytes: Int64 = 1000) -> DownloadCompletion {
    DownloadCompletion(
        subscriptionID: feed.id, episodeKey: key, filePath: "/downloads/Show/\(key).mp3", bytes: bytes,
        url: URL(string: "https://media.example.net/\(key).mp3")!, etag: "\"m1\"", lastModified: nil,
        downloadedAt: t0.addingTimeInterval(60))
}

/// The storage side of downloads, both stores: settings on subscriptions, and one record per episode identity.
@Suite(.serialized)
struct DownloadSpecificationTests {
    @Test(arguments: Backend.allCases)
    func downloadSettingsChangeFieldByFieldAndCanBeReset(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            #expect(!feed.downloadsEnabled && feed.keepNewest == nil, "off and keep all by default")

            let on = try await store.updateDownloadSettings(
                id: feed.id,
                DownloadSettings(
                    enabled: true, keepNewest: .set(5), directory: .set("/srv/podcasts"),
                    fileNameTemplate: .set("{feed}/{date} {title}.{ext}")))
            #expect(on.downloadsEnabled)
            #expect(on.keepNewest == 5)
            #expect(on.downloadDirectory == "/srv/podcasts")
            #expect(on.fileNameTemplate == "{feed}/{date} {title}.{ext}")

            // A field not given is left as it is.
            let kept = try await store.updateDownloadSettings(id: feed.id, DownloadSettings(keepNewest: .set(2)))
            #expect(kept.downloadsEnabled && kept.keepNewest == 2 && kept.downloadDirectory == "/srv/podcasts")

            // An explicit reset goes back to the default.
            let reset = try await store.updateDownloadSettings(
                id: feed.id, DownloadSettings(enabled: false, keepNewest: .reset, directory: .reset))
            #expect(!reset.downloadsEnabled && reset.keepNewest == nil && reset.downloadDirectory == nil)
            #expect(reset.fileNameTemplate == "{feed}/{date} {title}.{ext}")
            #expect(try await store.subscription(id: feed.id) == reset, "read back as returned")
            #expect(try await store.subscriptions().first == reset)

            await #expect(throws: StoreError.self) {
                _ = try await store.updateDownloadSettings(id: feed.id + 100, DownloadSettings(enabled: true))
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func turningDownloadsOnStoresWhenAndTheBacklogSaysHowManyOlderOnes(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            #expect(feed.downloadsSince == nil && feed.downloadBacklog == 1, "the newest one by default")
            var settings = DownloadSettings(enabled: true)
            settings.changedAt = t0.addingTimeInterval(60)
            let on = try await store.updateDownloadSettings(id: feed.id, settings)
            #expect(on.downloadsSince == t0.addingTimeInterval(60) && on.downloadBacklog == 1)
            #expect(try await store.subscription(id: feed.id) == on, "read back as returned")

            // Given again while on, the time stays; a backlog changes only the count, `all` takes every one.
            settings.changedAt = t0.addingTimeInterval(120)
            settings.backlog = .newest(4)
            let more = try await store.updateDownloadSettings(id: feed.id, settings)
            #expect(more.downloadsSince == t0.addingTimeInterval(60) && more.downloadBacklog == 4)
            var all = DownloadSettings()
            all.backlog = .all
            let every = try await store.updateDownloadSettings(id: feed.id, all)
            #expect(every.downloadBacklog == nil && DownloadPlan.downloadsFrom(every) == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func tagsAreOffByDefaultAndSetOnOrMergeAsGiven(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            #expect(feed.tagMode == .off)
            var settings = DownloadSettings()
            settings.tags = .on
            let on = try await store.updateDownloadSettings(id: feed.id, settings)
            #expect(on.tagMode == .on)
            #expect(try await store.subscription(id: feed.id) == on, "read back as returned")
            // Another setting leaves it; merge replaces it.
            #expect(try await store.updateDownloadSettings(id: feed.id, DownloadSettings(enabled: true)).tagMode == .on)
            settings.tags = .merge
            #expect(try await store.updateDownloadSettings(id: feed.id, settings).tagMode == .merge)
        }
    }

    @Test(arguments: Backend.allCases)
    func theEpisodesToDownloadAreTheNewestNWithoutACompleteFileAndNotDeletedByTheUser(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await feedWithFiveEpisodes(store)
            #expect(
                try await store.episodesToDownload(subscriptionID: feed.id, newest: 3).map(\.key) == ["e1", "e2", "e3"])
            #expect(try await store.episodesToDownload(subscriptionID: feed.id, newest: 0).isEmpty)

            try await store.recordDownloadStarted(start(feed, "e1"))
            try await store.recordDownloadCompleted(completion(feed, "e1"))
            try await store.recordDownloadStarted(start(feed, "e2"))
            #expect(
                try await store.episodesToDownload(subscriptionID: feed.id, newest: 3).map(\.key) == ["e2", "e3"],
                "a complete file is not fetched again; one in progress is, to resume")

            try await store.recordDownloadStarted(start(feed, "e3"))
            #expect(try await store.markDeletedByUser(subscriptionID: feed.id, episodeKey: "e3"))
            #expect(
                try await store.episodesToDownload(subscriptionID: feed.id, newest: 3).map(\.key) == ["e2"],
                "a file the user deleted is not fetched again")
            #expect(
                try await store.episodesToDownload(subscriptionID: feed.id, newest: 4).map(\.key) == ["e2", "e4"],
                "the newest N are counted before any is left out")

            #expect(try await store.allowDownloadAgain(subscriptionID: feed.id, episodeKey: "e3"))
            #expect(try await store.episodesToDownload(subscriptionID: feed.id, newest: 3).map(\.key) == ["e2", "e3"])

            #expect(try await store.markDeletedByUser(subscriptionID: feed.id, episodeKey: "e1"))
            #expect(try await store.allowDownloadAgain(subscriptionID: feed.id, episodeKey: "e1"))
            #expect(
                try await store.episodesToDownload(subscriptionID: feed.id, newest: 3).map(\.key) == [
                    "e1", "e2", "e3",
                ],
                "a complete file the user deleted is downloaded again once allowed")
            #expect(try await store.download(subscriptionID: feed.id, episodeKey: "e1")?.downloadedAt == nil)
            #expect(try await !store.markDeletedByUser(subscriptionID: feed.id, episodeKey: "e5"), "no record")
        }
    }

    @Test(arguments: Backend.allCases)
    func aFailureKeepsThePartForAResumeAndOnlyCompletionMarksTheFileDownloaded(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await feedWithFiveEpisodes(store)
            #expect(try await store.download(subscriptionID: feed.id, episodeKey: "e1") == nil)

            let started = try await store.recordDownloadStarted(start(feed, "e1"))
            #expect(started.state == .inProgress)
            #expect(started.partPath == "/downloads/Show/e1.mp3.part")
            #expect(started.etag == "\"m1\"")
            #expect(started.startedAt == t0)
            #expect(started.downloadedAt == nil && !started.isOnDisk)

            #expect(
                try await store.recordDownloadFailed(
                    subscriptionID: feed.id, episodeKey: "e1", error: "stalled: no byte for 30s", partialBytes: 400))
            let failed = try #require(try await store.download(subscriptionID: feed.id, episodeKey: "e1"))
            #expect(failed.state == .inProgress, "a failure is never downloaded")
            #expect(failed.partPath == started.partPath, "the .part is kept for a resume")
            #expect(failed.etag == "\"m1\"" && failed.lastModified == "Tue, 12 Nov 2024 05:00:00 GMT")
            #expect(failed.bytes == 400)
            #expect(failed.lastError == "stalled: no byte for 30s")
            #expect(try await store.totalDownloadUsage() == DownloadUsage(), "nothing complete on disk")
            let stillToDo = try await store.episodesToDownload(subscriptionID: feed.id, newest: 1)
            #expect(stillToDo.map(\.key) == ["e1"])

            let done = try await store.recordDownloadCompleted(completion(feed, "e1", bytes: 1000))
            #expect(done.state == .complete && done.isOnDisk)
            #expect(done.partPath == nil && done.filePath == "/downloads/Show/e1.mp3")
            #expect(done.bytes == 1000)
            #expect(done.url?.absoluteString == "https://media.example.net/e1.mp3", "the URL actually downloaded")
            #expect(done.startedAt == t0, "the start is kept")
            #expect(done.downloadedAt == t0.addingTimeInterval(60))
            #expect(done.lastError == nil)
            #expect(try await store.download(subscriptionID: feed.id, episodeKey: "e1") == done)

            #expect(
                try await !store.recordDownloadFailed(
                    subscriptionID: feed.id, episodeKey: "e1", error: "late", partialBytes: 1),
                "a complete file is not turned back by a failure")
            #expect(try await store.download(subscriptionID: feed.id, episodeKey: "e1") == done)
            #expect(
                try await !store.recordDownloadFailed(
                    subscriptionID: feed.id, episodeKey: "e2", error: "x", partialBytes: nil), "no record")
        }
    }

    @Test(arguments: Backend.allCases)
    func anEpisodeWhoseEnclosureURLChangesIsNotDownloadedAgain(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: "Show", at: t0, backlog: nil)
            _ = try await store.apply(fetched(feed, [episode("e1", hoursAgo: 1)]))
            try await store.recordDownloadCompleted(completion(feed, "e1"))
            // The feed now sends the same episode through a new tracking prefix.
            _ = try await store.apply(
                fetched(
                    feed, [episode("e1", hoursAgo: 1, enclosure: "https://track.example/p/cdn.example.com/e1.mp3?x=1")],
                    at: t0.addingTimeInterval(3600)))
            #expect(try await store.episodesToDownload(subscriptionID: feed.id, newest: 5).isEmpty)
            #expect(try await store.download(subscriptionID: feed.id, episodeKey: "e1")?.isOnDisk == true)
        }
    }

    @Test(arguments: Backend.allCases)
    func retentionListsOnlyRecordedFilesPastTheNewestNAndMarksThemRemoved(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await feedWithFiveEpisodes(store)
            for key in ["e5", "e3", "e2", "e1"] {
                try await store.recordDownloadStarted(start(feed, key))
                try await store.recordDownloadCompleted(completion(feed, key))
            }
            try await store.recordDownloadStarted(start(feed, "e4"))  // in progress: not a file to delete
            #expect(try await store.markDeletedByUser(subscriptionID: feed.id, episodeKey: "e2"))

            let past = try await store.filesPastRetention(subscriptionID: feed.id, keepNewest: 2)
            #expect(past.map(\.episodeKey) == ["e5"], "kept: e1, e3 (e2 is gone, e4 is not complete)")
            #expect(past.first?.filePath == "/downloads/Show/e5.mp3")
            #expect(try await store.filesPastRetention(subscriptionID: feed.id, keepNewest: 0).count == 3)

            #expect(try await store.markRemovedByRetention(subscriptionID: feed.id, episodeKey: "e5"))
            #expect(try await store.filesPastRetention(subscriptionID: feed.id, keepNewest: 2).isEmpty)
            let removed = try #require(try await store.download(subscriptionID: feed.id, episodeKey: "e5"))
            #expect(removed.removedByRetention && !removed.isOnDisk)
            #expect(
                try await store.episodesToDownload(subscriptionID: feed.id, newest: 5).map(\.key) == ["e4"],
                "what retention removed is not fetched again")
        }
    }

    @Test(arguments: Backend.allCases)
    func bytesOnDiskAreCountedFromTheRecordsPerFeedAndInTotal(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await feedWithFiveEpisodes(store)
            let other = try await store.addSubscription(
                url: URL(string: "https://b.example/feed")!, title: "Other", at: t0, backlog: nil)
            _ = try await store.apply(fetched(other, [episode("o1", hoursAgo: 1)]))
            #expect(try await store.downloadUsage().isEmpty)

            let big: Int64 = 5_000_000_000  // beyond 32 bits
            try await store.recordDownloadCompleted(completion(feed, "e1", bytes: big))
            try await store.recordDownloadCompleted(completion(feed, "e2", bytes: 300))
            try await store.recordDownloadCompleted(completion(other, "o1", bytes: 20))
            try await store.recordDownloadStarted(start(feed, "e3"))
            try await store.recordDownloadCompleted(completion(feed, "e4", bytes: 7))
            try await store.markRemovedByRetention(subscriptionID: feed.id, episodeKey: "e4")

            #expect(
                try await store.downloadUsage() == [
                    feed.id: DownloadUsage(files: 2, bytes: big + 300), other.id: DownloadUsage(files: 1, bytes: 20),
                ])
            #expect(try await store.totalDownloadUsage() == DownloadUsage(files: 3, bytes: big + 320))
            #expect(try await store.downloads(subscriptionID: other.id).map(\.episodeKey) == ["o1"])
            #expect(try await store.downloads(subscriptionID: nil).count == 5)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRecordNeedsAStoredEpisodeAndGoesWithItsSubscription(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await feedWithFiveEpisodes(store)
            do {
                try await store.recordDownloadStarted(start(feed, "no-such-episode"))
                Issue.record("a record was stored for an unknown episode")
            } catch let error as StoreError {
                #expect(error.kind == .notFound)
            }
            await #expect(throws: StoreError.self) {
                try await store.recordDownloadCompleted(completion(feed, "no-such-episode"))
            }
            try await store.recordDownloadCompleted(completion(feed, "e1"))
            #expect(try await store.removeSubscription(id: feed.id))
            #expect(try await store.downloads(subscriptionID: nil).isEmpty)
            #expect(try await store.totalDownloadUsage() == DownloadUsage())
        }
    }

    @Test(arguments: Backend.allCases)
    func aBrokenLinkCountsWaitsAndIsLeftOutUntilItsTimeOrARetry(backend: Backend) async throws {
        try await backend.withStore { store in
            let feed = try await feedWithFiveEpisodes(store)
            try await store.recordDownloadStarted(start(feed, "e1"))
            let first = try #require(
                try await store.recordPermanentFailure(
                    subscriptionID: feed.id, episodeKey: "e1", error: "HTTP 404", partialBytes: nil, at: t0))
            #expect(!first.isRepeat)
            #expect(first.record.permanentFailures == 1)
            #expect(first.record.retryAfter == t0.addingTimeInterval(DownloadBackoff.wait(afterFailures: 1)))
            #expect(try await store.download(subscriptionID: feed.id, episodeKey: "e1") == first.record, "as stored")

            // Waiting (retry after t0 + 1 h, and t0 is long past): no, it is due again now.
            #expect(try await store.episodesToDownload(subscriptionID: feed.id, newest: 2).map(\.key) == ["e1", "e2"])

            // Failed again now: it waits an hour from now (4 h), and is left out meanwhile.
            try await store.recordDownloadStarted(start(feed, "e1"))
            let again = try #require(
                try await store.recordPermanentFailure(
                    subscriptionID: feed.id, episodeKey: "e1", error: "HTTP 404", partialBytes: nil, at: Date()))
            #expect(again.isRepeat, "the same failure as the last")
            #expect(again.record.permanentFailures == 2)
            #expect(try await store.episodesToDownload(subscriptionID: feed.id, newest: 2).map(\.key) == ["e2"])

            // Retry now: back in, the count kept.
            #expect(try await store.allowRetryNow(subscriptionID: feed.id, episodeKey: "e1"))
            let retried = try await store.download(subscriptionID: feed.id, episodeKey: "e1")
            #expect(retried?.retryAfter == nil && retried?.permanentFailures == 2)
            #expect(try await store.episodesToDownload(subscriptionID: feed.id, newest: 2).map(\.key) == ["e1", "e2"])

            // Downloaded at last: the streak is forgotten.
            try await store.recordDownloadCompleted(completion(feed, "e1"))
            let done = try await store.download(subscriptionID: feed.id, episodeKey: "e1")
            #expect(done?.permanentFailures == 0 && done?.retryAfter == nil && done?.permanentError == nil)
            #expect(
                try await store.recordPermanentFailure(
                    subscriptionID: feed.id, episodeKey: "e1", error: "HTTP 404", partialBytes: nil, at: t0) == nil,
                "a complete record is left as it is")
        }
    }
}
