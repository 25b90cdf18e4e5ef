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
        let database = try await TestPostgres.shared().makeDatabase(prefix: "fleet")
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
            let postgres = try await TestPostgres.shared()
            let name = String(database.split(separator: "/").last!)
            #expect(try await postgres.psql(database: name, "SELECT count(*) FROM episode") == "72")
            #expect(
                try await postgres.psql(
                    database: name, "SELECT count(*) FROM subscription WHERE last_success_at IS NULL")
                    == "0")
            #expect(
                try await postgres.psql(
                    database: name, "SELECT count(*) FROM subscription WHERE lease_owner IS NOT NULL")
                    == "0")

            // Run again at once: nothing is due, so nothing is fetched.
            let again = try await Self.workers(podfresh, count: 2, arguments: [])
            for result in again { #expect(result.status == 0, "\(result.stderr)") }
            #expect(server.requests.count == paths.count)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func threeWorkersRefreshingAllFetchEachFeedOncePerRun() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, _, paths) = try await Self.fleet(server, feeds: 200, delay: .milliseconds(5))
            defer { podfresh.cleanUp() }
            for run in 1...2 {
                let results = try await Self.workers(
                    podfresh, count: 3, arguments: ["--all", "--jobs", "5", "--per-host", "16"])
                for result in results { #expect(result.status == 0, "\(result.stderr)") }
                let twice = paths.filter { server.requests(to: $0).count != run }
                #expect(
                    server.requests.count == 200 * run,
                    "run \(run): \(server.requests.count) fetches for 200 feeds; \(twice.count) feeds not fetched once")
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aWorkerStartedDuringAnAllRunJoinsItInsteadOfFetchingAgain() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, _, paths) = try await Self.fleet(server, feeds: 60, delay: .milliseconds(40))
            defer { podfresh.cleanUp() }
            try await podfresh.withRunning(["refresh", "--all", "--quiet", "--jobs", "2", "--per-host", "16"]) {
                first in
                let deadline = ContinuousClock.now + .seconds(20)
                while server.requests.count < 10 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(server.requests.count >= 10, "the first worker checked some feeds before the second started")
                let second = try await podfresh.run(["refresh", "--all", "--quiet", "--jobs", "2", "--per-host", "16"])
                #expect(second.status == 0, "\(second.stderr)")
                #expect(await first.exit(within: .seconds(60)) == .exited(0), "\(first.standardError)")
            }
            let twice = paths.filter { server.requests(to: $0).count > 1 }
            #expect(twice.isEmpty, "fetched twice in one --all run: \(twice.count) feeds")
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
            let victim = ["refresh", "--jobs", "2", "--per-host", "2", "--lease", "20s", "--timeout", "3s"]
            try await podfresh.withRunning(victim + hanging.map { server.url($0).absoluteString }) { victim in
                let deadline = ContinuousClock.now + .seconds(20)
                while hanging.contains(where: { server.requests(to: $0).isEmpty }) && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(hanging.allSatisfy { !server.requests(to: $0).isEmpty }, "the worker started both fetches")
                victim.send(SIGKILL)
                #expect(await victim.exit(within: .seconds(30)) == .signaled(SIGKILL))
            }

            let postgres = try await TestPostgres.shared()
            let name = String(database.split(separator: "/").last!)
            #expect(
                try await postgres.psql(
                    database: name, "SELECT count(*) FROM subscription WHERE lease_expires_at > now()")
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
            // The lease is long enough for a loaded machine to start that worker well within it.
            let held = "SELECT count(*) FROM subscription WHERE lease_expires_at > now()"
            #expect(try await postgres.psql(database: name, held) == "2", "the leases outlived the second worker")

            // After the leases expired, a worker takes the feeds over and stores them once.
            let expiry = ContinuousClock.now + .seconds(60)
            while try await postgres.psql(database: name, held) != "0" && ContinuousClock.now < expiry {
                try await Task.sleep(for: .milliseconds(250))
            }
            let after = try await podfresh.run(["refresh", "--quiet"])
            #expect(after.status == 0, "\(after.stderr)")
            for path in hanging { #expect(server.requests(to: path).count == 2) }
            #expect(
                after.stdoutLines.filter { $0.contains("taken-over episode") }.count == 2,
                "the first check announces each taken-over feed's newest episode once: \(after.stdout)")
            #expect(try await postgres.psql(database: name, "SELECT count(*) FROM episode") == "18")
            #expect(
                try await postgres.psql(
                    database: name, "SELECT count(*) FROM subscription WHERE last_success_at IS NULL")
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
        let postgres = try await TestPostgres.start(password: "right horse battery")
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
        let postgres = try await TestPostgres.shared()
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_DATABASE"] = postgres.url(database: "no_such_database")
        let missing = try await podfresh.run(["list"])
        #expect(missing.status == 70)
        #expect(missing.stderr.contains("does not exist"), "\(missing.stderr)")

        let database = try await postgres.makeDatabase(prefix: "newer")
        podfresh.environment["PODFRESH_DATABASE"] = database
        #expect(try await podfresh.run(["list"]).status == 0)
        let name = String(database.split(separator: "/").last!)
        try await postgres.psql(database: name, "UPDATE podfresh_schema SET version = 999")
        let newer = try await podfresh.run(["refresh"])
        #expect(newer.status == 70)
        #expect(newer.stderr.contains("newer than this podfresh"), "\(newer.stderr)")
    }

    /// A feed of `count` episodes whose enclosures are `server`'s `/m/N.mp3`, each answered after `delay`.
    static func mediaFeed(_ server: TestHTTPServer, count: Int, delay: Duration) -> String {
        let body = Array(repeating: UInt8(7), count: 40_000)
        for number in 1...count {
            server.setRoute("/m/\(number).mp3") { _ in
                TestResponse(
                    status: 200, headers: [("Content-Type", "audio/mpeg")], body: body, delay: delay,
                    compressible: false)
            }
        }
        let items = (1...count).map { number in
            """
            <item><title>Episode \(number)</title><guid>m\(number)</guid>
            <pubDate>Mon, \(String(format: "%02d", number)) Jan 2024 10:00:00 GMT</pubDate>
            <enclosure url="\(server.url("/m/\(number).mp3").absoluteString)" length="40000" type="audio/mpeg"/></item>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Media</title>\(items.joined(separator: "\n"))</channel></rss>
            """
    }

    @Test(.timeLimit(.minutes(2)))
    func twoDownloadCommandsOnOneDatabaseFetchEachEpisodeOnce() async throws {
        try await withTestHTTPServer { server in
            var podfresh = try Podfresh()
            defer { podfresh.cleanUp() }
            podfresh.environment["PODFRESH_DATABASE"] = try await TestPostgres.shared().makeDatabase(
                prefix: "downloads")
            let folder = podfresh.directory.appendingPathComponent("episodes")
            podfresh.environment["PODFRESH_DOWNLOADS"] = folder.path
            server.serveFeed("/media.xml", Self.mediaFeed(server, count: 8, delay: .milliseconds(300)))
            #expect(try await podfresh.run(["add", server.url("/media.xml").absoluteString]).status == 0)
            #expect(
                try await podfresh.run(["set", "1", "--download", "on", "--keep", "all", "--backlog", "all"]).status
                    == 0)

            let commands = podfresh
            let results = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        try await commands.run(["download", "--json", "--jobs", "4", "--per-host", "4"], timeout: 60)
                    }
                }
                var results: [ProcessResult] = []
                for try await result in group { results.append(result) }
                return results
            }
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            for number in 1...8 {
                let count = server.requests(to: "/m/\(number).mp3").count
                #expect(count == 1, "/m/\(number).mp3 was fetched \(count) times")
            }
            let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
                .filter { $0.hasSuffix(".mp3") }
            #expect(files.count == 8, "\(files)")
            let lines = results.flatMap(\.stdoutLines)
            let started = lines.filter { $0.contains("\"event\":\"download_started\"") }
            let leftToTheOther = lines.filter {
                $0.contains("\"event\":\"download_skipped\"") && $0.contains("another worker")
            }
            #expect(started.count == 8, "each episode started once across both commands: \(lines)")
            #expect(!leftToTheOther.isEmpty, "the commands met: one left episodes to the other")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aDatabaseThatIsGoneEndsRefreshDownloadWatchAndListWith70InSeconds() async throws {
        try await withTestHTTPServer { server in
            // A cluster of its own, stopped while a refresh, a download and a watch use it.
            let postgres = try await TestPostgres.start()
            defer { postgres.stop() }
            var podfresh = try Podfresh()
            defer { podfresh.cleanUp() }
            try await postgres.psql(database: "postgres", "CREATE DATABASE gone")
            podfresh.environment["PODFRESH_DATABASE"] = postgres.url(database: "gone")
            podfresh.environment["PODFRESH_DOWNLOADS"] = podfresh.directory.appendingPathComponent("episodes").path
            server.serveFeed("/media.xml", Self.mediaFeed(server, count: 10, delay: .seconds(1)))
            #expect(try await podfresh.run(["add", server.url("/media.xml").absoluteString]).status == 0)
            #expect(
                try await podfresh.run(["set", "1", "--download", "on", "--keep", "all", "--backlog", "all"]).status
                    == 0)
            var urls: [String] = []
            for number in 1...30 {
                let body = Array(Self.feed("show\(number)").utf8)
                server.setRoute("/slow/\(number).xml") { _ in
                    TestResponse(
                        status: 200, headers: [("Content-Type", "application/rss+xml")], body: body,
                        delay: .milliseconds(700))
                }
                urls.append(server.url("/slow/\(number).xml").absoluteString)
            }
            #expect(try await podfresh.run(["add", "--no-fetch"] + urls).status == 0)

            // Started, not run: no thread of the test's pool blocks reading their pipes while the server stops.
            let commands = [
                ["refresh", "--all", "--jobs", "2", "--per-host", "2"], ["download", "--jobs", "1"],
                ["watch", "--interval", "1s", "--jobs", "2", "--per-host", "2"],
            ]
            try await podfresh.withRunning(all: commands) { running in
                let deadline = ContinuousClock.now + .seconds(30)
                while (server.requests.filter { $0.path.hasPrefix("/m/") }.isEmpty
                    || server.requests.filter { $0.path.hasPrefix("/slow/") }.count < 4)
                    && ContinuousClock.now < deadline
                {
                    try await Task.sleep(for: .milliseconds(20))
                }
                postgres.stop()
                #expect(!postgres.isRunning)
                let stoppedAt = ContinuousClock.now
                // How long after the stop each ended (nil: still running after 90 s).
                let ended = await withTaskGroup(of: (Int, Duration?).self) { group in
                    for (index, process) in running.enumerated() {
                        group.addTask {
                            let status = await process.exit(within: .seconds(90))
                            return (index, status == nil ? nil : ContinuousClock.now - stoppedAt)
                        }
                    }
                    var ended: [Int: Duration?] = [:]
                    for await (index, after) in group { ended[index] = after }
                    return ended
                }
                for (index, process) in running.enumerated() {
                    let name = commands[index][0]
                    let after = ended[index] ?? nil
                    #expect(process.status == .exited(70), "\(name): \(process.standardError)")
                    #expect(
                        after.map { $0 < .seconds(15) } == true,
                        "\(name) took \(after.map(String.init(describing:)) ?? "over 90 s") to give up on the lost database"
                    )
                    #expect(
                        process.standardError.contains("PostgreSQL at 127.0.0.1:\(postgres.port)"),
                        "\(name): \(process.standardError)")
                }
            }

            // Started against the stopped server: every command that uses the database says so at once.
            let everyCommand = [
                ["list"], ["status"], ["episodes"], ["refresh"], ["download"], ["watch"], ["set", "1", "--keep", "2"],
                ["move", "1", "--undo"], ["remove", "1"], ["export"], ["add", server.url("/media.xml").absoluteString],
            ]
            for command in everyCommand {
                let began = Date()
                let result = try await podfresh.run(command, timeout: 30)
                #expect(result.status == 70, "\(command): \(result.stderr)")
                #expect(Date().timeIntervalSince(began) < 10, "\(command)")
                #expect(result.stderr.contains("127.0.0.1:\(postgres.port)"), "\(command): \(result.stderr)")
            }
        }
    }
}
