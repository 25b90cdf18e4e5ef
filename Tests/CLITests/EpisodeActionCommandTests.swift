import Foundation
import TestSupport
import Testing

/// Episode actions end to end (issue #35, part 3): the built binary, a real SQLite file, feeds and media on the test
/// HTTP server, and a real gPodder-API server whose "phone" is plain HTTP calls: `download` skips what the phone
/// played, completed downloads reach the phone, `episodes --json` and `--unplayed` show plays, and
/// `--delete-played` deletes only podfresh's own files. Also the terminal password prompt, under a pseudo-terminal.
@Suite(.serialized)
struct EpisodeActionCommandTests {
    static let password = "typed-secret-never-shown"

    static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    static func events(_ name: String, in text: String) -> [[String: Any]] {
        jsonLines(text).filter { $0["event"] as? String == name }
    }

    /// A play on the phone now (Nextcloud answers only actions dated after its cursor: its clock at the last pull).
    static func play(_ feed: String, _ media: String, guid: String, position: Int, total: Int) -> [String: Any] {
        [
            "podcast": feed, "episode": media, "guid": guid, "action": "play", "started": 0, "position": position,
            "total": total, "timestamp": SyncTestServer.apiTimestamp(Date()),
        ]
    }

    @Test(
        .timeLimit(.minutes(4)),
        .enabled("needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI) and python3") {
            await SyncTestServer.gpodderAvailable()
        },
        arguments: SyncTestServer.Kind.allCases)
    func playsSkipDownloadsShowInEpisodesAndDeleteOnlyPodfreshsFiles(_ kind: SyncTestServer.Kind) async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let folder = podfresh.directory.appendingPathComponent("episodes")
        podfresh.environment["PODFRESH_DOWNLOADS"] = folder.path
        podfresh.environment["PODFRESH_SYNC_PASSWORD"] = Self.password
        try await withTestHTTPServer { web in
            for n in 1...3 { web.serveMedia("/m/\(n).mp3", DownloadCommandTests.media(20_000, seed: UInt8(n))) }
            let items = (1...3).map {
                DownloadCommandTests.Item(guid: "e\($0)", title: "Ep \($0)", day: $0, path: "/m/\($0).mp3")
            }
            web.serveFeed("/feed.xml", DownloadCommandTests.feed("Cast", items, server: web))
            let feed = web.url("/feed.xml").absoluteString
            let media = (1...3).map { web.url("/m/\($0).mp3").absoluteString }
            try await withSyncTestServer(kind, directory: podfresh.directory, password: Self.password) { server in
                try await server.registerPhone()
                var setup = [
                    "sync", "setup", "--server", server.url.absoluteString, "--user", server.user, "--device", "box",
                    "--api", kind.rawValue,
                ]
                if kind == .gpodder { setup += ["--sync-with", "phone"] }
                #expect(try await podfresh.run(setup).status == 0)
                #expect(try await podfresh.run(["add", feed]).status == 0)
                let set = try await podfresh.run([
                    "set", "1", "--download", "on", "--backlog", "all", "--delete-played", "on",
                ])
                #expect(set.status == 0 && set.stdout.contains("delete played on"), "\(set.stdout)\(set.stderr)")
                let list = try await podfresh.run(["list", "--json"])
                #expect(list.stdout.contains("\"delete_played\":true"), "\(list.stdout)")

                // The phone played episode 3 to the end.
                try await server.phoneActions([Self.play(feed, media[2], guid: "e3", position: 1790, total: 1800)])
                let refresh = try await podfresh.run(["refresh", "--json"])
                #expect(refresh.status == 0, "\(refresh.stderr)")
                #expect(Self.events("sync_actions_pulled", in: refresh.stdout).first != nil, "\(refresh.stdout)")
                let download = try await podfresh.run(["download", "--json"])
                #expect(download.status == 0, "\(download.stderr)")
                let skipped = Self.events("download_skipped", in: download.stdout)
                #expect(
                    skipped.contains { $0["id"] as? String == "e3" && $0["kind"] as? String == "played_elsewhere" },
                    "\(download.stdout)")
                #expect(web.requests(to: "/m/3.mp3").isEmpty, "played elsewhere: not downloaded")
                #expect(DownloadCommandTests.files(in: folder).count == 2)

                // episodes --json: played and position; --unplayed leaves episode 3 out.
                let listed = Self.jsonLines(try await podfresh.run(["episodes", "--json"]).stdout)
                let e3 = try #require(listed.first { $0["id"] as? String == "e3" })
                #expect(e3["played"] as? Bool == true && e3["position"] as? Int == 1790)
                let e1 = try #require(listed.first { $0["id"] as? String == "e1" })
                #expect(e1["played"] as? Bool == false && e1["position"] is NSNull)
                let unplayed = Self.jsonLines(try await podfresh.run(["episodes", "--json", "--unplayed"]).stdout)
                #expect(Set(unplayed.compactMap { $0["id"] as? String }) == ["e1", "e2"])

                // The next sync tells the phone about the two downloads.
                let sync = try await podfresh.run(["sync", "--json"])
                #expect(sync.status == 0, "\(sync.stderr)")
                #expect(Self.events("sync_actions_pushed", in: sync.stdout).first?["pushed"] as? Int == 2)
                let downloads = try await server.serverActions().filter {
                    ($0["action"] as? String)?.lowercased() == "download"
                }
                #expect(Set(downloads.compactMap { $0["episode"] as? String }) == Set(media[0...1]))

                // The phone plays episode 1 to the end: its file goes; a file of the user's beside it stays.
                let ours = try #require(
                    DownloadCommandTests.files(in: folder).first { $0.contains("Ep 1") }
                        .map { folder.appendingPathComponent($0).path })
                let mine = URL(fileURLWithPath: ours).deletingLastPathComponent().appendingPathComponent(
                    "Ep 1 (mine).mp3")
                try Data("the user's own".utf8).write(to: mine)
                try await Task.sleep(for: .milliseconds(1100))
                try await server.phoneActions([Self.play(feed, media[0], guid: "e1", position: 1800, total: 1800)])
                let second = try await podfresh.run(["sync", "--json"])
                #expect(second.status == 0, "\(second.stderr)")
                let removed = Self.events("download_removed", in: second.stdout)
                #expect(removed.count == 1 && removed.first?["reason"] as? String == "played", "\(second.stdout)")
                #expect(!FileManager.default.fileExists(atPath: ours))
                #expect(FileManager.default.fileExists(atPath: mine.path))
                #expect(DownloadCommandTests.files(in: folder).contains { $0.contains("Ep 2") })
                for output in [
                    refresh.stdout, download.stdout, download.stderr, sync.stdout, second.stdout, second.stderr,
                ] {
                    #expect(!output.contains(Self.password))
                }
            }
        }
    }

    /// Runs the binary under a pseudo-terminal (a small Python driver: `pty.fork`), waits for the password prompt,
    /// types the password, and prints everything the terminal showed.
    static let ptyDriver = """
        import os, pty, select, sys
        typed = os.environ.pop("PTY_TYPE").encode() + b"\\n"
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        seen = b""
        sent = False
        while True:
            ready, _, _ = select.select([fd], [], [], 30)
            if not ready:
                break
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if not sent and b"(not shown): " in seen:
                os.write(fd, typed)
                sent = True
        _, status = os.waitpid(pid, 0)
        sys.stdout.buffer.write(seen)
        sys.exit(os.waitstatus_to_exitcode(status))
        """

    @Test(
        .timeLimit(.minutes(2)),
        .enabled("needs python3 for the pseudo-terminal and the Nextcloud server") {
            SyncTestServer.nextcloudAvailable
        })
    func thePasswordTypedAtThePromptIsNotEchoedAndSetsSyncUp() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let driver = podfresh.directory.appendingPathComponent("ptydrive.py")
        try Self.ptyDriver.write(to: driver, atomically: true, encoding: .utf8)
        podfresh.launcher = ["/usr/bin/python3", driver.path]
        podfresh.environment["PTY_TYPE"] = Self.password
        try await withSyncTestServer(.nextcloud, directory: podfresh.directory, password: Self.password) { server in
            let setup = try await podfresh.run([
                "sync", "setup", "--server", server.url.absoluteString, "--user", server.user, "--api", "nextcloud",
            ])
            #expect(setup.status == 0, "\(setup.stdout)\(setup.stderr)")
            #expect(setup.stdout.contains("Password for \(server.user)"), "the prompt was shown: \(setup.stdout)")
            #expect(setup.stdout.contains("sync set up with"), "\(setup.stdout)")
            #expect(!setup.stdout.contains(Self.password), "the typed password is not echoed")
            let file = podfresh.databasePath + ".sync-password"
            #expect(try String(contentsOfFile: file, encoding: .utf8) == Self.password)
            podfresh.launcher = []
            let sync = try await podfresh.run(["sync"])
            #expect(sync.status == 0, "the kept password works: \(sync.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(3)), .enabled("needs python3") { SyncTestServer.nextcloudAvailable })
    func migrateCarriesTheSyncSetUpItsCursorsAndPlaysAndMovesThePasswordIntoTheDatabase() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_SYNC_PASSWORD"] = Self.password
        try await withTestHTTPServer { web in
            web.serveMedia("/m/1.mp3", DownloadCommandTests.media(1_000, seed: 1))
            let items = [DownloadCommandTests.Item(guid: "e1", title: "Ep 1", day: 1, path: "/m/1.mp3")]
            web.serveFeed("/feed.xml", DownloadCommandTests.feed("Cast", items, server: web))
            let feed = web.url("/feed.xml").absoluteString
            try await withSyncTestServer(.nextcloud, directory: podfresh.directory, password: Self.password) { server in
                #expect(
                    try await podfresh.run([
                        "sync", "setup", "--server", server.url.absoluteString, "--user", server.user, "--api",
                        "nextcloud",
                    ]).status == 0)
                #expect(try await podfresh.run(["add", feed]).status == 0)
                try await Task.sleep(for: .milliseconds(1100))
                try await server.phoneActions([
                    Self.play(feed, web.url("/m/1.mp3").absoluteString, guid: "e1", position: 1790, total: 1800)
                ])
                #expect(try await podfresh.run(["sync"]).status == 0)

                let url = try await TestPostgres.shared().makeDatabase(prefix: "cli_migrate_sync")
                let migrate = try await podfresh.run(["migrate", "--to", url])
                #expect(migrate.status == 0, "\(migrate.stderr)")
                #expect(migrate.stdout.contains("password is now kept in the database"), "\(migrate.stdout)")
                #expect(!migrate.stdout.contains(Self.password))

                // A worker on PostgreSQL, without the variable: the set-up, the password, the cursor and the play
                // came along, so its sync is not a first one.
                var worker = podfresh
                worker.environment["PODFRESH_SYNC_PASSWORD"] = nil
                worker.environment["PODFRESH_DATABASE"] = url
                let listed = Self.jsonLines(try await worker.run(["episodes", "--json"]).stdout)
                #expect(listed.first { $0["id"] as? String == "e1" }?["played"] as? Bool == true, "\(listed)")
                let sync = try await worker.run(["sync", "--json"])
                #expect(sync.status == 0, "\(sync.stderr)")
                #expect(Self.events("sync_started", in: sync.stdout).first?["first"] as? Bool == false)
            }
        }
    }
}
