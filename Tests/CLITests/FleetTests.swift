import Foundation
import TestSupport
import Testing

/// Several podfresh workers, separate processes, on one real PostgreSQL: each due feed is fetched once, a dead
/// worker's feeds are taken over after its leases expire, and the per-host limit holds across the fleet. Requests are
/// counted at a real HTTP server on 127.0.0.1.
@Suite(.serialized)
struct FleetTests {
    static func feed(_ name: String, episodes: Int = 3) -> String {
        let items = (1...episodes).map { number in
            """
            <item><title>\(name) episode \(number)</title><guid>\(name)-\(number)</guid>
            <pubDate>Mon, \(String(format: "%02d", number)) Jan 2024 10:00:00 GMT</pubDate>
            <enclosure url="https://media.example/\(name)/\(number).mp3" length="1000" type="audio/mpeg"/></item>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>\(name)</title><link>https://example.com/\(name)</link>
            \(items.joined(separator: "\n"))
            </channel></rss>
            """
    }

    /// A fleet's database with `count` feeds served by `server` (each answered after `delay`), all due.
    static func fleet(
        _ server: TestHTTPServer, feeds count: Int, delay: Duration? = nil
    ) async throws -> (Podfresh, database: String, paths: [String]) {
        let database = try TestPostgres.shared().makeDatabase(prefix: "fleet")
        var podfresh = try Podfresh()
        podfresh.environment["PODFRESH_DATABASE"] = database
        var paths: [String] = []
        for number in 1...count {
            let path = "/feeds/\(number).xml"
            let body = Array(feed("show\(number)").utf8)
            server.setRoute(path) { _ in
                TestResponse(status: 200, headers: [("Content-Type", "application/rss+xml")], body: body, delay: delay)
            }
            paths.append(path)
        }
        let added = try await podfresh.run(["add", "--no-fetch"] + paths.map { server.url($0).absoluteString })
        #expect(added.status == 0, "\(added.stderr)")
        return (podfresh, database, paths)
    }

    /// Runs `podfresh refresh` in `count` processes at once and waits for all of them.
    static func workers(_ podfresh: Podfresh, count: Int, arguments: [String]) async throws -> [ProcessResult] {
        try await withThrowingTaskGroup(of: ProcessResult.self) { group in
            for _ in 0..<count {
                group.addTask { try await podfresh.run(["refresh", "--json"] + arguments, timeout: 120) }
            }
            var results: [ProcessResult] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    @Test func threeWorkersFetchEveryDueFeedExactlyOnce() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, database, paths) = try await Self.fleet(server, feeds: 24, delay: .milliseconds(60))
            defer { podfresh.cleanUp() }
            let results = try await Self.workers(podfresh, count: 3, arguments: ["--jobs", "3", "--per-host", "9"])
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            for path in paths {
                #expect(
                    server.requests(to: path).count == 1, "\(path) was fetched \(server.requests(to: path).count) times"
                )
            }
            // Every worker took a share: the work was spread, not done by the first to start.
            let busy = results.filter { $0.stdout.contains("episode") }.count
            #expect(busy >= 2, "only \(busy) of 3 workers checked any feed")
            let postgres = try TestPostgres.shared()
            let name = String(database.split(separator: "/").last!)
            #expect(try postgres.psql(database: name, "SELECT count(*) FROM episode") == "72")
            #expect(
                try postgres.psql(database: name, "SELECT count(*) FROM subscription WHERE last_success_at IS NULL")
                    == "0")
            #expect(
                try postgres.psql(database: name, "SELECT count(*) FROM subscription WHERE lease_owner IS NOT NULL")
                    == "0")

            // Run again at once: nothing is due, so nothing is fetched.
            let again = try await Self.workers(podfresh, count: 2, arguments: [])
            for result in again { #expect(result.status == 0, "\(result.stderr)") }
            #expect(server.requests.count == paths.count)
        }
    }

    @Test func theFleetKeepsThePerHostLimitAcrossWorkers() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, _, paths) = try await Self.fleet(server, feeds: 16, delay: .milliseconds(150))
            defer { podfresh.cleanUp() }
            // Each worker could open 4 connections to the one host; together the fleet may have 2 in flight.
            let results = try await Self.workers(podfresh, count: 2, arguments: ["--jobs", "4", "--per-host", "2"])
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            #expect(server.requests.count == paths.count)
            #expect(server.maxConcurrentRequests <= 2, "\(server.maxConcurrentRequests) requests at once to one host")
            #expect(server.maxConcurrentRequests == 2, "the limit was reached, so the test could see it broken")
        }
    }

    @Test func aKilledWorkersFeedsAreTakenOverOnceItsLeasesExpire() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, database, paths) = try await Self.fleet(server, feeds: 6)
            defer { podfresh.cleanUp() }
            // The first two feeds hang, so the first worker is killed while it holds their leases.
            let hanging = Array(paths.prefix(2))
            for path in hanging {
                let body = Array(Self.feed("slow").utf8)
                server.setRoute(path) { _ in
                    TestResponse(
                        status: 200, headers: [("Content-Type", "application/rss+xml")], body: body,
                        delay: .seconds(60))
                }
            }
            let victim = try podfresh.start(
                ["refresh", "--jobs", "2", "--per-host", "2", "--lease", "5s", "--timeout", "3s"]
                    + hanging.map {
                        server.url($0).absoluteString
                    })
            let deadline = Date().addingTimeInterval(20)
            while hanging.contains(where: { server.requests(to: $0).isEmpty }) && Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(hanging.allSatisfy { !server.requests(to: $0).isEmpty }, "the worker started both fetches")
            kill(victim.processIdentifier, SIGKILL)
            victim.waitUntilExit()

            let postgres = try TestPostgres.shared()
            let name = String(database.split(separator: "/").last!)
            #expect(
                try postgres.psql(database: name, "SELECT count(*) FROM subscription WHERE lease_expires_at > now()")
                    == "2")

            // Now the feeds answer at once. Another worker checks the rest but cannot take the leased feeds yet.
            for path in hanging { server.serveFeed(path, Self.feed("taken-over")) }
            // (It may use more slots of the host than the dead worker's leases leave: a dead worker's leases count
            // against the fleet's per-host limit until they expire, like its feeds.)
            let during = try await podfresh.run(["refresh", "--quiet", "--per-host", "4"])
            #expect(during.status == 0, "\(during.stderr)")
            for path in hanging {
                #expect(server.requests(to: path).count == 1, "\(path) was fetched during the lease")
            }
            for path in paths.dropFirst(2) { #expect(server.requests(to: path).count == 1) }

            // After the leases expired, a worker takes the feeds over and stores them once.
            try await Task.sleep(for: .seconds(5.5))
            let after = try await podfresh.run(["refresh", "--quiet"])
            #expect(after.status == 0, "\(after.stderr)")
            for path in hanging { #expect(server.requests(to: path).count == 2) }
            #expect(
                after.stdoutLines.filter { $0.contains("taken-over episode") }.count == 2,
                "the first check announces each taken-over feed's newest episode once: \(after.stdout)")
            #expect(try postgres.psql(database: name, "SELECT count(*) FROM episode") == "18")
            #expect(
                try postgres.psql(database: name, "SELECT count(*) FROM subscription WHERE last_success_at IS NULL")
                    == "0")
        }
    }

    @Test func anUnreachableServerAtStartNamesHostAndPortAndExits70() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_DATABASE"] = "postgres://podfresh:secret@127.0.0.1:1/fleet"
        for command in [["refresh"], ["watch"], ["list"]] {
            let result = try await podfresh.run(command, timeout: 30)
            #expect(result.status == 70, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("127.0.0.1:1"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("secret"))
        }
    }

    @Test func aWrongPasswordIsRefusedWithItsOwnMessage() async throws {
        let postgres = try TestPostgres(password: "right horse battery")
        defer { postgres.stop() }
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_DATABASE"] = "postgres://postgres:wrong@127.0.0.1:\(postgres.port)/postgres"
        let wrong = try await podfresh.run(["list"])
        #expect(wrong.status == 70)
        #expect(wrong.stderr.contains("refused the login"), "\(wrong.stderr)")
        #expect(wrong.stderr.contains("check the user and password"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("wrong"), "the password is never printed: \(wrong.stderr)")
        podfresh.environment["PODFRESH_DATABASE"] =
            "postgres://postgres:right%20horse%20battery@127.0.0.1:\(postgres.port)/postgres"
        let right = try await podfresh.run(["list"])
        #expect(right.status == 0, "the right password logs in: \(right.stderr)")
    }

    @Test func aMissingDatabaseAndANewerSchemaEachSaySo() async throws {
        let postgres = try TestPostgres.shared()
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_DATABASE"] = postgres.url(database: "no_such_database")
        let missing = try await podfresh.run(["list"])
        #expect(missing.status == 70)
        #expect(missing.stderr.contains("does not exist"), "\(missing.stderr)")

        let database = try postgres.makeDatabase(prefix: "newer")
        podfresh.environment["PODFRESH_DATABASE"] = database
        #expect(try await podfresh.run(["list"]).status == 0)
        let name = String(database.split(separator: "/").last!)
        try postgres.psql(database: name, "UPDATE podfresh_schema SET version = 999")
        let newer = try await podfresh.run(["refresh"])
        #expect(newer.status == 70)
        #expect(newer.stderr.contains("newer than this podfresh"), "\(newer.stderr)")
    }

    @Test func watchRidesOutADatabaseOutageAndGoesOnWhenItIsBack() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, database, paths) = try await Self.fleet(server, feeds: 3)
            defer { podfresh.cleanUp() }
            let postgres = try TestPostgres.shared()
            let name = String(database.split(separator: "/").last!)
            let err = Pipe()
            let watch = try podfresh.start(["watch", "--interval", "1s"], stdout: Pipe(), stderr: err)
            let stderr = PipeReader(err)
            defer { if watch.isRunning { watch.terminate() } }
            var deadline = Date().addingTimeInterval(20)
            while server.requests.count < paths.count && Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(server.requests.count >= paths.count, "the first cycle checked every feed")

            // The database refuses every connection and drops the worker's for three seconds.
            try postgres.psql(database: "postgres", "ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS false")
            try postgres.psql(
                database: "postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'"
            )
            try await Task.sleep(for: .seconds(3))
            let duringOutage = server.requests.count
            try postgres.psql(database: "postgres", "ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS true")

            // Back: watch reconnects by itself and checks the feeds again.
            deadline = Date().addingTimeInterval(60)
            while server.requests.count < duringOutage + paths.count && Date() < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(
                server.requests.count >= duringOutage + paths.count, "watch went on after the outage: \(stderr.text)")
            #expect(watch.isRunning, "watch did not exit on a database error: \(stderr.text)")
            watch.terminate()
            watch.waitUntilExit()
            #expect(watch.terminationStatus == 0, "\(stderr.text)")
        }
    }

    @Test func aDatabaseLostMidRunEndsTheRunWith70() async throws {
        try await withTestHTTPServer { server in
            // A cluster of its own, stopped in the middle of the run.
            let postgres = try TestPostgres()
            defer { postgres.stop() }
            var podfresh = try Podfresh()
            defer { podfresh.cleanUp() }
            try postgres.psql(database: "postgres", "CREATE DATABASE lost")
            podfresh.environment["PODFRESH_DATABASE"] = postgres.url(database: "lost")
            var urls: [String] = []
            for number in 1...12 {
                let body = Array(Self.feed("show\(number)").utf8)
                server.setRoute("/lost/\(number).xml") { _ in
                    TestResponse(
                        status: 200, headers: [("Content-Type", "application/rss+xml")], body: body,
                        delay: .milliseconds(400))
                }
                urls.append(server.url("/lost/\(number).xml").absoluteString)
            }
            #expect(try await podfresh.run(["add", "--no-fetch"] + urls).status == 0)
            // Started, not run: its output is small enough for the pipes, and no thread of the test's pool blocks
            // reading them while the test stops the server.
            let out = Pipe()
            let err = Pipe()
            let worker = try podfresh.start(["refresh", "--jobs", "2", "--per-host", "2"], stdout: out, stderr: err)
            let deadline = Date().addingTimeInterval(20)
            while server.requests.count < 2 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            postgres.stop()
            #expect(!postgres.isRunning)
            let stoppedAt = server.requests.count
            let end = Date().addingTimeInterval(150)
            while worker.isRunning && Date() < end { try await Task.sleep(for: .milliseconds(50)) }
            if worker.isRunning { worker.terminate() }
            worker.waitUntilExit()
            let result = ProcessResult(
                status: worker.terminationStatus,
                stdout: String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            #expect(result.status == 70, "\(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("PostgreSQL at 127.0.0.1:\(postgres.port)"), "\(result.stderr)")
            #expect(
                server.requests.count < 12,
                "the run stopped claiming when the database went away (\(stoppedAt) at the stop): \(result.stdout)")
        }
    }
}
