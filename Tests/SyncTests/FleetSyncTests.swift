import FeedModels
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
                            subscriptions: store, publish: events.publish)
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
