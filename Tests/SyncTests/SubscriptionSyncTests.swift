import FeedModels
import FeedStorage
import Foundation
import GPodderSync
import RefreshEngine
import TestSupport
import Testing

/// The sync rules of issue #35, run by the engine's ``SubscriptionSync`` over a real SQLite store against real
/// servers on 127.0.0.1, with the phone's side made by plain HTTP calls. One test at a time: each starts a Python
/// server, and a dozen starting at once on two cores starve the suite's time-limited neighbours.
@Suite(
    .serialized,
    .enabled(
        "needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI) and python3",
        Servers.bothAvailable))
struct SubscriptionSyncTests {
    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func theFirstSyncTakesTheUnionAndRemovesNothing(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            try await harness.server.phoneChanges(add: ["https://phone.example/a.xml", "https://both.example/b.xml"])
            try await harness.subscribe("https://here.example/c.xml")
            try await harness.subscribe("https://BOTH.example/b.xml")

            let outcome = try #require(try await harness.sync().syncOnce())

            #expect(outcome.failure == nil)
            #expect(
                try await harness.local() == [
                    "https://phone.example/a.xml", "https://here.example/c.xml", "https://both.example/b.xml",
                ], "the host's case is not a difference (the store's normalisation)")
            #expect(outcome.pulledAdded == 1 && outcome.pulledRemoved == 0)
            #expect(outcome.pushedAdded == 1 && outcome.pushedRemoved == 0)
            #expect(
                try await harness.server.phoneSubscriptions() == [
                    "https://phone.example/a.xml", "https://both.example/b.xml", "https://here.example/c.xml",
                ])
            let state = try #require(try await harness.store.syncState())
            #expect(state.subscriptionsCursor != nil && state.lastOutcome == outcome)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aRemovalOnTheServerUnsubscribesHereAndAnAdditionSubscribesDueNow(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            try await harness.server.phoneChanges(add: ["https://phone.example/a.xml", "https://phone.example/b.xml"])
            try await harness.sync().syncOnce()
            // A change in the same second as the cursor would be "not after" it (the API's cursors are seconds).
            try await Task.sleep(for: .milliseconds(1100))
            try await harness.server.phoneChanges(
                add: ["https://phone.example/new.xml"], remove: ["https://phone.example/a.xml"])

            let outcome = try #require(try await harness.sync().syncOnce())

            #expect(outcome.pulledAdded == 1 && outcome.pulledRemoved == 1 && outcome.failure == nil)
            #expect(try await harness.local() == ["https://phone.example/b.xml", "https://phone.example/new.xml"])
            let new = try #require(
                try await harness.store.subscription(url: URL(string: "https://phone.example/new.xml")!))
            #expect(try await harness.store.dueSubscriptions(at: Date()).map(\.id).contains(new.id), "due at once")
            #expect(outcome.pushedAdded == 0 && outcome.pushedRemoved == 0, "nothing echoed back")
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aChangeThePhoneMakesInTheSecondOfThePullIsTakenByTheNextSync(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            try await harness.server.phoneChanges(add: ["https://phone.example/a.xml"])
            try await harness.sync().syncOnce()
            // Start the pull early in a second, so that the phone's change right after it lands in the same second.
            while Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1) > 0.2 {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await harness.sync().syncOnce()
            try await harness.server.phoneChanges(add: ["https://phone.example/same-second.xml"])
            let cursor = try #require(try await harness.store.syncState()?.subscriptionsCursor)
            let sameSecond = Int64(Date().timeIntervalSince1970) == cursor

            let outcome = try #require(try await harness.sync().syncOnce())

            #expect(outcome.pulledAdded == 1, "same second as the pull: \(sameSecond)")
            #expect(
                try await harness.local() == ["https://phone.example/a.xml", "https://phone.example/same-second.xml"])
            // The second asked again returns what was applied already: nothing changes, nothing is echoed.
            let again = try #require(try await harness.sync().syncOnce())
            #expect(
                again.pulledAdded == 0 && again.pulledRemoved == 0 && again.pushedAdded == 0 && again.failure == nil)
            #expect(
                try await harness.local() == ["https://phone.example/a.xml", "https://phone.example/same-second.xml"])
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func localChangesArePushedOnceEvenWhenTheServerWasDown(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            try await harness.subscribe("https://here.example/keep.xml")
            try await harness.subscribe("https://here.example/drop.xml")
            try await harness.sync().syncOnce()
            try await harness.subscribe("https://here.example/later.xml")
            try await harness.unsubscribe("https://here.example/drop.xml")

            // Offline: the push fails; the change stays to be pushed.
            try await harness.server.inject("status", match: "subscri", method: "POST", status: 503)
            let failed = try #require(try await harness.sync().syncOnce())
            #expect(failed.failure?.kind == .httpStatus && failed.failure?.step == .push)

            let pushesBefore = try await harness.pushes()
            let outcome = try #require(try await harness.sync().syncOnce())
            #expect(outcome.failure == nil && outcome.pushedAdded == 1 && outcome.pushedRemoved == 1, "\(outcome)")
            #expect(
                try await harness.server.phoneSubscriptions(device: "podfresh-test") == [
                    "https://here.example/keep.xml", "https://here.example/later.xml",
                ])
            // Synced: another sync pushes nothing.
            _ = try await harness.sync().syncOnce()
            #expect(try await harness.pushes() == pushesBefore + 1, "pushed once, never again")
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aMovePodfreshMadeIsPushedAsRemoveOldAddNew(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            let feed = try await harness.subscribe("https://old.example/feed.xml")
            try await harness.sync().syncOnce()
            // A 301 (or itunes:new-feed-url) moved it: the store keeps the new URL.
            _ = try await harness.store.moveSubscription(id: feed.id, to: URL(string: "https://new.example/feed.xml")!)

            let outcome = try #require(try await harness.sync().syncOnce())

            #expect(outcome.pushedAdded == 1 && outcome.pushedRemoved == 1)
            #expect(
                try await harness.server.phoneSubscriptions(device: "podfresh-test") == [
                    "https://new.example/feed.xml"
                ])
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func theServersRewritesAreAdopted() async throws {
        try await withHarness(.gpodder) { harness in
            try await harness.setUp()
            try await harness.subscribe("http://Rewrite.example")
            let outcome = try #require(try await harness.sync().syncOnce())
            #expect(outcome.rewritten == 1)
            #expect(try await harness.local() == ["http://rewrite.example/"])
            // Adopted: nothing to push next time.
            let again = try #require(try await harness.sync().syncOnce())
            #expect(again.pushedAdded == 0 && again.pushedRemoved == 0)
        }
    }

    // MARK: - Interrupted

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aFirstSyncCutAtItsPullRecordsNothingAndIsAFirstSyncAgain(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            try await harness.server.phoneChanges(add: ["https://phone.example/a.xml"])
            try await harness.subscribe("https://here.example/c.xml")
            try await harness.server.inject("malformed", match: "subscri", method: "GET")
            let cut = try #require(try await harness.sync().syncOnce())
            #expect(cut.failure?.kind == .malformed && cut.failure?.step == .pull)
            #expect(try await harness.store.syncState()?.subscriptionsCursor == nil)
            #expect(try await harness.store.knownSyncedFeeds().isEmpty)

            let outcome = try #require(try await harness.sync().syncOnce())
            #expect(outcome.failure == nil)
            #expect(try await harness.local() == ["https://phone.example/a.xml", "https://here.example/c.xml"])
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aServerKilledBetweenPullAndPushLosesNothing(_ kind: SyncTestServer.Kind) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var port = 0
        try await withHarness(kind, directory: folder) { harness in
            port = harness.server.port
            try await harness.setUp()
            try await harness.server.phoneChanges(add: ["https://phone.example/a.xml"])
            try await harness.subscribe("https://here.example/c.xml")
            // The first sync pulls, then pushes: the server dies at the push.
            try await harness.server.inject("die", match: "subscri", method: "POST")
            let cut = try #require(try await harness.sync().syncOnce())
            #expect(
                cut.failure?.step == .push && cut.failure?.kind == .unreachable, "\(String(describing: cut.failure))")
            #expect(try await harness.local() == ["https://phone.example/a.xml", "https://here.example/c.xml"])
            #expect(try await harness.store.syncState()?.subscriptionsCursor != nil, "the pull stays recorded")
        }
        // The same server comes back on the same data and port: the local feed is pushed, once.
        try await withHarness(kind, directory: folder, port: port) { harness in
            let outcome = try #require(try await harness.sync().syncOnce())
            #expect(outcome.failure == nil && outcome.pushedAdded == 1 && outcome.pulledAdded == 0)
            #expect(
                try await harness.server.phoneSubscriptions(device: "podfresh-test").contains(
                    "https://here.example/c.xml"))
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aPushTakenButAPullCutKeepsTheCursorAndPushesNothingTwice(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            try await harness.sync().syncOnce()
            let cursor = try #require(try await harness.store.syncState()?.subscriptionsCursor)
            try await harness.subscribe("https://here.example/new.xml")
            try await harness.server.inject("status", match: "subscri", method: "GET", status: 500)
            let cut = try #require(try await harness.sync().syncOnce())
            #expect(cut.pushedAdded == 1 && cut.failure?.step == .pull)
            #expect(try await harness.store.syncState()?.subscriptionsCursor == cursor, "the cursor did not move")
            let pushes = try await harness.pushes()
            let outcome = try #require(try await harness.sync().syncOnce())
            #expect(outcome.failure == nil && outcome.pushedAdded == 0)
            #expect(try await harness.pushes() == pushes, "the change was not pushed twice")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func eventsSayWhatASyncDidWithCounts() async throws {
        try await withHarness(.nextcloud) { harness in
            try await harness.setUp()
            try await harness.server.phoneChanges(add: ["https://phone.example/a.xml"])
            try await harness.subscribe("https://here.example/c.xml")
            try await harness.sync().syncOnce()
            let events = harness.events.all
            #expect(events.first == .started(server: harness.server.url.absoluteString, first: true))
            #expect(
                events.contains {
                    if case .pulled(let pulled) = $0 {
                        return pulled.added.map(\.absoluteString) == ["https://phone.example/a.xml"]
                    }
                    return false
                })
            #expect(events.contains(.pushed(SyncPushed(added: 1, removed: 0, rewritten: 0))))
        }
    }
}
