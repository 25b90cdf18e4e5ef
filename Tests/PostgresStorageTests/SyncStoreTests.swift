import FeedModels
import FeedStorage
import Foundation
import PostgresStorage
import TestSupport
import Testing

/// Sync state, the same on SQLite and PostgreSQL: the set-up, the known list a sync compares with, the cursor, the last
/// outcome and the lease of the one worker that syncs for a fleet.
@Suite(.serialized)
struct SyncStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_732_581_663)
    let setup = SyncSetup(
        server: URL(string: "https://gpodder.example.org")!, user: "alice", device: "podfresh-box", api: .gpodder)

    func withSyncStore(_ backend: Backend, _ body: (any SyncRepository) async throws -> Void) async throws {
        try await backend.withStore { store in
            try await body(try #require(store as? any SyncRepository))
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func aSetUpStartsFromNothingAndIsForgottenWhole(_ backend: Backend) async throws {
        try await withSyncStore(backend) { store in
            #expect(try await store.syncState() == nil)
            try await store.setUpSync(setup, password: nil)
            #expect(try await store.syncState() == SyncState(setup: setup))
            #expect(try await store.syncPassword() == nil)

            try await store.recordSyncPull(
                added: ["https://a.example/1", "https://a.example/2"], removed: [], cursor: 100)
            try await store.recordSyncPush(added: ["https://b.example/3"], removed: ["https://a.example/1"])
            #expect(try await store.knownSyncedFeeds() == ["https://a.example/2", "https://b.example/3"])
            let outcome = SyncOutcome(
                pulledAdded: 2, pushedAdded: 1, pushedRemoved: 1,
                failure: SyncFailure(step: .pull, kind: .httpStatus, server: "https://gpodder.example.org", status: 502)
            )
            try await store.recordSyncOutcome(outcome, at: t0)
            let state = try #require(try await store.syncState())
            #expect(state.subscriptionsCursor == 100 && state.lastSyncAt == t0 && state.lastOutcome == outcome)

            // Set up anew (another account): the next sync is a first one.
            try await store.setUpSync(setup, password: nil)
            #expect(try await store.syncState()?.subscriptionsCursor == nil)
            #expect(try await store.knownSyncedFeeds().isEmpty)
            try await store.removeSync()
            #expect(try await store.syncState() == nil)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Backend.allCases)
    func oneWorkerSyncsUntilItsLeaseExpiresOrItLetsGo(_ backend: Backend) async throws {
        try await withSyncStore(backend) { store in
            try await store.setUpSync(setup, password: nil)
            #expect(try await store.claimSync(worker: "a", lease: 30, at: t0) == .granted)
            #expect(
                try await store.claimSync(worker: "b", lease: 30, at: t0.addingTimeInterval(5))
                    == .heldBy(worker: "a", until: t0.addingTimeInterval(30)))
            #expect(try await store.claimSync(worker: "a", lease: 30, at: t0.addingTimeInterval(6)) == .granted)
            #expect(try await store.claimSync(worker: "b", lease: 30, at: t0.addingTimeInterval(37)) == .granted)
            try await store.releaseSync(worker: "b")
            #expect(try await store.claimSync(worker: "c", lease: 30, at: t0.addingTimeInterval(38)) == .granted)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func postgresKeepsThePasswordForTheFleetAndSQLiteNever() async throws {
        try await withSyncStore(.postgres) { store in
            try await store.setUpSync(setup, password: "s3cret")
            #expect(try await store.syncPassword() == "s3cret")
            try await store.removeSync()
            #expect(try await store.syncPassword() == nil)
        }
        try await withSyncStore(.sqliteFile) { store in
            try await store.setUpSync(setup, password: "s3cret")
            #expect(try await store.syncPassword() == nil, "SQLite's password lives in a file of its own, mode 0600")
        }
    }
}
