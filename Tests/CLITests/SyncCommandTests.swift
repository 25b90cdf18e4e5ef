import Foundation
import TestSupport
import Testing

/// `podfresh sync setup`, `sync`, and `refresh`/`watch` syncing first, driving the built binary against real
/// gPodder-API servers on 127.0.0.1 (gpodder-fastapi-router in its venv; the Nextcloud gPodder Sync server written from
/// its published API), a real SQLite file, and feeds on the test HTTP server; the phone's side is plain HTTP calls.
@Suite(.serialized)
struct SyncCommandTests {
    static let password = "pw-that-must-never-show"

    func feed(_ title: String, items: [String]) -> String {
        let entries = items.map {
            "<item><title>\($0)</title><guid>\($0)</guid><pubDate>Tue, 12 Nov 2024 05:00:00 GMT</pubDate></item>"
        }
        return "<rss version=\"2.0\"><channel><title>\(title)</title>\(entries.joined())</channel></rss>"
    }

    func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    func events(_ name: String, in text: String) -> [[String: Any]] {
        jsonLines(text).filter { $0["event"] as? String == name }
    }

    /// A podfresh with sync set up against a fresh `kind` server (grouped with the phone), and feeds A and B served.
    func withSyncedPodfresh(
        _ kind: SyncTestServer.Kind,
        _ body: (Podfresh, SyncTestServer, TestHTTPServer) async throws -> Void
    ) async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_SYNC_PASSWORD"] = Self.password
        try await withTestHTTPServer { feeds in
            feeds.serveFeed("/a.xml", feed("Show A", items: ["a-one"]))
            feeds.serveFeed("/b.xml", feed("Show B", items: ["b-one"]))
            feeds.serveFeed("/c.xml", feed("Show C", items: ["c-one"]))
            try await withSyncTestServer(kind, directory: podfresh.directory, password: Self.password) { server in
                try await server.registerPhone()
                var arguments = [
                    "sync", "setup", "--server", server.url.absoluteString, "--user", server.user, "--device", "box",
                    "--api", kind.rawValue,
                ]
                if kind == .gpodder { arguments += ["--sync-with", "phone"] }
                let setup = try await podfresh.run(arguments)
                #expect(setup.status == 0, "\(setup.stderr)")
                #expect(!setup.stdout.contains(Self.password) && !setup.stderr.contains(Self.password))
                try await body(podfresh, server, feeds)
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func setUpNeedsHTTPSExceptOnThisMachine() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let plain = try await podfresh.run(
            ["sync", "setup", "--server", "http://gpodder.example.org", "--user", "alice"])
        #expect(plain.status == 64)
        #expect(plain.stderr.contains("https"), "\(plain.stderr)")
        let withPassword = try await podfresh.run(
            ["sync", "setup", "--server", "https://alice:secret@gpodder.example.org", "--user", "alice"])
        #expect(withPassword.status == 64)
        #expect(!withPassword.stderr.contains("secret"))
    }

    @Test(.timeLimit(.minutes(1)))
    func setUpWithoutAPasswordToHaveSaysHowToGiveOne() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let result = try await podfresh.run(
            ["sync", "setup", "--server", "http://127.0.0.1:9", "--user", "alice"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("PODFRESH_SYNC_PASSWORD"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: podfresh.databasePath + ".sync-password"))
    }

    @Test(
        .timeLimit(.minutes(3)),
        .enabled("needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI)") {
            await SyncTestServer.gpodderAvailable()
        })
    func refreshSyncsFirstAndFetchesWhatThePhoneSubscribedInTheSameRun() async throws {
        try await withSyncedPodfresh(.gpodder) { podfresh, server, feeds in
            let passwordFile = podfresh.databasePath + ".sync-password"
            let attributes = try FileManager.default.attributesOfItem(atPath: passwordFile)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "readable by the user alone")
            #expect(try String(contentsOfFile: passwordFile, encoding: .utf8) == Self.password)

            let a = feeds.url("/a.xml").absoluteString
            let b = feeds.url("/b.xml").absoluteString
            try await server.phoneChanges(add: [a])
            #expect(try await podfresh.run(["add", "--no-fetch", b]).status == 0)

            let refresh = try await podfresh.run(["refresh", "--json"])
            #expect(refresh.status == 0, "\(refresh.stderr)")
            #expect(events("sync_started", in: refresh.stdout).count == 1)
            #expect(events("sync_pulled", in: refresh.stdout).first?["added"] as? Int == 1)
            #expect(events("sync_pushed", in: refresh.stdout).first?["added"] as? Int == 1)
            let refreshed = Set(events("feed_refreshed", in: refresh.stdout).compactMap { $0["url"] as? String })
            #expect(refreshed.contains(a), "the feed the phone subscribed was fetched in the same run")
            #expect(try await server.phoneSubscriptions() == [a, b])

            let status = try await podfresh.run(["status"])
            #expect(status.stdout.contains(server.url.absoluteString) && status.stdout.contains("device box"))
            #expect(status.stdout.contains("last sync:") && status.stdout.contains(" ok: "), "\(status.stdout)")
            let statusJSON = try await podfresh.run(["status", "--json"])
            #expect(statusJSON.stdout.contains("\"last_outcome\":\"ok\""), "\(statusJSON.stdout)")
            for output in [refresh.stdout, refresh.stderr, status.stdout, statusJSON.stdout] {
                #expect(!output.contains(Self.password))
            }

            // --no-sync: the server hears nothing.
            let before = try await server.served().count
            #expect(try await podfresh.run(["refresh", "--no-sync"]).status == 0)
            #expect(try await server.served().count == before)
        }
    }

    @Test(
        .timeLimit(.minutes(3)),
        .enabled("needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI)") {
            await SyncTestServer.gpodderAvailable()
        })
    func aServerThatFailsIsNamedAndTheRefreshGoesOnWithTheLocalList() async throws {
        try await withSyncedPodfresh(.gpodder) { podfresh, server, feeds in
            let b = feeds.url("/b.xml").absoluteString
            #expect(try await podfresh.run(["add", "--no-fetch", b]).status == 0)

            try await server.inject("status", match: "subscri", times: 5, status: 500)
            let failing = try await podfresh.run(["refresh"])
            #expect(failing.status == 1, "a failed sync is a failure of the run")
            #expect(failing.stderr.contains(server.url.absoluteString) && failing.stderr.contains("HTTP 500"))
            #expect(failing.stdout.contains("b-one"), "the local feed was refreshed: \(failing.stdout)")
            _ = try await server.curl(["-X", "POST", "\(server.url)/_test/clear"])

            // A wrong password (the file changed by hand): refused, said so, never shown.
            try "wrong-password".write(
                toFile: podfresh.databasePath + ".sync-password", atomically: true, encoding: .utf8)
            let refused = try await podfresh.run(["sync", "--json"])
            #expect(refused.status == 1)
            let failed = try #require(events("sync_failed", in: refused.stdout).first)
            #expect(
                failed["kind"] as? String == "unauthorized" && failed["server"] as? String == server.url.absoluteString)
            #expect(!refused.stdout.contains("wrong-password") && !refused.stderr.contains("wrong-password"))
            let status = try await podfresh.run(["status"])
            #expect(status.stdout.contains("refused the user name or password"), "\(status.stdout)")
        }
    }

    @Test(
        .timeLimit(.minutes(3)),
        .enabled("needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI)") {
            await SyncTestServer.gpodderAvailable()
        })
    func aServerThatIsDownIsNamedAndTheRefreshGoesOn() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_SYNC_PASSWORD"] = Self.password
        try await withTestHTTPServer { feeds in
            feeds.serveFeed("/b.xml", feed("Show B", items: ["b-one"]))
            var serverURL = ""
            try await withSyncTestServer(.gpodder, directory: podfresh.directory, password: Self.password) { server in
                serverURL = server.url.absoluteString
                let setup = try await podfresh.run(
                    ["sync", "setup", "--server", serverURL, "--user", server.user, "--device", "box"])
                #expect(setup.status == 0, "\(setup.stderr)")
            }
            // The server is gone now.
            #expect(try await podfresh.run(["add", "--no-fetch", feeds.url("/b.xml").absoluteString]).status == 0)
            let refresh = try await podfresh.run(["refresh"])
            #expect(refresh.status == 1)
            #expect(
                refresh.stderr.contains(serverURL) && refresh.stderr.contains("cannot be reached"), "\(refresh.stderr)")
            #expect(refresh.stdout.contains("b-one"))
        }
    }

    @Test(
        .timeLimit(.minutes(3)),
        .enabled("needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI)") {
            await SyncTestServer.gpodderAvailable()
        }, arguments: [false, true])
    func watchPicksUpASubscriptionAddedOnThePhoneWithinOneSyncInterval(_ fixedCycle: Bool) async throws {
        try await withSyncedPodfresh(.gpodder) { podfresh, server, feeds in
            let c = feeds.url("/c.xml").absoluteString
            // Also with a fixed cycle of an hour: a feed the server subscribed is checked between cycles.
            let cycle = fixedCycle ? ["--interval", "1h"] : []
            try await podfresh.withRunning(["watch", "--json", "--sync-interval", "2s"] + cycle) { watch in
                #expect(
                    await watch.waitForLine(containing: "\"sync_pulled\"", within: .seconds(30)), "\(watch.transcript)")
                // The API's cursors are whole seconds: a change in the second of the last pull would be "not after" it.
                try await Task.sleep(for: .milliseconds(1100))
                let added = ContinuousClock.now
                try await server.phoneChanges(add: [c])
                #expect(
                    await watch.wait(within: .seconds(20)) { text in
                        events("feed_refreshed", in: text).contains { $0["url"] as? String == c }
                    }, "\(watch.transcript)")
                #expect(ContinuousClock.now - added < .seconds(2 + 8), "within one sync interval and a fetch")
            }
        }
    }

    @Test(.timeLimit(.minutes(2)), .enabled("needs python3") { SyncTestServer.nextcloudAvailable })
    func nextcloudSyncsTheSameWayAndSetUpCanBeForgotten() async throws {
        try await withSyncedPodfresh(.nextcloud) { podfresh, server, feeds in
            let a = feeds.url("/a.xml").absoluteString
            try await server.phoneChanges(add: [a])
            let sync = try await podfresh.run(["sync"])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stdout.contains("1 subscribed"), "\(sync.stdout)")
            let list = try await podfresh.run(["list"])
            #expect(list.stdout.contains(a))

            let removed = try await podfresh.run(["sync", "setup", "--remove"])
            #expect(removed.status == 0)
            #expect(!FileManager.default.fileExists(atPath: podfresh.databasePath + ".sync-password"))
            let again = try await podfresh.run(["sync"])
            #expect(again.status == 64 && again.stderr.contains("not set up"))
            #expect(try await podfresh.run(["list"]).stdout.contains(a), "the subscriptions stay")
        }
    }

    @Test(.timeLimit(.minutes(3)), .enabled("needs python3") { SyncTestServer.nextcloudAvailable })
    func onPostgreSQLThePasswordIsKeptInTheDatabaseForEveryWorker() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_DATABASE"] = try await TestPostgres.shared().makeDatabase(prefix: "cli-sync")
        podfresh.environment["PODFRESH_SYNC_PASSWORD"] = Self.password
        try await withTestHTTPServer { feeds in
            feeds.serveFeed("/a.xml", feed("Show A", items: ["a-one"]))
            let a = feeds.url("/a.xml").absoluteString
            try await withSyncTestServer(.nextcloud, directory: podfresh.directory, password: Self.password) {
                server in
                try await server.phoneChanges(add: [a])
                let setup = try await podfresh.run(
                    [
                        "sync", "setup", "--server", server.url.absoluteString, "--user", server.user, "--api",
                        "nextcloud",
                    ])
                #expect(setup.status == 0, "\(setup.stderr)")
                #expect(setup.stdout.contains("in the database"), "\(setup.stdout)")
                // A worker started without the variable finds the password in the database.
                var worker = podfresh
                worker.environment["PODFRESH_SYNC_PASSWORD"] = nil
                let refresh = try await worker.run(["refresh", "--json"])
                #expect(refresh.status == 0, "\(refresh.stderr)")
                #expect(events("sync_pulled", in: refresh.stdout).first?["added"] as? Int == 1)
                #expect(events("feed_refreshed", in: refresh.stdout).contains { $0["url"] as? String == a })
                #expect(!refresh.stdout.contains(Self.password) && !refresh.stderr.contains(Self.password))
            }
        }
    }

    @Test(.timeLimit(.minutes(2)), .enabled("needs python3") { SyncTestServer.nextcloudAvailable })
    func importAndRemoveArePushedByTheNextSync() async throws {
        try await withSyncedPodfresh(.nextcloud) { podfresh, server, feeds in
            let b = feeds.url("/b.xml").absoluteString
            let c = feeds.url("/c.xml").absoluteString
            let opml = podfresh.directory.appendingPathComponent("phone.opml")
            try """
            <opml version="2.0"><head><title>subs</title></head><body>
            <outline text="B" type="rss" xmlUrl="\(b)"/><outline text="C" type="rss" xmlUrl="\(c)"/>
            </body></opml>
            """.write(to: opml, atomically: true, encoding: .utf8)
            #expect(try await podfresh.run(["import", opml.path]).status == 0)
            #expect(try await podfresh.run(["sync"]).status == 0)
            #expect(try await server.phoneSubscriptions() == [b, c])

            #expect(try await podfresh.run(["remove", c]).status == 0)
            let sync = try await podfresh.run(["sync", "--json"])
            #expect(events("sync_pushed", in: sync.stdout).first?["removed"] as? Int == 1, "\(sync.stdout)")
            #expect(try await server.phoneSubscriptions() == [b])
        }
    }
}
