import FeedModels
import FeedParsing
import Foundation
import GPodderSync
import HTTPTransport
import PostgresStorage
import RefreshEngine
import TestSupport
import Testing

/// On PostgreSQL one worker of a fleet syncs at a time, under the lease in the store, against a real server.
@Suite(
    .enabled("needs python3 for the Nextcloud gPodder Sync server") { SyncTestServer.nextcloudAvailable })
struct FleetSyncTests {
    @Test(.timeLimit(.minutes(2)))
    func oneWorkerSyncsForTheFleetAndTheOthersSaySo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try await TestPostgres.shared().makeDatabase(prefix: "sync")
        try await PostgresFeedStore.withStore(url: url) { store in
            try await HTTPNetwork.withNetwork { network in
                try await withSyncTestServer(.nextcloud, directory: folder) { server in
                    let setup = SyncSetup(server: server.url, user: server.user, device: "fleet", api: .nextcloud)
                    try await store.setUpSync(setup, password: server.password)
                    let password = try #require(try await store.syncPassword())
                    try await server.phoneChanges(add: ["https://phone.example/a.xml"])
                    let client = SyncServerClient(setup: setup, password: password, network: network)
                    let events = PublishedEvents()
                    func worker(_ name: String) -> SubscriptionSync {
                        SubscriptionSync(
                            settings: SyncSettings(client: client, lease: 60, worker: name), store: store,
                            subscriptions: store, publish: events.publish, publishDownload: events.publishDownload)
                    }
                    // Worker "a" is syncing (it holds the lease): "b" does nothing and says who syncs.
                    #expect(try await store.claimSync(worker: "a", lease: 60, at: Date()) == .granted)
                    #expect(try await worker("b").syncOnce() == nil)
                    #expect(
                        events.all.contains {
                            if case .leaseHeldElsewhere(let holder, _) = $0 { return holder == "a" }
                            return false
                        })
                    #expect(try await store.subscriptions().isEmpty)
                    // "a" ends its sync (gives the lease back): "b" syncs, and every worker sees the feed, due.
                    let outcome = try #require(try await worker("a").syncOnce())
                    #expect(outcome.pulledAdded == 1)
                    #expect(try await store.syncState()?.holder == nil, "the lease was given back")
                    #expect(try await worker("b").syncOnce()?.failure == nil)
                    #expect(
                        try await store.dueSubscriptions(at: Date()).map(\.url.absoluteString) == [
                            "https://phone.example/a.xml"
                        ])
                }
            }
        }
    }
}

/// On PostgreSQL the worker holding the sync lease pulls and pushes the fleet's episode actions: a download another
/// worker completed reaches the server through it, once, and the plays it pulls are every worker's.
@Suite(
    .enabled("needs python3 for the Nextcloud gPodder Sync server") { SyncTestServer.nextcloudAvailable })
struct FleetEpisodeActionTests {
    @Test(.timeLimit(.minutes(2)))
    func theLeaseHolderSyncsTheFleetsActionsOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try await TestPostgres.shared().makeDatabase(prefix: "sync_actions")
        try await PostgresFeedStore.withStore(url: url) { store in
            try await HTTPNetwork.withNetwork { network in
                try await withSyncTestServer(.nextcloud, directory: folder) { server in
                    let setup = SyncSetup(server: server.url, user: server.user, device: "fleet", api: .nextcloud)
                    try await store.setUpSync(setup, password: server.password)
                    let feed = try await store.addSubscription(
                        url: URL(string: "https://show.example/feed.xml")!, title: nil, at: Date(), backlog: nil)
                    let media = ["https://cdn.example/1.mp3", "https://cdn.example/2.mp3"]
                    _ = try await store.apply(
                        FeedCheck(
                            subscriptionID: feed.id, checkedAt: Date(), status: 200,
                            result: .fetched(
                                ParsedFeed(
                                    format: .rss2, title: "Show",
                                    episodes: media.enumerated().map {
                                        ParsedEpisode(
                                            id: "e\($0.offset + 1)", guid: "e\($0.offset + 1)",
                                            enclosures: [Enclosure(url: URL(string: $0.element)!, type: "audio/mpeg")])
                                    }), etag: nil, lastModified: nil, unconditional: true)))
                    try await server.phoneActions([
                        [
                            "podcast": feed.url.absoluteString, "episode": media[0], "guid": "e1", "action": "play",
                            "position": 1800, "total": 1800,
                            "timestamp": SyncTestServer.apiTimestamp(Date().addingTimeInterval(-60)),
                        ]
                    ])
                    // Worker "b" completed a download of e2.
                    try await store.recordDownloadStarted(
                        DownloadStart(
                            subscriptionID: feed.id, episodeKey: "e2", url: URL(string: media[1])!,
                            partPath: "/x.part", filePath: "/x", startedAt: Date()))
                    try await store.recordDownloadCompleted(
                        DownloadCompletion(
                            subscriptionID: feed.id, episodeKey: "e2", filePath: "/x", bytes: 1,
                            url: URL(string: media[1])!, downloadedAt: Date()))
                    let client = SyncServerClient(setup: setup, password: server.password, network: network)
                    let events = PublishedEvents()
                    func worker(_ name: String) -> SubscriptionSync {
                        SubscriptionSync(
                            settings: SyncSettings(client: client, lease: 60, worker: name), store: store,
                            subscriptions: store, publish: events.publish, publishDownload: events.publishDownload)
                    }
                    #expect(try await store.claimSync(worker: "a", lease: 60, at: Date()) == .granted)
                    #expect(try await worker("b").syncOnce() == nil, "the lease holder syncs, not b")
                    #expect(try await store.pendingEpisodeActionCount() == 1)
                    let outcome = try #require(try await worker("a").syncOnce())
                    #expect(outcome.failure == nil && outcome.actions.played == 1 && outcome.actionsPushed == 1)
                    #expect(
                        try await store.playStates(subscriptionID: feed.id)[
                            EpisodeRef(subscriptionID: feed.id, episodeKey: "e1")]?.played == true)
                    let again = try #require(try await worker("b").syncOnce())
                    #expect(again.actionsPushed == 0 && again.actions.applied == 0)
                    let downloads = try await server.serverActions().filter { $0["action"] as? String == "DOWNLOAD" }
                    #expect(downloads.count == 1)
                }
            }
        }
    }
}
