import Foundation
import Testing

/// `--database` and `PODFRESH_DATABASE` choose the backend from the scheme before anything touches the file system.
@Suite(.serialized)
struct DatabaseURLTests {
    /// A podfresh run in an empty folder of its own, so that anything it creates there shows.
    func podfreshInEmptyFolder() throws -> (Podfresh, URL) {
        var podfresh = try Podfresh()
        let folder = podfresh.directory.appendingPathComponent("cwd")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        podfresh.workingDirectory = folder
        return (podfresh, folder)
    }

    func contents(of folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test(arguments: [
        ["list"], ["status"], ["episodes"], ["export"], ["add", "--no-fetch", "https://example.com/feed.xml"],
        ["refresh"], ["remove", "1"],
    ])
    func anUnreachablePostgresServerIsADatabaseErrorThatCreatesNothing(command: [String]) async throws {
        let (podfresh, folder) = try podfreshInEmptyFolder()
        defer { podfresh.cleanUp() }
        for url in ["postgres://someone:secret@127.0.0.1:1/podcasts", "postgresql://127.0.0.1:2/podcasts"] {
            let result = try await podfresh.run(command + ["--database", url])
            #expect(result.status == 70, "\(command) \(url): \(result.stderr)")
            #expect(result.stderr.contains("PostgreSQL at 127.0.0.1:"), "host and port are named: \(result.stderr)")
            #expect(!result.stderr.contains("secret"), "the password is never printed: \(result.stderr)")
            let created = try contents(of: folder)
            #expect(created == [], "\(command) \(url) created \(created)")
        }
    }

    @Test(arguments: [["status"], ["refresh"], ["migrate", "--to", "postgres://127.0.0.1:1/target"]])
    func aRefusedConnectionToPostgresSaysSoNamingHostAndPort(command: [String]) async throws {
        let (podfresh, _) = try podfreshInEmptyFolder()
        defer { podfresh.cleanUp() }
        let arguments = command.first == "migrate" ? command : command + ["--database", "postgres://127.0.0.1:1/x"]
        if command.first == "migrate" {
            // Something to copy: a SQLite database with one subscription.
            let add = try await podfresh.run(["add", "--no-fetch", "https://example.com/feed.xml"])
            #expect(add.status == 0, "\(add.stderr)")
        }
        let result = try await podfresh.run(arguments)
        #expect(result.status == 70, "\(result.stderr)")
        #expect(
            result.stderr
                == "podfresh: cannot reach PostgreSQL at 127.0.0.1:1: connection refused (nothing listens on that "
                + "port); check that the server runs and the URL\n")
    }

    @Test func anUnreachablePostgresServerInTheEnvironmentIsADatabaseErrorThatCreatesNothing() async throws {
        var (podfresh, folder) = try podfreshInEmptyFolder()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_DATABASE"] = "postgres://127.0.0.1:1/podcasts"
        let result = try await podfresh.run(["list"])
        #expect(result.status == 70, "\(result.stderr)")
        #expect(result.stderr.contains("PostgreSQL"), "\(result.stderr)")
        #expect(try contents(of: folder) == [])
    }

    @Test(arguments: ["mysql://db.example.com/podcasts", "HTTP://example.com/podfresh.sqlite", "s3://bucket/db"])
    func anUnknownSchemeIsAUsageErrorNamingIt(url: String) async throws {
        let (podfresh, folder) = try podfreshInEmptyFolder()
        defer { podfresh.cleanUp() }
        let scheme = String(url.prefix { $0 != ":" }).lowercased()
        let flag = try await podfresh.run(["add", "--no-fetch", "https://example.com/feed.xml", "--database", url])
        #expect(flag.status == 64, "\(flag.stderr)")
        #expect(flag.stderr.contains("\"\(scheme)://\""), "the scheme is named: \(flag.stderr)")

        var fromEnvironment = podfresh
        fromEnvironment.environment["PODFRESH_DATABASE"] = url
        let environment = try await fromEnvironment.run(["list"])
        #expect(environment.status == 64, "\(environment.stderr)")
        #expect(environment.stderr.contains("PODFRESH_DATABASE"), "\(environment.stderr)")
        #expect(environment.stderr.contains("\"\(scheme)://\""), "\(environment.stderr)")
        #expect(try contents(of: folder) == [], "nothing is created for \(url)")
    }

    @Test func aPlainPathAFileURLAndAPathWithAColonStaySQLite() async throws {
        let (podfresh, folder) = try podfreshInEmptyFolder()
        defer { podfresh.cleanUp() }
        let feed = "https://example.com/feed.xml"
        let relative = try await podfresh.run(["add", "--no-fetch", feed, "--database", "sub/podfresh.sqlite"])
        #expect(relative.status == 0, "\(relative.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("sub/podfresh.sqlite").path))

        let fileURL = "file://" + folder.appendingPathComponent("sub/podfresh.sqlite").path
        let listed = try await podfresh.run(["list", "--json", "--database", fileURL])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("example.com/feed.xml"), "the file:// URL names the same file: \(listed.stdout)")

        let colon = try await podfresh.run(["add", "--no-fetch", feed, "--database", "old:copy/podfresh.sqlite"])
        #expect(colon.status == 0, "a colon without // is part of a path: \(colon.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("old:copy/podfresh.sqlite").path))
    }
}
