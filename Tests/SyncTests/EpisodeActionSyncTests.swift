import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import GPodderSync
import RefreshEngine
import TestSupport
import Testing

extension SyncHarness {
    /// Subscribes to `url` and stores `episodes` (guid, media URL) as one check of it would.
    @discardableResult
    func feed(_ url: String, episodes: [(guid: String, media: String)]) async throws -> Subscription {
        let subscription = try await subscribe(url)
        let parsed = episodes.enumerated().map { index, episode in
            ParsedEpisode(
                id: episode.guid, guid: episode.guid, title: "Episode \(episode.guid)",
                published: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 86_400),
                enclosures: [Enclosure(url: URL(string: episode.media)!, length: 10, type: "audio/mpeg")])
        }
        _ = try await store.apply(
            FeedCheck(
                subscriptionID: subscription.id, checkedAt: Date(), status: 200,
                result: .fetched(
                    ParsedFeed(format: .rss2, title: "Show", episodes: parsed), etag: nil, lastModified: nil,
                    unconditional: true),
                nextCheckAt: Date().addingTimeInterval(3600)))
        return subscription
    }

    /// Records a completed download of `key` into `file` (as the download queue does once the file is whole).
    func completeDownload(_ subscription: Subscription, key: String, media: String, file: String) async throws {
        let url = URL(string: media)!
        try await store.recordDownloadStarted(
            DownloadStart(
                subscriptionID: subscription.id, episodeKey: key, url: url, partPath: file + ".part", filePath: file,
                startedAt: Date()))
        try Data("media".utf8).write(to: URL(fileURLWithPath: file))
        try await store.recordDownloadCompleted(
            DownloadCompletion(
                subscriptionID: subscription.id, episodeKey: key, filePath: file, bytes: 5, url: url,
                downloadedAt: Date(), episodeURL: url))
    }

    /// A play of `media` (guid `guid`) on the phone: `position` of `total` seconds, `ago` seconds ago (by default now:
    /// Nextcloud answers only actions dated after its cursor, which is its clock at the last pull).
    func play(
        _ feed: String, media: String, guid: String?, position: Int, total: Int, ago: TimeInterval = 0,
        action: String = "play"
    ) -> [String: Any] {
        var object: [String: Any] = [
            "podcast": feed, "episode": media, "action": action,
            "timestamp": SyncTestServer.apiTimestamp(Date().addingTimeInterval(-ago)),
        ]
        if let guid { object["guid"] = guid }
        if action == "play" {
            object["position"] = position
            object["total"] = total
            object["started"] = 0
        }
        return object
    }

    /// The POSTs of episode actions the server received.
    func actionPushes() async throws -> Int {
        try await server.served().filter {
            $0.method == "POST" && ($0.path.contains("/episodes/") || $0.path.contains("episode_action"))
        }.count
    }

    func states(_ subscription: Subscription) async throws -> [String: EpisodePlayState] {
        Dictionary(
            uniqueKeysWithValues: try await store.playStates(subscriptionID: subscription.id).map {
                ($0.key.episodeKey, $0.value)
            })
    }
}

/// Episode actions (issue #35, part 3) run by the engine's sync over a real SQLite store against both real servers,
/// the phone's side made by plain HTTP calls.
@Suite(
    .serialized,
    .enabled(
        "needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI) and python3",
        Servers.bothAvailable))
struct EpisodeActionSyncTests {
    static let feedURL = "https://show.example/feed.xml"
    static let episodes = [
        (guid: "ep-1", media: "https://cdn.example/ep1.mp3"), (guid: "ep-2", media: "https://cdn.example/ep2.mp3"),
        (guid: "ep-3", media: "https://cdn.example/ep3.mp3"),
    ]

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aCompletedDownloadIsPushedOnceAsADownloadActionThePhoneSees(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            let feed = try await harness.feed(Self.feedURL, episodes: Self.episodes)
            try await harness.sync().syncOnce()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-dl-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await harness.completeDownload(
                feed, key: "ep-2", media: Self.episodes[1].media, file: folder.appendingPathComponent("2.mp3").path)
            #expect(try await harness.store.pendingEpisodeActionCount() == 1)

            let outcome = try #require(try await harness.sync().syncOnce())

            #expect(outcome.failure == nil && outcome.actionsPushed == 1, "\(outcome)")
            let seen = try await harness.server.serverActions().filter {
                ($0["action"] as? String)?.lowercased() == "download"
            }
            #expect(seen.count == 1)
            let action = try #require(seen.first)
            #expect(action["podcast"] as? String == Self.feedURL)
            #expect(action["episode"] as? String == Self.episodes[1].media)
            #expect(action["guid"] as? String == "ep-2")
            let stamp = try #require(action["timestamp"] as? String)
            #expect(stamp.count == 19 && stamp.contains("T"), "UTC YYYY-MM-DDTHH:MM:SS: \(stamp)")
            #expect(try await harness.store.pendingEpisodeActionCount() == 0)
            // Pushed once: the next sync sends nothing.
            let pushes = try await harness.actionPushes()
            _ = try await harness.sync().syncOnce()
            #expect(try await harness.actionPushes() == pushes)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func playsOnThePhoneArePulledWithPositionAndPlayedToTheEnd(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            let feed = try await harness.feed(Self.feedURL, episodes: Self.episodes)
            try await harness.sync().syncOnce()
            try await Task.sleep(for: .milliseconds(1100))
            try await harness.server.phoneActions([
                // Within 30 s of the end: played.
                harness.play(Self.feedURL, media: Self.episodes[0].media, guid: "ep-1", position: 1775, total: 1800),
                // Half-way, and matched by its URL alone (no guid), the feed's host spelled in capitals.
                harness.play(
                    "https://SHOW.example/feed.xml", media: Self.episodes[1].media, guid: nil, position: 900,
                    total: 1800),
                // Matched by guid although the phone has another URL for the media.
                harness.play(
                    Self.feedURL, media: "https://tracker.example/r/ep3.mp3", guid: "ep-3", position: 60, total: 1800
                ),
                // A feed podfresh does not have: ignored, counted.
                harness.play(
                    "https://other.example/feed", media: "https://other.example/x.mp3", guid: "x", position: 1,
                    total: 10),
            ])

            let outcome = try #require(try await harness.sync().syncOnce())

            #expect(outcome.failure == nil)
            #expect(outcome.actions.applied == 3 && outcome.actions.played == 1 && outcome.actions.unmatched == 1)
            let states = try await harness.states(feed)
            #expect(states["ep-1"]?.played == true && states["ep-1"]?.position == 1775)
            #expect(states["ep-2"]?.played == false && states["ep-2"]?.position == 900)
            #expect(states["ep-3"]?.position == 60)
            #expect(try await harness.store.syncState()?.actionsCursor != nil)
            #expect(
                try await harness.store.countEpisodes(EpisodeQuery(subscriptionID: feed.id, unplayedOnly: true)) == 2)
            #expect(
                harness.events.all.contains(
                    .actionsPulled(
                        PulledActionsSummary(received: 4, applied: 3, played: 1, unmatched: 1, unchanged: 0))))
            // The same actions again change nothing.
            let again = try #require(try await harness.sync().syncOnce())
            #expect(again.actions.applied == 0)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func theLatestActionWinsAndNewMarksAnEpisodeUnplayedAgain(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            let feed = try await harness.feed(Self.feedURL, episodes: Self.episodes)
            try await harness.server.phoneActions([
                harness.play(Self.feedURL, media: Self.episodes[0].media, guid: "ep-1", position: 1790, total: 1800)
            ])
            try await harness.sync().syncOnce()
            #expect(try await harness.states(feed)["ep-1"]?.played == true)
            try await Task.sleep(for: .milliseconds(1100))
            try await harness.server.phoneActions([
                harness.play(
                    Self.feedURL, media: Self.episodes[0].media, guid: "ep-1", position: 0, total: 0, action: "new")
            ])
            try await harness.sync().syncOnce()
            let state = try #require(try await harness.states(feed)["ep-1"])
            #expect(state.played == false && state.position == nil && state.lastAction == .new)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aDownloadCompletedWhileTheServerWasDownIsPushedByTheNextSyncExactlyOnce(
        _ kind: SyncTestServer.Kind
    )
        async throws
    {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            let feed = try await harness.feed(Self.feedURL, episodes: Self.episodes)
            try await harness.sync().syncOnce()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-dl-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await harness.completeDownload(
                feed, key: "ep-1", media: Self.episodes[0].media, file: folder.appendingPathComponent("1.mp3").path)
            // The server fails the push: the action stays in the outbox.
            let match = kind == .gpodder ? "/episodes/" : "episode_action/create"
            try await harness.server.inject("status", match: match, method: "POST", status: 503)
            let failed = try #require(try await harness.sync().syncOnce())
            #expect(failed.failure?.step == .pushActions && failed.failure?.status == 503)
            #expect(try await harness.store.pendingEpisodeActionCount() == 1)

            let pushes = try await harness.actionPushes()
            let outcome = try #require(try await harness.sync().syncOnce())
            #expect(outcome.failure == nil && outcome.actionsPushed == 1)
            _ = try await harness.sync().syncOnce()
            #expect(try await harness.actionPushes() == pushes + 1, "pushed by the next sync, once")
            let downloads = try await harness.server.serverActions().filter {
                ($0["action"] as? String)?.lowercased() == "download"
            }
            #expect(downloads.count == 1)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func malformedActionsAreNamedAndCutTheSyncBeforeTheCursorMoves(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            let feed = try await harness.feed(Self.feedURL, episodes: Self.episodes)
            try await harness.server.phoneActions([
                harness.play(Self.feedURL, media: Self.episodes[0].media, guid: "ep-1", position: 1790, total: 1800)
            ])
            let match = kind == .gpodder ? "/episodes/" : "episode_action"
            try await harness.server.inject("malformed", match: match, method: "GET")
            let cut = try #require(try await harness.sync().syncOnce())
            #expect(cut.failure?.step == .pullActions && cut.failure?.kind == .malformed, "\(cut)")
            #expect(cut.failure?.server == harness.server.url.absoluteString)
            #expect(try await harness.store.syncState()?.actionsCursor == nil, "the cursor did not move")
            #expect(try await harness.states(feed).isEmpty)
            #expect(try await harness.store.syncState()?.subscriptionsCursor != nil, "the subscriptions synced")

            let outcome = try #require(try await harness.sync().syncOnce())
            #expect(outcome.failure == nil && outcome.actions.played == 1)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aPlayedEpisodesFileIsDeletedOnlyWhenPodfreshWroteIt(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            var feed = try await harness.feed(Self.feedURL, episodes: Self.episodes)
            feed = try await harness.store.updateDownloadSettings(id: feed.id, DownloadSettings(deletePlayed: true))
            #expect(feed.deletePlayed)
            try await harness.sync().syncOnce()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-dl-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let ours = folder.appendingPathComponent("1.mp3").path
            let mine = folder.appendingPathComponent("1 (my copy).mp3").path
            let unplayed = folder.appendingPathComponent("2.mp3").path
            try await harness.completeDownload(feed, key: "ep-1", media: Self.episodes[0].media, file: ours)
            try await harness.completeDownload(feed, key: "ep-2", media: Self.episodes[1].media, file: unplayed)
            try Data("not podfresh's".utf8).write(to: URL(fileURLWithPath: mine))
            try await Task.sleep(for: .milliseconds(1100))
            try await harness.server.phoneActions([
                harness.play(Self.feedURL, media: Self.episodes[0].media, guid: "ep-1", position: 1790, total: 1800),
                harness.play(Self.feedURL, media: Self.episodes[1].media, guid: "ep-2", position: 30, total: 1800),
            ])

            let outcome = try #require(try await harness.sync().syncOnce())

            #expect(outcome.failure == nil)
            #expect(!FileManager.default.fileExists(atPath: ours), "played to the end: deleted")
            #expect(FileManager.default.fileExists(atPath: mine), "a file podfresh did not write stays")
            #expect(FileManager.default.fileExists(atPath: unplayed), "not played to the end: stays")
            #expect(try await harness.store.download(subscriptionID: feed.id, episodeKey: "ep-1")?.isOnDisk == false)
            #expect(
                harness.events.all.isEmpty == false
                    && harness.events.removals.map(\.file) == [ours]
                    && harness.events.removals.allSatisfy { $0.reason == .played })
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func nextcloudKeepsOneActionPerEpisodeSoADownloadNeverOverwritesThePhonesPlay() async throws {
        try await withHarness(.nextcloud) { harness in
            try await harness.setUp()
            let feed = try await harness.feed(Self.feedURL, episodes: Self.episodes)
            try await harness.server.phoneActions([
                harness.play(Self.feedURL, media: Self.episodes[0].media, guid: "ep-1", position: 600, total: 1800)
            ])
            try await harness.sync().syncOnce()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-dl-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await harness.completeDownload(
                feed, key: "ep-1", media: Self.episodes[0].media, file: folder.appendingPathComponent("1.mp3").path)
            try await harness.completeDownload(
                feed, key: "ep-2", media: Self.episodes[1].media, file: folder.appendingPathComponent("2.mp3").path)

            let outcome = try #require(try await harness.sync().syncOnce())

            #expect(outcome.actionsPushed == 1)
            #expect(harness.events.all.contains(.actionsPushed(SyncActionsPushed(pushed: 1, withheld: 1))))
            let actions = try await harness.server.serverActions()
            let first = actions.first { $0["guid"] as? String == "ep-1" }
            #expect(first?["action"] as? String == "PLAY" && first?["position"] as? Int == 600)
            #expect(actions.contains { $0["guid"] as? String == "ep-2" && $0["action"] as? String == "DOWNLOAD" })
            #expect(try await harness.store.pendingEpisodeActionCount() == 0)
        }
    }
}
