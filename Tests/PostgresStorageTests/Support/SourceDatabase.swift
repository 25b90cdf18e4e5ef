import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import PostgresStorage
import Testing

/// An SQLite podfresh database in a temporary folder of its own, built by the real ``FeedStore`` from the demo feeds
/// in `Feeds/` (parsed by the real ``FeedParser``), with every kind of state a subscription can have: validators, a
/// schedule, a permanent move, an undone move, a failure, a 410, a back catalogue, a backlog setting, download settings,
/// finished and unfinished runs, and download records of every kind (complete, in progress after a failure, deleted by
/// the user, removed by retention) in three feeds.
///
/// The store is closed when ``make()`` returns: the folder then holds the database file alone.
struct SourceDatabase {
    /// The extra files recorded with the complete download `nsr-003`.
    static let extraFiles = [
        ExtraFile(
            kind: .transcript, url: URL(string: "https://media.example.net/night-shift/003.vtt")!,
            path: "/srv/podcasts/Night Shift/003.vtt", bytes: 2048),
        ExtraFile(kind: .chapters, url: URL(string: "https://media.example.net/night-shift/003.json")!)
            .failed(error: "{}", at: Date(timeIntervalSince1970: 1_730_000_000)),
    ]

    /// The folder holding the database and nothing else.
    let folder: URL
    /// Ids of the subscriptions, by what they show.
    let moved: Int64
    let undone: Int64
    let failing: Int64
    let gone: Int64
    let neverFetched: Int64
    /// The runs, oldest first (the last one never finished).
    let runs: [Int64]
    /// The download records as the SQLite store reads them, by feed and key.
    let downloads: [DownloadRecord]

    var path: String { folder.appendingPathComponent("podfresh.sqlite").path }

    /// An instant with a fraction, so that times must round-trip exactly.
    static let t0 = Date(timeIntervalSince1970: 1_731_400_000.125)

    /// The package root, found from this file's path.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// A demo feed from `Feeds/`, parsed.
    static func demoFeed(_ name: String) throws -> ParsedFeed {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("Feeds/\(name)"))
        return try FeedParser.parse(Array(data), baseURL: URL(string: "https://feeds.example.org/\(name)"))
    }

    static func make() async throws -> SourceDatabase {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let t0 = Self.t0
        let store = try FeedStore(path: folder.appendingPathComponent("podfresh.sqlite").path)
        var nightShift = try demoFeed("night-shift-radio.xml")
        // A live item among its episodes, as `podcast:liveItem` reads.
        var live = ParsedEpisode(id: "nsr-live", title: "Night Shift live")
        live.live = LiveItem(
            status: .live, start: t0, end: t0.addingTimeInterval(3600),
            contentLinks: [LiveItem.ContentLink(hrefString: "https://video.example/nsr", text: "Watch")])
        nightShift.episodes.insert(live, at: 0)
        let fieldRecordings = try demoFeed("field-recordings.xml")
        let gardenNotes = try demoFeed("garden-notes.atom")

        var first = try await store.beginRun(at: t0)
        // Given a feed fetched with validators and a schedule that then moved for good…
        let moved = try await store.addSubscription(
            url: URL(string: "https://night-shift.example.org/feed.xml")!, title: nil, at: t0, backlog: nil)
        _ = try await store.apply(
            FeedCheck(
                subscriptionID: moved.id, checkedAt: t0, status: 200,
                result: .fetched(
                    nightShift, etag: "\"ns-1\"", lastModified: "Tue, 12 Nov 2024 05:00:00 GMT", unconditional: true),
                movedTo: URL(string: "https://night-shift.example.org/new-feed.xml"),
                nextCheckAt: t0.addingTimeInterval(3600.5),
                nextCheckReason: .cadence(interval: .seconds(3600), basis: .hint(.ttl)),
                runID: first.id,
                bodyBytes: 4096))
        // …a feed whose first fetch announced one episode and kept the rest as back catalogue, moved by hand and back…
        let undone = try await store.addSubscription(
            url: URL(string: "https://field.example.net/rss")!, title: "Field Recordings", at: t0, backlog: 1)
        _ = try await store.apply(
            FeedCheck(
                subscriptionID: undone.id, checkedAt: t0, status: 200,
                result: .fetched(fieldRecordings, etag: nil, lastModified: nil, unconditional: true),
                nextCheckAt: t0.addingTimeInterval(86_400),
                nextCheckReason: .cadence(interval: .seconds(86_400), basis: .noRhythmYet),
                runID: first.id,
                bodyBytes: 2048, announceLimit: 1))
        _ = try await store.moveSubscription(id: undone.id, to: URL(string: "https://field.example.net/other.rss")!)
        _ = try await store.undoMove(id: undone.id)
        // …and an Atom feed fetched once, then failing.
        let failing = try await store.addSubscription(
            url: URL(string: "https://garden.example.com/notes.atom")!, title: nil, at: t0, backlog: nil)
        _ = try await store.apply(
            FeedCheck(
                subscriptionID: failing.id, checkedAt: t0, status: 200,
                result: .fetched(gardenNotes, etag: "W/\"g\"", lastModified: nil, unconditional: false),
                runID: first.id))
        first.endedAt = t0.addingTimeInterval(2.75)
        first.feedsChecked = 3
        first.newEpisodes = 5
        first.bytesDownloaded = 8192
        try await store.finishRun(first)

        let t1 = t0.addingTimeInterval(7200.25)
        var second = try await store.beginRun(at: t1)
        _ = try await store.apply(
            FeedCheck(
                subscriptionID: failing.id, checkedAt: t1, status: nil,
                result: .failed(kind: "timeout", message: "no answer within 60 s"),
                nextCheckAt: t1.addingTimeInterval(900), nextCheckReason: .backoff(failures: 1), runID: second.id))
        let gone = try await store.addSubscription(
            url: URL(string: "https://gone.example.org/feed.xml")!, title: "Gone Show", at: t0, backlog: nil)
        _ = try await store.apply(
            FeedCheck(
                subscriptionID: gone.id, checkedAt: t1, status: 410, result: .gone(message: "HTTP 410 Gone"),
                runID: second.id))
        second.endedAt = t1.addingTimeInterval(1)
        second.feedsChecked = 2
        second.feedsFailed = 1
        second.feedsNotModified = 0
        second.bytesSaved = 4096
        try await store.finishRun(second)
        let unfinished = try await store.beginRun(at: t1.addingTimeInterval(60))

        let neverFetched = try await store.addSubscription(
            url: URL(string: "https://new.example.org/feed.xml?lang=de")!, title: "Ünïcödé “quotes” & more",
            at: t1, backlog: 5)
        // … and download settings on it.
        _ = try await store.updateDownloadSettings(
            id: neverFetched.id,
            DownloadSettings(
                enabled: true, keepNewest: .set(4), directory: .set("/srv/podcasts/new"),
                fileNameTemplate: .set("{date} {title}.{ext}")))
        var filtersAndExtras = DownloadSettings()
        filtersAndExtras.include = ["full episode"]
        filtersAndExtras.minimumDuration = .set(600)
        filtersAndExtras.extras = true
        filtersAndExtras.tags = .merge
        _ = try await store.updateDownloadSettings(id: neverFetched.id, filtersAndExtras)

        // Download records: a complete file …
        let media = URL(string: "https://media.example.net/night-shift/003.mp3?token=a%20b&x=1")!
        try await store.recordDownloadStarted(
            DownloadStart(
                subscriptionID: moved.id, episodeKey: "nsr-003", url: media,
                partPath: "/srv/podcasts/Night Shift/003.mp3.part", filePath: "/srv/podcasts/Night Shift/003.mp3",
                etag: "\"m-3\"", lastModified: "Wed, 13 Nov 2024 06:00:00 GMT", startedAt: t1.addingTimeInterval(5.5)))
        try await store.recordDownloadCompleted(
            DownloadCompletion(
                subscriptionID: moved.id, episodeKey: "nsr-003", filePath: "/srv/podcasts/Night Shift/003.mp3",
                bytes: 31_457_280, url: media, etag: "\"m-3\"", lastModified: "Wed, 13 Nov 2024 06:00:00 GMT",
                downloadedAt: t1.addingTimeInterval(65.375)))
        // … with a transcript saved beside it and its chapters waiting after a failure (`--extras on`) …
        try await store.recordExtraFiles(subscriptionID: moved.id, episodeKey: "nsr-003", SourceDatabase.extraFiles)
        // … one in progress that failed part-way (its part file, bytes so far and validators kept for a resume) …
        try await store.recordDownloadStarted(
            DownloadStart(
                subscriptionID: moved.id, episodeKey: "nsr-002",
                url: URL(string: "https://night-shift.example.org/audio/002.mp3")!,
                partPath: "/srv/podcasts/Night Shift/002.mp3.part", filePath: "/srv/podcasts/Night Shift/002.mp3",
                etag: "W/\"m-2\"", lastModified: "Tue, 12 Nov 2024 05:00:00 GMT",
                startedAt: t1.addingTimeInterval(70.125)))
        try await store.recordDownloadFailed(
            subscriptionID: moved.id, episodeKey: "nsr-002", error: "connection reset after 1 MB",
            partialBytes: 1_048_576)
        // … one the user deleted, and one retention removed, in two other feeds.
        guard
            let fieldEpisode = try await store.episodes(EpisodeQuery(subscriptionID: undone.id)).first,
            let gardenEpisode = try await store.episodes(EpisodeQuery(subscriptionID: failing.id)).first
        else { throw CocoaError(.fileReadCorruptFile) }
        for (feed, key, name) in [(undone.id, fieldEpisode.key, "field"), (failing.id, gardenEpisode.key, "garden")] {
            try await store.recordDownloadCompleted(
                DownloadCompletion(
                    subscriptionID: feed, episodeKey: key, filePath: "/srv/podcasts/\(name).m4a", bytes: 1234,
                    url: URL(string: "https://cdn.example.com/\(name).m4a")!, downloadedAt: t0.addingTimeInterval(9.5)))
        }
        try await store.markDeletedByUser(subscriptionID: undone.id, episodeKey: fieldEpisode.key)
        try await store.markRemovedByRetention(subscriptionID: failing.id, episodeKey: gardenEpisode.key)

        return SourceDatabase(
            folder: folder, moved: moved.id, undone: undone.id, failing: failing.id, gone: gone.id,
            neverFetched: neverFetched.id, runs: [first.id, second.id, unfinished.id],
            downloads: try await store.downloads(subscriptionID: nil))
    }

    /// Every file in the folder and its bytes.
    func files() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
