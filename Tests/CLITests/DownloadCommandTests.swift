import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: `podfresh download`, `refresh --download` and what they leave on disk and in the store, against a real
/// HTTP server on 127.0.0.1 that serves ranges, ETags and faults.
@Suite(.serialized)
struct DownloadCommandTests {
    /// One episode of a test feed.
    struct Item {
        var guid: String
        var title: String
        var day: Int
        var path: String
        var type = "audio/mpeg"
    }

    /// An RSS feed titled `title` whose items' enclosures point at `server`.
    static func feed(_ title: String, _ items: [Item], server: TestHTTPServer) -> String {
        let entries = items.map { item in
            """
            <item><title>\(item.title)</title><guid>\(item.guid)</guid>
            <pubDate>\(String(format: "%02d", item.day)) Jan 2024 10:00:00 GMT</pubDate>
            <enclosure url="\(server.url(item.path).absoluteString.replacingOccurrences(of: "&", with: "&amp;"))" type="\(item.type)" length="0"/></item>
            """
        }
        return """
            <?xml version="1.0"?><rss version="2.0"><channel><title>\(title)</title>
            \(entries.joined(separator: "\n"))
            </channel></rss>
            """
    }

    /// Deterministic bytes that differ per seed.
    static func media(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7 &+ $0 >> 8) }
    }

    /// A podfresh whose default download folder is private to the test.
    func podfresh() throws -> (Podfresh, URL) {
        var podfresh = try Podfresh()
        let folder = podfresh.directory.appendingPathComponent("episodes")
        podfresh.environment["PODFRESH_DOWNLOADS"] = folder.path
        return (podfresh, folder)
    }

    /// Every regular file under `folder`, as paths relative to it, sorted.
    static func files(in folder: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: [String] = []
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// Compares file contents without printing megabytes when they differ.
    static func same(_ bytes: [UInt8]?, _ expected: [UInt8]) -> Bool {
        bytes == expected
    }

    static func bytes(_ url: URL) -> [UInt8]? {
        (try? Data(contentsOf: url)).map(Array.init)
    }

    /// Subscribes to the server's `/feed.xml` and stores its episodes.
    func subscribe(_ podfresh: Podfresh, _ server: TestHTTPServer) async throws {
        let add = try await podfresh.run(["add", server.url("/feed.xml").absoluteString])
        #expect(add.status == 0, "\(add.stderr)")
        let refresh = try await podfresh.run(["refresh", "--quiet"])
        #expect(refresh.status == 0, "\(refresh.stderr)")
    }

    /// `episodes --json`, keyed by episode id.
    func episodes(_ podfresh: Podfresh) async throws -> [String: [String: Any]] {
        let listed = try await podfresh.run(["episodes", "--json", "--limit", "100"])
        #expect(listed.status == 0, "\(listed.stderr)")
        var byID: [String: [String: Any]] = [:]
        for line in listed.stdoutLines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            byID[try #require(object["id"] as? String)] = object
        }
        if byID.isEmpty,
            let array = try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        {
            for object in array { byID[object["id"] as? String ?? ""] = object }
        }
        return byID
    }

    @Test(.timeLimit(.minutes(2)))
    func downloadFetchesTheNewestNCompleteRecordsThemAndDoesNotFetchThemAgain() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            let one = Self.media(300_000, seed: 1)
            let two = Self.media(500_000, seed: 2)
            let three = Self.media(200_000, seed: 3)
            server.serveMedia("/m/one.mp3", one)
            server.serveMedia("/m/two.mp3", two)
            server.serveMedia("/m/three.mp3", three)
            let items = [
                Item(guid: "e3", title: "Third", day: 3, path: "/m/three.mp3"),
                Item(guid: "e2", title: "Second", day: 2, path: "/m/two.mp3"),
                Item(guid: "e1", title: "First", day: 1, path: "/m/one.mp3"),
            ]
            server.serveFeed("/feed.xml", Self.feed("Test Cast", items, server: server))
            try await subscribe(podfresh, server)

            let run = try await podfresh.run(["download", "Test Cast", "--latest", "2"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.files(in: folder) == ["Test Cast/2024-01-02 Second.mp3", "Test Cast/2024-01-03 Third.mp3"])
            #expect(Self.same(Self.bytes(folder.appendingPathComponent("Test Cast/2024-01-03 Third.mp3")), three))
            #expect(Self.same(Self.bytes(folder.appendingPathComponent("Test Cast/2024-01-02 Second.mp3")), two))
            #expect(run.stdout.contains("downloaded Test Cast: Third → \(folder.path)/Test Cast/2024-01-03 Third.mp3"))
            #expect(run.stdout.contains("downloads: 2 downloaded"), "\(run.stdout)")
            for request in server.requests(to: "/m/three.mp3") {
                #expect(request.headers["accept-encoding"] == "identity")
            }

            let stored = try await episodes(podfresh)
            #expect(stored["e3"]?["file"] as? String == folder.path + "/Test Cast/2024-01-03 Third.mp3")
            #expect(stored["e3"]?["downloaded_at"] is String)
            #expect(stored["e1"]?["file"] is NSNull)

            let again = try await podfresh.run(["download", "1", "--latest", "2"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(server.requests(to: "/m/three.mp3").count == 1, "a file on disk is not downloaded again")
            #expect(server.requests(to: "/m/two.mp3").count == 1)

            // Without FEED: only feeds whose downloads are on, the newest of each by default.
            let none = try await podfresh.run(["download"])
            #expect(none.status == 0)
            #expect(none.stderr.contains("no feed has downloads on"), "\(none.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aFailedDownloadExitsOneKeepsTheOthersAndMarksNothingDownloaded() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/good.mp3", Self.media(100_000, seed: 4))
            server.setRoute(
                "/m/page.mp3",
                TestResponse(
                    status: 200, headers: [("Content-Type", "text/html")],
                    body: Array("<html>Please log in</html>".utf8)))
            server.setRoute("/m/missing.mp3", TestResponse(status: 404, headers: [], body: Array("nope".utf8)))
            let items = [
                Item(guid: "good", title: "Good", day: 3, path: "/m/good.mp3"),
                Item(guid: "page", title: "Login Page", day: 2, path: "/m/page.mp3"),
                Item(guid: "gone", title: "Missing", day: 1, path: "/m/missing.mp3"),
            ]
            server.serveFeed("/feed.xml", Self.feed("Flaky Cast", items, server: server))
            try await subscribe(podfresh, server)
            #expect(
                try await podfresh.run(["set", "1", "--download", "on", "--keep", "3", "--backlog", "3"]).status == 0)

            let run = try await podfresh.run(["download"])
            #expect(run.status == 1, "one failed download makes the exit status 1")
            #expect(Self.files(in: folder) == ["Flaky Cast/2024-01-03 Good.mp3"], "no error page becomes a file")
            #expect(run.stderr.contains("Flaky Cast: Login Page: download failed:"), "\(run.stderr)")
            #expect(run.stderr.contains("text/html"), "\(run.stderr)")
            #expect(run.stderr.contains("Flaky Cast: Missing: download failed:"), "\(run.stderr)")
            #expect(run.stderr.contains("HTTP 404"), "\(run.stderr)")
            #expect(run.stdout.contains("1 downloaded") && run.stdout.contains("2 failed"), "\(run.stdout)")

            let stored = try await episodes(podfresh)
            #expect(stored["good"]?["file"] is String)
            #expect(stored["page"]?["file"] is NSNull && stored["page"]?["downloaded_at"] is NSNull)
            #expect(stored["gone"]?["file"] is NSNull)

            // The same in JSON Lines (tried now, though both broken links wait): one failure event per episode
            // with its kind and status.
            let json = try await podfresh.run(["download", "--json", "--retry"])
            #expect(json.status == 1)
            let events = try json.stdoutLines.map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            let failed = events.filter { $0["event"] as? String == "download_failed" }
            #expect(Set(failed.compactMap { $0["id"] as? String }) == ["page", "gone"])
            #expect(failed.first { $0["id"] as? String == "gone" }?["http_status"] as? Int == 404)
            #expect(failed.first { $0["id"] as? String == "page" }?["kind"] as? String == "not_media")
            #expect(events.last?["event"] as? String == "downloads_completed")
            #expect(events.last?["failed"] as? Int == 2)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aCutDownloadKeepsItsPartAndTheNextRunResumesItWithRangeAndIfRange() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            let body = Self.media(400_000, seed: 5)
            server.serveMedia("/m/ep.mp3", body, etag: "\"abc\"", fault: .shortBody(afterBytes: 150_000))
            server.serveFeed(
                "/feed.xml",
                Self.feed("Cut Cast", [Item(guid: "ep", title: "Episode", day: 5, path: "/m/ep.mp3")], server: server))
            try await subscribe(podfresh, server)

            let cut = try await podfresh.run(["download", "1"])
            #expect(cut.status == 1)
            #expect(
                cut.stderr.contains("127.0.0.1 closed the connection before the episode's end arrived (got "),
                "\(cut.stderr)")
            #expect(cut.stderr.contains(" of 400000 bytes); the .part is kept to resume"), "\(cut.stderr)")
            #expect(!cut.stderr.contains("unexpected error"), "\(cut.stderr)")
            let final = folder.appendingPathComponent("Cut Cast/2024-01-05 Episode.mp3")
            #expect(Self.files(in: folder) == ["Cut Cast/2024-01-05 Episode.mp3.part"])
            // What arrived before the cut, to the byte (the client may not have read all 150 000 that were sent).
            let partial = Self.bytes(URL(fileURLWithPath: final.path + ".part")) ?? []
            #expect(partial.count > 0 && partial.count <= 150_000)
            #expect(Self.same(partial, Array(body[0..<partial.count])))
            #expect(try await episodes(podfresh)["ep"]?["file"] is NSNull)

            server.serveMedia("/m/ep.mp3", body, etag: "\"abc\"")
            let resumed = try await podfresh.run(["download", "1"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(Self.same(Self.bytes(final), body))
            #expect(Self.files(in: folder) == ["Cut Cast/2024-01-05 Episode.mp3"])
            let last = try #require(server.requests(to: "/m/ep.mp3").last)
            #expect(last.headers["range"] == "bytes=\(partial.count)-")
            #expect(last.headers["if-range"] == "\"abc\"")
            #expect(resumed.stdout.contains("resumed at"), "\(resumed.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aFileThatAppearsUnderTheNameOfADownloadInProgressIsNeverOverwritten() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            let body = Self.media(100_000, seed: 7)
            server.serveMedia("/m/ep.mp3", body, fault: .shortBody(afterBytes: 40_000))
            server.serveFeed(
                "/feed.xml",
                Self.feed(
                    "Careful Cast", [Item(guid: "ep", title: "Episode", day: 6, path: "/m/ep.mp3")], server: server))
            try await subscribe(podfresh, server)
            #expect(try await podfresh.run(["download", "1"]).status == 1)
            let final = folder.appendingPathComponent("Careful Cast/2024-01-06 Episode.mp3")
            #expect(FileManager.default.fileExists(atPath: final.path + ".part"))
            try Data("the user's own file".utf8).write(to: final)

            server.serveMedia("/m/ep.mp3", body)
            let run = try await podfresh.run(["download", "1"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                Self.same(Self.bytes(final), Array("the user's own file".utf8)), "someone else's file is left alone")
            #expect(
                Self.same(Self.bytes(folder.appendingPathComponent("Careful Cast/2024-01-06 Episode (2).mp3")), body))
            #expect(!FileManager.default.fileExists(atPath: final.path + ".part"), "our stale .part is cleared")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func downloadingAgainNeverTakesOverAFileThatNowStandsWhereARemovedOneWas() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/1.mp3", Self.media(20_000, seed: 1))
            server.serveMedia("/m/2.mp3", Self.media(20_000, seed: 2))
            let items = [
                Item(guid: "e2", title: "Two", day: 2, path: "/m/2.mp3"),
                Item(guid: "e1", title: "One", day: 1, path: "/m/1.mp3"),
            ]
            server.serveFeed("/feed.xml", Self.feed("Kept Cast", items, server: server))
            try await subscribe(podfresh, server)
            #expect(try await podfresh.run(["set", "1", "--download", "on", "--keep", "1"]).status == 0)
            #expect(try await podfresh.run(["download", "--latest", "2"]).status == 0)
            let removed = folder.appendingPathComponent("Kept Cast/2024-01-01 One.mp3")
            #expect(!FileManager.default.fileExists(atPath: removed.path), "retention removed the older file")
            try Data("mine now".utf8).write(to: removed)

            #expect(try await podfresh.run(["set", "1", "--keep", "2"]).status == 0)
            let again = try await podfresh.run(["download", "--again", "--latest", "2"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(Self.same(Self.bytes(removed), Array("mine now".utf8)), "the file standing there is not ours")
            #expect(
                Self.same(
                    Self.bytes(folder.appendingPathComponent("Kept Cast/2024-01-01 One (2).mp3")),
                    Self.media(20_000, seed: 1)))
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func againNeverDownloadsWhatKeepRemovesAndIsOfferedOnlyWhereItWouldDownload() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/1.mp3", Self.media(20_000, seed: 1))
            server.serveMedia("/m/2.mp3", Self.media(20_000, seed: 2))
            let items = [
                Item(guid: "e2", title: "Two", day: 2, path: "/m/2.mp3"),
                Item(guid: "e1", title: "One", day: 1, path: "/m/1.mp3"),
            ]
            server.serveFeed("/feed.xml", Self.feed("Kept Cast", items, server: server))
            try await subscribe(podfresh, server)
            #expect(try await podfresh.run(["set", "1", "--download", "on", "--keep", "1"]).status == 0)
            #expect(try await podfresh.run(["download", "--latest", "2"]).status == 0)
            #expect(server.requests(to: "/m/1.mp3").count == 1)
            // --keep 1 removes "One" at once: --again does not fetch it only to remove it again.
            let again = try await podfresh.run(["download", "--again", "--latest", "2"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(server.requests(to: "/m/1.mp3").count == 1, "\(again.stdout)")
            #expect(!again.stdout.contains("removed"), "\(again.stdout)")

            // A file deleted by hand that a filter now leaves out: --again is not offered, since it would not
            // download it.
            try FileManager.default.removeItem(at: folder.appendingPathComponent("Kept Cast/2024-01-02 Two.mp3"))
            #expect(try await podfresh.run(["set", "1", "--exclude", "Two"]).status == 0)
            let skipped = try await podfresh.run(["download"])
            #expect(skipped.stdout.contains("deleted by hand"), "\(skipped.stdout)")
            #expect(!skipped.stdout.contains("--again"), "\(skipped.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func killNineMidTransferLeavesNothingMarkedDownloadedAndTheNextRunResumesThePart() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            let body = Self.media(2_000_000, seed: 6)
            server.serveMedia(
                "/m/slow.mp3", body, etag: "\"slow-v1\"", fault: .trickle(bytes: 20_000, delay: .milliseconds(20)))
            server.serveFeed(
                "/feed.xml",
                Self.feed("Slow Cast", [Item(guid: "slow", title: "Slow", day: 7, path: "/m/slow.mp3")], server: server)
            )
            try await subscribe(podfresh, server)

            let part = folder.appendingPathComponent("Slow Cast/2024-01-07 Slow.mp3.part")
            try await podfresh.withRunning(["download", "1", "--quiet"]) { download in
                let deadline = ContinuousClock.now + .seconds(30)
                while (Self.bytes(part)?.count ?? 0) < 100_000 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                download.send(SIGKILL)
                #expect(await download.exit(within: .seconds(30)) == .signaled(SIGKILL))
            }
            let partial = try #require(Self.bytes(part))
            #expect(partial.count >= 100_000 && partial.count < body.count)
            #expect(Self.same(partial, Array(body[0..<partial.count])))
            #expect(Self.files(in: folder) == ["Slow Cast/2024-01-07 Slow.mp3.part"], "no final file appears")
            #expect(try await episodes(podfresh)["slow"]?["file"] is NSNull, "nothing is marked downloaded")

            server.serveMedia("/m/slow.mp3", body, etag: "\"slow-v1\"")
            let resumed = try await podfresh.run(["download", "1"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let last = try #require(server.requests(to: "/m/slow.mp3").last)
            let offset = try #require(last.headers["range"].flatMap { Int($0.dropFirst(6).dropLast()) })
            #expect(offset >= partial.count, "the resume starts where the killed run's bytes end")
            #expect(last.headers["if-range"] == "\"slow-v1\"", "the validator was stored before the first byte")
            #expect(Self.same(Self.bytes(folder.appendingPathComponent("Slow Cast/2024-01-07 Slow.mp3")), body))
            #expect(try await episodes(podfresh)["slow"]?["file"] is String)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func sigintStopsTheDownloadsKeepsTheirPartsAndExits130() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            let body = Self.media(2_000_000, seed: 8)
            server.serveMedia(
                "/m/slow.mp3", body, etag: "\"s1\"", fault: .trickle(bytes: 20_000, delay: .milliseconds(20)))
            server.serveFeed(
                "/feed.xml",
                Self.feed(
                    "Stopped Cast", [Item(guid: "slow", title: "Slow", day: 8, path: "/m/slow.mp3")], server: server))
            try await subscribe(podfresh, server)
            let part = folder.appendingPathComponent("Stopped Cast/2024-01-08 Slow.mp3.part")
            try await podfresh.withRunning(["download", "1"]) { download in
                let deadline = ContinuousClock.now + .seconds(30)
                while (Self.bytes(part)?.count ?? 0) < 100_000 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                download.send(SIGINT)
                #expect(
                    await download.exit(within: .seconds(10)) == .exited(130),
                    "a stop does not wait for the download to end: \(download.standardError)")
                #expect(
                    download.standardError.contains("stopped before the end; the .part is kept to resume"),
                    "\(download.standardError)")
            }
            #expect(Self.files(in: folder) == ["Stopped Cast/2024-01-08 Slow.mp3.part"])
            #expect(try await episodes(podfresh)["slow"]?["file"] is NSNull)

            server.serveMedia("/m/slow.mp3", body, etag: "\"s1\"")
            let resumed = try await podfresh.run(["download", "1"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(server.requests(to: "/m/slow.mp3").last?.headers["range"] != nil)
            #expect(Self.same(Self.bytes(folder.appendingPathComponent("Stopped Cast/2024-01-08 Slow.mp3")), body))
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func retentionDeletesOnlyRecordedFilesAndAFileDeletedByHandIsNotFetchedAgainUnlessAsked() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            var items: [Item] = []
            for day in 1...4 {
                server.serveMedia("/m/\(day).mp3", Self.media(50_000, seed: UInt8(day)))
                items.insert(Item(guid: "e\(day)", title: "Day \(day)", day: day, path: "/m/\(day).mp3"), at: 0)
            }
            server.serveFeed("/feed.xml", Self.feed("Kept Cast", items, server: server))
            try await subscribe(podfresh, server)
            // Files that are not podfresh's, in the folder it writes to.
            let feedFolder = folder.appendingPathComponent("Kept Cast")
            try FileManager.default.createDirectory(at: feedFolder, withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: feedFolder.appendingPathComponent("2024-01-01 Day 1.mp3"))
            try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))

            #expect(try await podfresh.run(["set", "1", "--download", "on", "--keep", "2"]).status == 0)
            let first = try await podfresh.run(["download", "--latest", "4"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("removed"), "\(first.stdout)")
            #expect(
                Self.files(in: folder) == [
                    "Kept Cast/2024-01-01 Day 1.mp3", "Kept Cast/2024-01-03 Day 3.mp3",
                    "Kept Cast/2024-01-04 Day 4.mp3",
                    "notes.txt",
                ], "the newest 2 are kept, and nothing podfresh did not download is touched")
            #expect(
                Self.same(Self.bytes(feedFolder.appendingPathComponent("2024-01-01 Day 1.mp3")), Array("mine".utf8)))

            try FileManager.default.removeItem(at: feedFolder.appendingPathComponent("2024-01-04 Day 4.mp3"))
            let skipped = try await podfresh.run(["download"])
            #expect(skipped.status == 0)
            #expect(skipped.stdout.contains("deleted by hand"), "\(skipped.stdout)")
            #expect(server.requests(to: "/m/4.mp3").count == 1, "a file deleted by hand is not downloaded again")
            let status = try await podfresh.run(["status"])
            #expect(status.stdout.contains("downloads on disk: 1 file"), "\(status.stdout)")

            let asked = try await podfresh.run(["download", "--again"])
            #expect(asked.status == 0, "\(asked.stderr)")
            #expect(server.requests(to: "/m/4.mp3").count == 2)
            #expect(
                FileManager.default.fileExists(atPath: feedFolder.appendingPathComponent("2024-01-04 Day 4.mp3").path))
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func anEpisodeIsDownloadedOnceByItsIdentityEvenWhenItsEnclosureURLChanges() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/ep.mp3", Self.media(10_000, seed: 9))
            let item = Item(guid: "same", title: "Same", day: 9, path: "/m/ep.mp3?utm=1")
            server.serveFeed("/feed.xml", Self.feed("Tracked Cast", [item], server: server))
            try await subscribe(podfresh, server)
            #expect(try await podfresh.run(["download", "1"]).status == 0)

            var moved = item
            moved.path = "/prefix/m/ep.mp3?utm=2"
            server.serveMedia("/prefix/m/ep.mp3", Self.media(10_000, seed: 9))
            server.serveFeed("/feed.xml", Self.feed("Tracked Cast", [moved], server: server))
            #expect(try await podfresh.run(["refresh", "--all", "--quiet"]).status == 0)
            #expect(try await podfresh.run(["download", "1"]).status == 0)
            #expect(server.requests(to: "/prefix/m/ep.mp3").isEmpty, "a new URL for the same episode is not fetched")
            #expect(Self.files(in: folder).count == 1)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aChainOfTrackingRedirectsIsFollowedAndTheFileIsNamedByItsType() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            let body = Self.media(30_000, seed: 3)
            server.serveMedia("/cdn/real-file.mp3", body)
            let first = server.serveRedirectChain("/track/hop", hops: 4, to: "/cdn/real-file.mp3")
            server.serveFeed(
                "/feed.xml",
                Self.feed("Tracked", [Item(guid: "t", title: "Tracked", day: 4, path: first)], server: server))
            try await subscribe(podfresh, server)
            let run = try await podfresh.run(["download", "1"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.same(Self.bytes(folder.appendingPathComponent("Tracked/2024-01-04 Tracked.mp3")), body))
            #expect(server.requests(to: "/track/hop3").count == 1)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func anEpisodeWithoutMediaTakesNoPlaceAndALowerKeepTakesEffectOnTheNextRun() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/1.mp3", Self.media(20_000, seed: 1))
            server.serveMedia("/m/2.mp3", Self.media(20_000, seed: 2))
            var body = Self.feed(
                "Mixed Cast",
                [
                    Item(guid: "a2", title: "Audio Two", day: 2, path: "/m/2.mp3"),
                    Item(guid: "a1", title: "Audio One", day: 1, path: "/m/1.mp3"),
                ], server: server)
            // The newest item is a text post: no enclosure.
            body = body.replacingOccurrences(
                of: "<item>",
                with:
                    "<item><title>Show notes</title><guid>text</guid><pubDate>03 Jan 2024 10:00:00 GMT</pubDate></item><item>",
                options: [], range: body.range(of: "<item>"))
            server.serveFeed("/feed.xml", body)
            try await subscribe(podfresh, server)
            #expect(try await podfresh.run(["set", "1", "--download", "on", "--keep", "2"]).status == 0)

            let first = try await podfresh.run(["download", "--latest", "2"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(
                Self.files(in: folder) == [
                    "Mixed Cast/2024-01-01 Audio One.mp3", "Mixed Cast/2024-01-02 Audio Two.mp3",
                ])

            #expect(try await podfresh.run(["set", "1", "--keep", "1"]).status == 0)
            let tidy = try await podfresh.run(["download"])
            #expect(tidy.status == 0, "\(tidy.stderr)")
            #expect(Self.files(in: folder) == ["Mixed Cast/2024-01-02 Audio Two.mp3"], "the lower keep applies at once")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func filesNamedFromHostileFeedTextStayInsideTheFolderAndNeverCollide() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/a.mp3", Self.media(1000, seed: 1))
            server.serveMedia("/m/b.mp3", Self.media(1000, seed: 2))
            let items = [
                Item(guid: "a", title: "../../../escape", day: 1, path: "/m/a.mp3"),
                Item(guid: "b", title: "../../../escape", day: 1, path: "/m/b.mp3"),
            ]
            server.serveFeed("/feed.xml", Self.feed("../Evil/Cast", items, server: server))
            try await subscribe(podfresh, server)
            let run = try await podfresh.run(["download", "1", "--latest", "2"])
            #expect(run.status == 0, "\(run.stderr)")
            let files = Self.files(in: folder)
            #expect(files.count == 2, "two episodes with one name get two files: \(files)")
            #expect(Set(files).count == 2)
            #expect(files.allSatisfy { !$0.contains("..") && $0.split(separator: "/").count == 2 }, "\(files)")
            let parent = try FileManager.default.contentsOfDirectory(atPath: podfresh.directory.path)
            #expect(!parent.contains("escape") && !parent.contains("Evil"))
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func downloadKeepsToPerHostAndJobsLimits() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            var items: [Item] = []
            for index in 1...4 {
                server.serveMedia(
                    "/m/\(index).mp3", Self.media(60_000, seed: UInt8(index)),
                    fault: .trickle(bytes: 10_000, delay: .milliseconds(30)))
                items.append(Item(guid: "e\(index)", title: "Part \(index)", day: index, path: "/m/\(index).mp3"))
            }
            server.serveFeed("/feed.xml", Self.feed("One Host", items, server: server))
            try await subscribe(podfresh, server)
            let run = try await podfresh.run(["download", "1", "--latest", "4", "--jobs", "4", "--per-host", "2"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.files(in: folder).count == 4)
            // The feed itself was fetched by `add`, before: every request in flight at once was a media request.
            #expect(server.maxConcurrentRequests == 2, "at most --per-host downloads from one host at once")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func refreshDownloadFetchesNewEpisodesAfterTheMergeAndExecIsGivenTheFile() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/1.mp3", Self.media(30_000, seed: 1))
            server.serveMedia("/m/2.mp3", Self.media(40_000, seed: 2))
            let old = Item(guid: "e1", title: "Old", day: 1, path: "/m/1.mp3")
            server.serveFeed("/feed.xml", Self.feed("Fresh Cast", [old], server: server))
            #expect(try await podfresh.run(["add", "--no-fetch", server.url("/feed.xml").absoluteString]).status == 0)
            #expect(try await podfresh.run(["set", "1", "--download", "on"]).status == 0)
            let log = podfresh.directory.appendingPathComponent("hook.log")
            let hook = "printf '%s|%s\\n' \"$PODFRESH_EPISODE_TITLE\" \"$PODFRESH_FILE\" >> '\(log.path)'"

            let first = try await podfresh.run(["refresh", "--download", "--quiet", "--exec", hook])
            #expect(first.status == 0, "\(first.stderr)")
            let oldFile = folder.appendingPathComponent("Fresh Cast/2024-01-01 Old.mp3").path
            #expect(first.stdout.contains("downloaded Fresh Cast: Old → \(oldFile)"), "\(first.stdout)")
            #expect(try String(contentsOf: log, encoding: .utf8) == "Old|\(oldFile)\n")

            let new = Item(guid: "e2", title: "New", day: 2, path: "/m/2.mp3")
            server.serveFeed("/feed.xml", Self.feed("Fresh Cast", [new, old], server: server))
            let second = try await podfresh.run(["refresh", "--all", "--download", "--json", "--exec", hook])
            #expect(second.status == 0, "\(second.stderr)")
            let events = second.stdoutLines.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }.compactMap { $0["event"] as? String }
            let merged = try #require(events.firstIndex(of: "feed_refreshed"))
            let started = try #require(events.firstIndex(of: "download_started"))
            #expect(merged < started, "the download starts after the feed's merge")
            #expect(events.contains("download_completed") && events.last == "batch_completed")
            let newFile = folder.appendingPathComponent("Fresh Cast/2024-01-02 New.mp3").path
            #expect(try String(contentsOf: log, encoding: .utf8) == "Old|\(oldFile)\nNew|\(newFile)\n")
            #expect(server.requests(to: "/m/1.mp3").count == 1)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aStoppedRefreshDownloadStillRunsTheHooksOfWhatItAnnounced() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            for day in 1...2 {
                server.serveMedia(
                    "/m/\(day).mp3", Self.media(2_000_000, seed: UInt8(day)),
                    fault: .trickle(bytes: 20_000, delay: .milliseconds(20)))
            }
            let items = [
                Item(guid: "e2", title: "Two", day: 2, path: "/m/2.mp3"),
                Item(guid: "e1", title: "One", day: 1, path: "/m/1.mp3"),
            ]
            server.serveFeed("/feed.xml", Self.feed("Hooked Cast", items, server: server))
            let feed = server.url("/feed.xml").absoluteString
            #expect(try await podfresh.run(["add", "--no-fetch", "--backlog", "2", feed]).status == 0)
            #expect(try await podfresh.run(["set", "1", "--download", "on"]).status == 0)
            let log = podfresh.directory.appendingPathComponent("hook.log")
            let hook = "printf '%s|%s\\n' \"$PODFRESH_EPISODE_TITLE\" \"$PODFRESH_FILE\" >> '\(log.path)'"
            try await podfresh.withRunning([
                "refresh", "--download", "--download-jobs", "1", "--quiet", "--exec", hook,
            ]) { refresh in
                let deadline = ContinuousClock.now + .seconds(30)
                while Self.files(in: folder).isEmpty && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                refresh.send(SIGINT)
                #expect(await refresh.exit(within: .seconds(60)) == .exited(130), "\(refresh.standardError)")
            }
            let lines = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").sorted() ?? []
            #expect(lines == ["One|", "Two|"], "each announced episode's hook ran, without a file: \(lines)")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func helpShowsTheDefaultFolderAndUsageErrorsAreRefused() async throws {
        var (podfresh, _) = try podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_DOWNLOADS"] = nil
        podfresh.environment["XDG_DATA_HOME"] = "/srv/data"
        let help = try await podfresh.run(["download", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("/srv/data/podfresh/episodes"), "\(help.stdout)")
        // Option values are checked in process (ArgumentParsingTests); a FEED that matches nothing needs the store.
        #expect(try await podfresh.run(["download", "nothing-matches"]).status == 64)
    }

    @Test(.timeLimit(.minutes(2)))
    func watchDownloadDownloadsWhatEachCycleBringsAndStopsCleanly() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/1.mp3", Self.media(80_000, seed: 1))
            server.serveFeed(
                "/feed.xml",
                Self.feed("Watched Cast", [Item(guid: "e1", title: "One", day: 1, path: "/m/1.mp3")], server: server))
            #expect(try await podfresh.run(["add", "--no-fetch", server.url("/feed.xml").absoluteString]).status == 0)
            #expect(try await podfresh.run(["set", "1", "--download", "on"]).status == 0)
            let file = folder.appendingPathComponent("Watched Cast/2024-01-01 One.mp3")
            try await podfresh.withRunning(["watch", "--download", "--quiet"]) { watch in
                let deadline = ContinuousClock.now + .seconds(30)
                while !FileManager.default.fileExists(atPath: file.path) && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                watch.terminate()
                #expect(await watch.exit(within: .seconds(60)) == .exited(0), "\(watch.standardError)")
                #expect(
                    watch.standardOutput.contains("downloaded Watched Cast: One → \(file.path)"),
                    "\(watch.standardOutput)")
            }
            #expect(Self.same(Self.bytes(file), Self.media(80_000, seed: 1)))
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func twoWorkersOnPostgreSQLDownloadEachEpisodeOnce() async throws {
        try await withTestHTTPServer { server in
            var (worker, folder) = try podfresh()
            defer { worker.cleanUp() }
            worker.environment["PODFRESH_DATABASE"] = try await TestPostgres.shared().makeDatabase(prefix: "downloads")
            let podfresh = worker
            var urls: [String] = []
            for number in 1...6 {
                server.serveMedia(
                    "/m/\(number).mp3", Self.media(40_000, seed: UInt8(number)),
                    fault: .trickle(bytes: 10_000, delay: .milliseconds(10)))
                server.serveFeed(
                    "/feed\(number).xml",
                    Self.feed(
                        "Show \(number)", [Item(guid: "e", title: "Episode", day: number, path: "/m/\(number).mp3")],
                        server: server))
                urls.append(server.url("/feed\(number).xml").absoluteString)
            }
            #expect(try await podfresh.run(["add", "--no-fetch"] + urls).status == 0)
            for number in 1...6 {
                #expect(try await podfresh.run(["set", "\(number)", "--download", "on"]).status == 0)
            }
            let results = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
                for _ in 0..<2 {
                    group.addTask { try await podfresh.run(["refresh", "--download", "--quiet", "--jobs", "2"]) }
                }
                var results: [ProcessResult] = []
                for try await result in group { results.append(result) }
                return results
            }
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            for number in 1...6 {
                #expect(server.requests(to: "/m/\(number).mp3").count == 1, "episode \(number) downloaded once")
            }
            #expect(Self.files(in: folder).count == 6)
            let stored = try await podfresh.run(["status"])
            #expect(stored.stdout.contains("downloads on disk: 6 files"), "\(stored.stdout)")
        }
    }

    // MARK: - Retention and broken links

    /// The `download_started` events of a JSON Lines run, as episode ids in order.
    static func startedIDs(_ result: ProcessResult) throws -> [String] {
        try result.stdoutLines.compactMap { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object["event"] as? String == "download_started" ? object["id"] as? String : nil
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func keepAllDownloadsEveryEpisodeNotOnDiskNewestFirstUnlessLatestSaysOtherwise() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            let items = (1...5).map { day in
                Item(guid: "e\(day)", title: "Day \(day)", day: day, path: "/m/\(day).mp3")
            }
            for day in 1...5 { server.serveMedia("/m/\(day).mp3", Self.media(20_000, seed: UInt8(day))) }
            server.serveFeed("/feed.xml", Self.feed("All Cast", items, server: server))
            try await subscribe(podfresh, server)
            #expect(
                try await podfresh.run(["set", "1", "--download", "on", "--keep", "all", "--backlog", "all"]).status
                    == 0)

            // --latest says otherwise: the newest two only.
            let two = try await podfresh.run(["download", "--latest", "2", "--jobs", "1", "--json"])
            #expect(two.status == 0, "\(two.stderr)")
            let twoStarted = try Self.startedIDs(two)
            #expect(twoStarted == ["e5", "e4"], "\(two.stdout)")

            // Keep all: every episode the feed keeps that is not on disk yet, newest first.
            let rest = try await podfresh.run(["download", "--jobs", "1", "--json"])
            #expect(rest.status == 0, "\(rest.stderr)")
            let restStarted = try Self.startedIDs(rest)
            #expect(restStarted == ["e3", "e2", "e1"], "\(rest.stdout)")
            #expect(Self.files(in: folder).count == 5)
            for day in 1...5 { #expect(server.requests(to: "/m/\(day).mp3").count == 1) }

            // Keep 3 takes the newest three: all on disk already, and retention removed the two oldest.
            #expect(try await podfresh.run(["set", "1", "--keep", "3"]).status == 0)
            let kept = try await podfresh.run(["download", "--json"])
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(try Self.startedIDs(kept).isEmpty)
            #expect(Self.files(in: folder).count == 3)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aBrokenLinkWaitsLongerEachTimeIsReportedOnceInCronModeAndIsRetriedOnRequest() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try podfresh()
            defer { podfresh.cleanUp() }
            server.serveMedia("/m/good.mp3", Self.media(50_000, seed: 9))
            server.setRoute("/m/missing.mp3", TestResponse(status: 404, headers: [], body: Array("nope".utf8)))
            let items = [
                Item(guid: "good", title: "Good", day: 2, path: "/m/good.mp3"),
                Item(guid: "gone", title: "Missing", day: 1, path: "/m/missing.mp3"),
            ]
            server.serveFeed("/feed.xml", Self.feed("Broken Cast", items, server: server))
            try await subscribe(podfresh, server)
            #expect(try await podfresh.run(["set", "1", "--download", "on", "--backlog", "all"]).status == 0)

            // The first failure is reported (cron mode prints it), and the exit status says a download failed.
            let first = try await podfresh.run(["download", "--quiet"])
            #expect(first.status == 1)
            #expect(first.stderr.contains("Broken Cast: Missing: download failed:"), "\(first.stderr)")
            #expect(first.stderr.contains("HTTP 404"), "\(first.stderr)")
            #expect(first.stderr.contains("next try after"), "\(first.stderr)")
            #expect(Self.files(in: folder) == ["Broken Cast/2024-01-02 Good.mp3"])
            #expect(server.requests(to: "/m/missing.mp3").count == 1)
            var stored = try await episodes(podfresh)
            #expect(stored["gone"]?["download_failures"] as? Int == 1)
            let firstRetry = try #require(stored["gone"]?["download_retry_after"] as? String)
            #expect((stored["gone"]?["download_error"] as? String)?.contains("404") == true)
            #expect(stored["good"]?["download_failures"] as? Int == 0)
            #expect(stored["good"]?["download_retry_after"] is NSNull)

            // The next runs leave it alone while it waits: no request, nothing printed in cron mode, exit 0.
            let waiting = try await podfresh.run(["download", "--quiet"])
            #expect(waiting.status == 0, "\(waiting.stderr)")
            #expect(waiting.stdout.isEmpty && waiting.stderr.isEmpty, "\(waiting.stdout)\(waiting.stderr)")
            #expect(server.requests(to: "/m/missing.mp3").count == 1)
            let plain = try await podfresh.run(["download"])
            #expect(plain.status == 0)
            #expect(plain.stdout.contains("Broken Cast: Missing: waiting after"), "\(plain.stdout)")
            #expect(plain.stdout.contains("download --retry"), "\(plain.stdout)")
            #expect(plain.stdout.contains("1 waiting"), "\(plain.stdout)")
            let status = try await podfresh.run(["status"])
            #expect(status.stdout.contains("broken links: 1 waiting"), "\(status.stdout)")

            // --retry tries now. The same failure again is not said again in cron mode, and the wait grows.
            let again = try await podfresh.run(["download", "--quiet", "--retry"])
            #expect(again.status == 1, "the attempt failed")
            #expect(server.requests(to: "/m/missing.mp3").count == 2)
            #expect(again.stderr.isEmpty, "reported once, not on every run: \(again.stderr)")
            stored = try await episodes(podfresh)
            #expect(stored["gone"]?["download_failures"] as? Int == 2)
            let secondRetry = try #require(stored["gone"]?["download_retry_after"] as? String)
            let dates = ISO8601DateFormatter()
            let firstDate = try #require(dates.date(from: firstRetry))
            let secondDate = try #require(dates.date(from: secondRetry))
            #expect(secondDate.timeIntervalSince(firstDate) > 2 * 3600, "the second wait (4 h) is longer than 1 h")

            // A changed failure is reported again.
            server.setRoute("/m/missing.mp3", TestResponse(status: 410, headers: [], body: Array("gone".utf8)))
            let changed = try await podfresh.run(["download", "--quiet", "--retry"])
            #expect(changed.status == 1)
            #expect(changed.stderr.contains("HTTP 410"), "\(changed.stderr)")

            // JSON Lines say what the failure was, how often, and until when it waits.
            server.setRoute("/m/missing.mp3", TestResponse(status: 404, headers: [], body: Array("nope".utf8)))
            let json = try await podfresh.run(["download", "--json", "--retry"])
            let failed = try json.stdoutLines.compactMap { line -> [String: Any]? in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return object["event"] as? String == "download_failed" ? object : nil
            }
            #expect(failed.count == 1)
            #expect(failed.first?["permanent"] as? Bool == true)
            #expect(failed.first?["failures"] as? Int == 4)
            #expect(failed.first?["retry_after"] is String)
            #expect(failed.first?["repeated"] as? Bool == false, "404 after 410 is a change")

            // Fixed: the download completes and the record forgets the failures.
            server.serveMedia("/m/missing.mp3", Self.media(30_000, seed: 10))
            let fixed = try await podfresh.run(["download", "--retry"])
            #expect(fixed.status == 0, "\(fixed.stderr)")
            #expect(Self.files(in: folder).count == 2)
            stored = try await episodes(podfresh)
            #expect(stored["gone"]?["download_failures"] as? Int == 0)
            #expect(stored["gone"]?["download_retry_after"] is NSNull)
        }
    }
}
