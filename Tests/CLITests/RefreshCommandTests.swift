import FeedModels
import FeedStorage
import Foundation
import TestSupport
import Testing

/// End-to-end: the built binary against the demo feeds in `Feeds/` and temporary feed files.
@Suite(.serialized)
struct RefreshCommandTests {
    static let demoFeeds = ["Feeds/night-shift-radio.xml", "Feeds/garden-notes.atom", "Feeds/field-recordings.xml"]

    func write(_ text: String, to name: String, in podfresh: Podfresh) throws -> String {
        let path = podfresh.directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func demoFeedsRefreshAndASecondRunFindsNothingNew() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let added = try await podfresh.run(["add", "--no-fetch"] + Self.demoFeeds)
        #expect(added.status == 0, "\(added.stderr)")
        let first = try await podfresh.run(["refresh"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("The Lighthouse Keeper"))
        #expect(first.stdout.contains("Winter mulch, explained"))
        #expect(first.stdout.contains("Harbour at dusk"))
        // A new subscription announces its newest episode and stores the rest.
        #expect(first.stdoutLines.last?.contains("3 feeds: 3 updated; 3 new episodes") == true, "\(first.stdout)")

        let second = try await podfresh.run(["refresh", "--all"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdoutLines.last?.contains("0 new episodes") == true, "\(second.stdout)")

        let episodes = try await podfresh.run(["episodes", "--json", "--limit", "100"])
        let rows = try jsonLines(episodes.stdout)
        #expect(rows.count == 7)
        #expect(rows.first?["title"] as? String == "Winter mulch, explained", "newest first")
    }

    @Test(.timeLimit(.minutes(2)))
    func aBrokenFeedFailsAloneAndTheExitStatusSaysSo() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let broken = try write("<html><body><h1>Moved</h1></body></html>", to: "broken.xml", in: podfresh)
        #expect(
            try await podfresh.run(["add", "--no-fetch", "--backlog", "100", Self.demoFeeds[0], broken]).status == 0)
        let result = try await podfresh.run(["refresh", "--quiet"])
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("broken.xml"))
        #expect(result.stdoutLines.count == 3, "the good feed's episodes are still reported: \(result.stdout)")
        let list = try await podfresh.run(["list", "--json"])
        let feeds = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        let failing = try #require(feeds.first { ($0["url"] as? String)?.hasSuffix("broken.xml") == true })
        #expect(failing["failures"] as? Int == 1)
        #expect((failing["last_error"] as? String)?.isEmpty == false)
    }

    @Test(.timeLimit(.minutes(2)))
    func quietModeIsSilentWhenNothingHappened() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch", "--backlog", "100"] + Self.demoFeeds).status == 0)
        let first = try await podfresh.run(["refresh", "--quiet"])
        #expect(first.status == 0)
        #expect(first.stdoutLines.count == 7)
        let second = try await podfresh.run(["refresh", "--quiet", "--all"])
        #expect(second.status == 0)
        #expect(second.stdout.isEmpty)
        #expect(second.stderr.isEmpty)
    }

    @Test(.timeLimit(.minutes(2)))
    func usageErrorsExitWith64() async throws {
        // Parsing is covered in process (ArgumentParsingTests); this checks that the binary maps it to 64.
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["refresh", "--jobs", "0"]).status == 64)
    }

    @Test(.timeLimit(.minutes(2)))
    func aSecondRefreshOnTheSameDatabaseExitsWith75AndNamesTheHolder() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch", Self.demoFeeds[0]]).status == 0)
        let lock = try await RunLock.acquire(forDatabaseAt: podfresh.databasePath, wait: nil)
        let result = try await podfresh.run(["refresh"])
        #expect(result.status == 75)
        #expect(result.stderr.contains("with PID \(getpid()) started "), "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix("is using this database; try again later, or pass --wait to wait for it\n"),
            "\(result.stderr)")
        lock.release()
        #expect(try await podfresh.run(["refresh"]).status == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func theHookGetsEpisodeDataInItsEnvironmentAndHostileTitlesStayInert() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let marker = podfresh.directory.appendingPathComponent("pwned").path
        let feed = try write(
            """
            <rss version="2.0"><channel><title>Hostile $(touch \(marker))</title>
            <item><title>`touch \(marker)`; $(touch \(marker)) "; touch \(marker); "</title><guid>h1</guid>
            <enclosure url="https://h.example/a.mp3?x=1&amp;y=2" type="audio/mpeg" length="1"/></item>
            </channel></rss>
            """, to: "hostile.xml", in: podfresh)
        let out = podfresh.directory.appendingPathComponent("hook.out").path
        #expect(try await podfresh.run(["add", "--no-fetch", feed]).status == 0)
        let hook =
            "printf '%s|%s|%s\\n' \"$PODFRESH_EPISODE_TITLE\" \"$PODFRESH_ENCLOSURE_URL\" \"$PODFRESH_FEED_TITLE\" >> '\(out)'"
        let result = try await podfresh.run(["refresh", "--exec", hook])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try String(contentsOfFile: out, encoding: .utf8)
        #expect(written.contains("$(touch \(marker))"))
        #expect(written.contains("https://h.example/a.mp3?x=1&y=2"))
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test(.timeLimit(.minutes(2)))
    func aFailingHookIsReportedButDoesNotFailTheFeed() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch", Self.demoFeeds[1]]).status == 0)
        let result = try await podfresh.run(["refresh", "--exec", "exit 3"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("hook"), "\(result.stderr)")
        let episodes = try await podfresh.run(["episodes", "--json"])
        #expect(try jsonLines(episodes.stdout).count == 2)
    }

    @Test(.timeLimit(.minutes(2)))
    func opmlExportImportsIntoAnotherDatabaseAndDuplicatesAreCounted() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch"] + Self.demoFeeds).status == 0)
        let exported = try await podfresh.run(["export"])
        #expect(exported.status == 0)
        let opml = try write(exported.stdout, to: "subs.opml", in: podfresh)
        var other = try Podfresh()
        defer { other.cleanUp() }
        other.environment = [:]
        let imported = try await other.run(["import", opml])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported 3 feeds"))
        let again = try await other.run(["import", opml])
        #expect(again.stdout.contains("imported 0 feeds, skipped 3 already subscribed"), "\(again.stdout)")
    }

    @Test(.timeLimit(.minutes(2)))
    func parseJSONHasEveryDocumentedKey() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let result = try await podfresh.run(["parse", "--json", Self.demoFeeds[0]])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        for key in [
            "format", "title", "link", "description", "language", "image", "author", "explicit", "type",
            "new_feed_url", "podcast_guid", "locked", "complete", "categories", "next_page", "episodes", "warnings",
        ] {
            #expect(document.keys.contains(key), "missing \(key)")
        }
        let episodes = try #require(document["episodes"] as? [[String: Any]])
        #expect(episodes.count == 3)
        let first = try #require(episodes.first)
        for key in [
            "id", "guid", "title", "link", "description", "summary", "published", "duration", "enclosures",
            "episode", "season", "episode_type", "explicit", "image", "transcripts", "chapters", "persons",
        ] {
            #expect(first.keys.contains(key), "missing episode key \(key)")
        }
        #expect(first["duration"] as? Int == 3130)
        let enclosure = try #require((first["enclosures"] as? [[String: Any]])?.first)
        #expect(enclosure["url"] as? String == "https://night-shift.example.org/audio/003.mp3?source=rss&format=mp3")
    }
}

/// End-to-end over HTTP: the built binary against the loopback test server.
@Suite(.serialized)
struct RefreshOverHTTPTests {
    static func feed(_ title: String, _ items: [String]) -> String {
        let entries = items.map {
            "<item><title>\($0)</title><guid>\($0)</guid><enclosure url=\"https://cdn.example.com/\($0).mp3\" type=\"audio/mpeg\"/></item>"
        }
        return "<rss version=\"2.0\"><channel><title>\(title)</title>\(entries.joined())</channel></rss>"
    }

    @Test(.timeLimit(.minutes(2)))
    func addRefreshTwiceGainMoveAndFail() async throws {
        try await withTestHTTPServer { server in
            let podfresh = try Podfresh()
            defer { podfresh.cleanUp() }
            server.serveFeed("/one.xml", Self.feed("One", ["a1"]))
            server.serveFeed("/two.xml", Self.feed("Two", ["b1"]))
            server.setRoute(
                "/html",
                TestResponse(
                    status: 200, headers: [("Content-Type", "text/html")], text: "<html><body>no</body></html>"))

            // add fetches once, names the feed, and refuses what is not a feed
            let added = try await podfresh.run([
                "add", server.url("/one.xml").absoluteString, server.url("/two.xml").absoluteString,
                server.url("/html").absoluteString,
            ])
            #expect(added.status == 1)
            #expect(added.stderr.contains("not subscribed to \(server.url("/html").absoluteString)"), "\(added.stderr)")
            let list = try await podfresh.run(["list", "--json"])
            let feeds = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            #expect(feeds.compactMap { $0["title"] as? String }.sorted() == ["One", "Two"])

            // a second run is all 304
            let before = server.requests.count
            let second = try await podfresh.run(["refresh", "--all", "--json"])
            #expect(second.status == 0)
            let events = second.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(
                events.filter { $0["event"] as? String == "feed_refreshed" }.allSatisfy {
                    $0["status"] as? String == "not_modified"
                })
            #expect(events.last?["new_episodes"] as? Int == 0)
            #expect(server.requests.dropFirst(before).allSatisfy { $0.headers["if-none-match"] != nil })

            // a feed gains an episode; only that feed is named on the command line
            server.serveFeed("/one.xml", Self.feed("One", ["a2", "a1"]))
            let gained = try await podfresh.run(["refresh", "--quiet", "one"])
            #expect(gained.status == 0)
            #expect(gained.stdoutLines.count == 1 && gained.stdout.contains("a2"), "\(gained.stdout)")
            let newOnly = try await podfresh.run(["episodes", "--new", "--json"])
            #expect(newOnly.stdoutLines.count == 1)

            // the feed moves permanently; then its new home fails
            server.setRoute("/two.xml", .redirect(301, to: "/two-new.xml"))
            server.serveFeed("/two-new.xml", Self.feed("Two", ["b2", "b1"]))
            let moved = try await podfresh.run(["refresh", "--all"])
            #expect(moved.status == 0)
            #expect(moved.stdout.contains("two-new.xml"), "\(moved.stdout)")
            server.setRoute("/two-new.xml", TestResponse(status: 500, text: "down"))
            let failed = try await podfresh.run(["refresh", "--all", "--quiet"])
            #expect(failed.status == 1)
            #expect(failed.stderr.contains("HTTP 500"))
            #expect(failed.stdout.isEmpty)
            let status = try await podfresh.run(["status", "--json"])
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
            #expect((summary["failing"] as? [Any])?.count == 1)
            #expect((summary["moved"] as? [Any])?.count == 1)
            let episodes = try await podfresh.run(["episodes", "--json", "--limit", "50"])
            #expect(episodes.stdoutLines.count == 4, "nothing was lost")
        }
    }
}
