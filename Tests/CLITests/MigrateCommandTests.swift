import Foundation
import TestSupport
import Testing

/// End-to-end: `podfresh migrate --to postgres://…` through the built binary, into the test process's PostgreSQL.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct MigrateCommandTests {
    /// A podfresh database with the demo feeds refreshed by the binary (3 feeds, 7 episodes, 1 run).
    func demoDatabase() async throws -> Podfresh {
        let podfresh = try Podfresh()
        #expect(try await podfresh.run(["add", "--no-fetch"] + RefreshCommandTests.demoFeeds).status == 0)
        #expect(try await podfresh.run(["refresh", "--quiet"]).status == 0)
        return podfresh
    }

    /// Every file in the folder and its bytes.
    func files(in folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    @Test func migrateCopiesTheDatabaseSaysWhatItCopiedAndLeavesTheSourceAsItWas() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        let before = try files(in: podfresh.directory)
        let cluster = try await TestPostgres.shared()
        let url = try await cluster.makeDatabase(prefix: "cli_migrate")

        let result = try await podfresh.run(["migrate", "--to", url])

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        let lines = result.stdoutLines
        // The URL as shown: without its query (the test cluster's connect_timeout) and without a password.
        let shown = url.prefix { $0 != "?" }
        #expect(lines.first == "copied \(podfresh.databasePath) into \(shown)", "\(result.stdout)")
        #expect(lines.contains("  subscriptions: 3 copied"), "\(result.stdout)")
        #expect(lines.contains("  episodes:      7 copied"), "\(result.stdout)")
        #expect(lines.contains("  refresh runs:  1 copied"), "\(result.stdout)")
        #expect(lines.contains("  downloads:     0 copied"), "\(result.stdout)")
        #expect(lines.last?.hasPrefix("counts checked:") == true, "\(result.stdout)")
        let database = String(url.split(separator: "/").last ?? "")
        #expect(
            try await cluster.psql(
                database: database,
                "SELECT (SELECT count(*) FROM subscription), (SELECT count(*) FROM episode), (SELECT count(*) FROM refresh_run)"
            ) == "3|7|1")

        // the source: the same files, the same bytes (no -wal, -shm or new lock file)
        #expect(try files(in: podfresh.directory) == before)

        // a second copy without --merge is refused and says how to merge; with --merge it copies nothing twice
        let refused = try await podfresh.run(["migrate", "--to", url])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("already holds 3 subscriptions"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--merge"), "\(refused.stderr)")
        #expect(refused.stdout == "")

        let merged = try await podfresh.run(["migrate", "--to", url, "--merge", "--json"])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdoutLines.count == 1)
        #expect(
            merged.stdout.contains(
                #""subscriptions":{"source":3,"copied":0,"already_present":3},"episodes":{"source":7,"copied":0,"already_present":7},"runs":{"source":1,"copied":0,"already_present":1},"downloads":{"source":0,"copied":0,"already_present":0}"#
            ), "\(merged.stdout)")
        #expect(merged.stdout.contains(#""merged":true"#), "\(merged.stdout)")
        #expect(try files(in: podfresh.directory) == before)
    }

    @Test func anUnreachableServerExits70NamingHostAndPort() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        let port = closedLoopbackPort()

        let result = try await podfresh.run(["migrate", "--to", "postgres://someone:secret@127.0.0.1:\(port)/podcasts"])

        #expect(result.status == 70, "\(result.stderr)")
        #expect(result.stderr.contains("127.0.0.1:\(port)"), "\(result.stderr)")
        #expect(!result.stderr.contains("secret"), "the password is never printed: \(result.stderr)")
        #expect(result.stdout == "")
    }

    @Test func aBadPostgresURLExits70() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }

        let result = try await podfresh.run(["migrate", "--to", "postgres://127.0.0.1/podcasts?sslmode=sometimes"])

        #expect(result.status == 70, "\(result.stderr)")
        #expect(result.stderr.contains("sslmode"), "\(result.stderr)")
    }

    @Test(arguments: ["mysql://db.example.com/podcasts", "/tmp/elsewhere.sqlite", "file:///tmp/elsewhere.sqlite"])
    func aTargetThatIsNotPostgresIsAUsageError(target: String) async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }

        let result = try await podfresh.run(["migrate", "--to", target])

        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--to takes"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: podfresh.directory.path) == [])
    }

    @Test func aPostgresSourceIsAUsageErrorThatExplainsWhatToCopy() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_DATABASE"] = "postgres://127.0.0.1:1/fleet"

        let result = try await podfresh.run(["migrate", "--to", "postgres://127.0.0.1:1/other"])

        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("copies an SQLite database into PostgreSQL"), "\(result.stderr)")
    }

    @Test func aMissingSourceExits70AndCreatesNothing() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }

        let result = try await podfresh.run(["migrate", "--to", "postgres://127.0.0.1:1/podcasts"])

        #expect(result.status == 70, "\(result.stderr)")
        #expect(result.stderr.contains("there is no database at \(podfresh.databasePath)"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: podfresh.directory.path) == [])
    }
}
