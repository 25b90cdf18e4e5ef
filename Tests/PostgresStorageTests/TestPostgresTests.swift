import Foundation
import PostgresNIO
import TestSupport
import Testing

/// The test cluster itself: it starts, answers queries through postgres-nio, gives each caller its own database,
/// and stops.
@Suite struct TestPostgresTests {
    @Test func aClusterStartsAnswersAQueryThroughPostgresNIOAndStops() async throws {
        // Given a cluster of its own (not the shared one, which this test must not stop)
        let cluster = try await TestPostgres.start()
        defer { cluster.stop() }
        #expect(cluster.isRunning)
        let url = try await cluster.makeDatabase(prefix: "smoke")
        let database = try #require(URL(string: url)).lastPathComponent

        // When a pooled client asks it something with a bound parameter
        let client = PostgresClient(
            configuration: .init(
                host: cluster.host, port: cluster.port, username: cluster.user, password: nil, database: database,
                tls: .disable))
        let answer = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            var answer: Int?
            for try await value in try await client.query("SELECT \(40)::int8 + 2, current_database()").decode(
                (Int, String).self)
            {
                #expect(value.1 == database, "the URL's database is the one connected to")
                answer = value.0
            }
            return answer
        }

        // Then it answers, and after stop() nothing is left
        #expect(answer == 42)
        cluster.stop()
        #expect(!cluster.isRunning)
        #expect(!FileManager.default.fileExists(atPath: cluster.directory.path), "the cluster's folder is deleted")
        await #expect(throws: TestPostgres.Failure.self, "a stopped cluster refuses connections") {
            try await cluster.psql(database: database, "SELECT 1")
        }
    }

    @Test func theSharedClusterGivesEveryCallerAnEmptyDatabaseOfItsOwn() async throws {
        let cluster = try await TestPostgres.shared()
        #expect(try await TestPostgres.shared() === cluster, "one cluster per test process")
        let first = try #require(URL(string: try await cluster.makeDatabase())).lastPathComponent
        let second = try #require(URL(string: try await cluster.makeDatabase())).lastPathComponent
        #expect(first != second)

        try await cluster.psql(database: first, "CREATE TABLE note (body text); INSERT INTO note VALUES ('only here')")
        #expect(try await cluster.psql(database: first, "SELECT body FROM note") == "only here")
        #expect(
            try await cluster.psql(database: second, "SELECT count(*) FROM pg_tables WHERE tablename = 'note'") == "0",
            "the other database is empty")
    }
}
