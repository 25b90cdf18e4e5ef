import FeedModels
import FeedStorage
import Foundation
import GPodderSync
import HTTPTransport
import RefreshEngine
import Synchronization
import TestSupport
import Testing

/// The events a sync published, in order.
final class PublishedEvents: Sendable {
    private let events = Mutex<[SyncEvent]>([])
    private let removed = Mutex<[DownloadRemoval]>([])

    func publish(_ event: SyncEvent) {
        events.withLock { $0.append(event) }
    }

    func publishDownload(_ event: DownloadEvent) {
        if case .removed(let removal) = event { removed.withLock { $0.append(removal) } }
    }

    var all: [SyncEvent] { events.withLock { $0 } }

    /// The files deleted (`downloadRemoved`), in order.
    var removals: [DownloadRemoval] { removed.withLock { $0 } }

    var failures: [SyncFailure] {
        all.compactMap {
            if case .failed(let failure) = $0 { return failure }
            return nil
        }
    }
}

/// A real SQLite store in a temporary folder, a network, and a sync against `server` as device `podfresh-test`,
/// grouped with the phone on a gpodder.net server.
struct SyncHarness {
    let store: FeedStore
    let network: HTTPNetwork
    let server: SyncTestServer
    let events = PublishedEvents()
    var setup: SyncSetup {
        SyncSetup(
            server: server.url, user: server.user, device: "podfresh-test",
            api: server.kind == .gpodder ? .gpodder : .nextcloud)
    }

    func client(password: String? = nil, timeout: Duration = .seconds(10)) -> SyncServerClient {
        SyncServerClient(setup: setup, password: password ?? server.password, network: network, timeout: timeout)
    }

    func sync(timeout: Duration = .seconds(10)) -> SubscriptionSync {
        SubscriptionSync(
            settings: SyncSettings(client: client(timeout: timeout), worker: "test"), store: store,
            subscriptions: store, publish: events.publish, publishDownload: events.publishDownload)
    }

    /// Registers the device (and groups it with the phone on gpodder.net) and sets sync up in the store.
    func setUp() async throws {
        try await server.registerPhone()
        try await client().registerDevice(caption: "podfresh test")
        try await client().synchronize(with: server.kind == .gpodder ? ["phone"] : [])
        try await store.setUpSync(setup, password: nil)
    }

    /// The local subscriptions' URLs.
    func local() async throws -> Set<String> {
        Set(try await store.subscriptions().map(\.url.absoluteString))
    }

    @discardableResult
    func subscribe(_ url: String) async throws -> Subscription {
        try await store.addSubscription(url: URL(string: url)!, title: nil, at: Date(), backlog: nil)
    }

    func unsubscribe(_ url: String) async throws {
        let subscription = try #require(try await store.subscription(url: URL(string: url)!))
        try await store.removeSubscription(id: subscription.id)
    }

    /// The POSTs of subscription changes the server received.
    func pushes() async throws -> Int {
        try await server.served().filter {
            $0.method == "POST" && ($0.path.contains("/subscriptions/") || $0.path.contains("subscription_change"))
        }.count
    }
}

/// Runs `body` with a harness over a fresh store and a fresh server of `kind`; skips (saying why) when the server
/// cannot be had.
func withHarness(
    _ kind: SyncTestServer.Kind, directory: URL? = nil, port: Int = 0,
    _ body: (SyncHarness) async throws -> Void
) async throws {
    let folder =
        directory
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-sync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { if directory == nil { try? FileManager.default.removeItem(at: folder) } }
    let store = try FeedStore(path: folder.appendingPathComponent("podfresh.sqlite").path)
    try await HTTPNetwork.withNetwork { network in
        try await withSyncTestServer(kind, directory: folder, port: port) { server in
            try await body(SyncHarness(store: store, network: network, server: server))
        }
    }
}

/// Whether the servers can be had: the gpodder one needs its venv (made from PyPI when missing).
enum Servers {
    static func available(_ kind: SyncTestServer.Kind) async -> Bool {
        switch kind {
        case .gpodder: await SyncTestServer.gpodderAvailable()
        case .nextcloud: SyncTestServer.nextcloudAvailable
        }
    }

    static let bothAvailable: @Sendable () async throws -> Bool = {
        let gpodder = await SyncTestServer.gpodderAvailable()
        return gpodder && SyncTestServer.nextcloudAvailable
    }
}
