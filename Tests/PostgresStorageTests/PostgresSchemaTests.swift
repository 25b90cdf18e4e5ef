import FeedParsing
import FeedStorage
import Foundation
import PostgresStorage
import TestSupport
import Testing

/// The PostgreSQL schema: created on first use, versioned, safe to start at once, and refused when newer.
@Suite(.serialized)
struct PostgresSchemaTests {
    @Test func theFirstUseCreatesTheSchemaAtTheCurrentVersion() async throws {
        let cluster = try TestPostgres.shared()
        let url = try cluster.makeDatabase(prefix: "schema")
        let database = try #require(URL(string: url)).lastPathComponent
        try await PostgresFeedStore.withStore(url: url) { _ in }
        #expect(
            try cluster.psql(database: database, "SELECT version FROM podfresh_schema")
                == "\(PostgresFeedStore.schemaVersion)")
        // A second start finds the work done and changes nothing.
        try await PostgresFeedStore.withStore(url: url) { _ in }
        #expect(try cluster.psql(database: database, "SELECT count(*) FROM podfresh_schema") == "1")
    }

    @Test func aDatabaseWithANewerSchemaIsRefusedUntouched() async throws {
        let cluster = try TestPostgres.shared()
        let url = try cluster.makeDatabase(prefix: "newer")
        let database = try #require(URL(string: url)).lastPathComponent
        try await PostgresFeedStore.withStore(url: url) { store in
            _ = try await store.addSubscription(
                url: URL(string: "https://a.example/feed")!, title: nil, at: Date(), backlog: nil)
        }
        let newer = PostgresFeedStore.schemaVersion + 1
        try cluster.psql(database: database, "UPDATE podfresh_schema SET version = \(newer)")

        await #expect {
            try await PostgresFeedStore.withStore(url: url) { _ in Issue.record("a newer schema was opened") }
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .database && error.message.contains("newer") && error.message.contains("\(newer)")
        }
        #expect(try cluster.psql(database: database, "SELECT version FROM podfresh_schema") == "\(newer)")
        #expect(try cluster.psql(database: database, "SELECT count(*) FROM subscription") == "1")
    }

    @Test func workersStartingAtOnceMigrateOnceWithoutFailing() async throws {
        let cluster = try TestPostgres.shared()
        let url = try cluster.makeDatabase(prefix: "race")
        let database = try #require(URL(string: url)).lastPathComponent
        let workers = 6
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    try await PostgresFeedStore.withStore(url: url, maximumConnections: 2) { store in
                        _ = try await store.addSubscription(
                            url: URL(string: "https://a.example/\(worker)")!, title: nil, at: Date(), backlog: nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(
            try cluster.psql(database: database, "SELECT version FROM podfresh_schema")
                == "\(PostgresFeedStore.schemaVersion)")
        #expect(try cluster.psql(database: database, "SELECT count(*) FROM subscription") == "\(workers)")
    }

    @Test func twoWorkersMergingTheSameCheckAtOnceAnnounceEachEpisodeOnce() async throws {
        let url = try TestPostgres.shared().makeDatabase(prefix: "twice")
        let feedURL = URL(string: "https://a.example/feed")!
        let subscription = try await PostgresFeedStore.withStore(url: url) { store in
            try await store.addSubscription(url: feedURL, title: nil, at: Date(), backlog: nil)
        }
        let episodes = (1...20).map { ParsedEpisode(id: "e\($0)", guid: "e\($0)", title: "Episode \($0)") }
        let check = FeedCheck(
            subscriptionID: subscription.id, checkedAt: Date(timeIntervalSince1970: 1_730_000_000), status: 200,
            result: .fetched(
                ParsedFeed(format: .rss2, title: "Show", episodes: episodes), etag: nil, lastModified: nil,
                unconditional: true))
        let announced = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await PostgresFeedStore.withStore(url: url) { store in
                        try await store.applyAsync(check).newEpisodes.map(\.key)
                    }
                }
            }
            var all: [String] = []
            for try await keys in group { all += keys }
            return all
        }
        #expect(announced.sorted() == episodes.map(\.id).sorted(), "each episode announced by exactly one worker")
    }

    @Test func anUnreachableServerIsADatabaseErrorNamingHostAndPort() async throws {
        let port = closedLoopbackPort()
        await #expect {
            try await PostgresFeedStore.withStore(url: "postgres://podfresh@127.0.0.1:\(port)/none?sslmode=disable") {
                _ in
            }
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .database && error.message.contains("127.0.0.1:\(port)")
        }
    }

    @Test func aMissingDatabaseSaysSo() async throws {
        let cluster = try TestPostgres.shared()
        await #expect {
            try await PostgresFeedStore.withStore(url: cluster.url(database: "no_such_database")) { _ in }
        } throws: { error in
            (error as? StoreError)?.message.contains("does not exist") == true
        }
    }
}
