import Foundation
import TestSupport
import Testing

/// End-to-end: `podfresh set --new-feeds …` through the built binary: what every subscription made afterwards starts
/// with, by `add` or `import`; shown by `status`, forgotten with `--reset`, carried by `migrate`.
@Suite(.serialized)
struct NewFeedSettingsCommandTests {
    typealias Item = DownloadCommandTests.Item

    static func serve(_ server: TestHTTPServer, path: String, title: String, days: ClosedRange<Int>) {
        let items = days.reversed().map {
            Item(guid: "\(path)-\($0)", title: "Day \($0)", day: $0, path: "\(path)/m/\($0).mp3")
        }
        for day in days {
            server.serveMedia("\(path)/m/\(day).mp3", DownloadCommandTests.media(4_000, seed: UInt8(day)))
        }
        server.serveFeed("\(path)/feed.xml", DownloadCommandTests.feed(title, items, server: server))
    }

    func feeds(_ podfresh: Podfresh) async throws -> [[String: Any]] {
        let listed = try await podfresh.run(["list", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    }

    @Test(.timeLimit(.minutes(2)))
    func theyAreSetShownByStatusAndForgotten() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let none = try await podfresh.run(["set", "--new-feeds"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.hasPrefix("new feeds start with the defaults: downloads off"), "\(none.stdout)")
        #expect(!(try await podfresh.run(["status"])).stdout.contains("new feeds:"))

        let set = try await podfresh.run([
            "set", "--new-feeds", "--download", "on", "--keep", "3", "--exclude", "trailer", "--extras", "on",
            "--name-template", "{feed}/{title}.{ext}", "--tags", "merge",
        ])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            set.stdout.hasPrefix(
                "new feeds start with: downloads on, keep newest 3, directory (default), name template {feed}/{title}.{ext}, delete played off, filters exclude \"trailer\""
            ), "\(set.stdout)")
        #expect(set.stdout.contains("downloading the episodes that arrive after it is added and the newest 1 before"))

        let status = try await podfresh.run(["status"])
        #expect(status.stdout.contains("new feeds: downloads on, keep newest 3"), "\(status.stdout)")
        let json = try await podfresh.run(["status", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let stored = try #require(object["new_feed_settings"] as? [String: Any], "\(json.stdout)")
        #expect(
            stored["downloads"] as? Bool == true && stored["keep"] as? Int == 3 && stored["extras"] as? Bool == true)
        #expect(stored["name_template"] as? String == "{feed}/{title}.{ext}" && stored["download_backlog"] as? Int == 1)
        #expect(stored["tags"] as? String == "merge", "\(json.stdout)")
        #expect(status.stdout.contains("tags merge"), "\(status.stdout)")

        let reset = try await podfresh.run(["set", "--new-feeds", "--reset"])
        #expect(
            reset.status == 0 && reset.stdout.hasPrefix("new feeds start with the defaults again"), "\(reset.stdout)")
        #expect(!(try await podfresh.run(["status"])).stdout.contains("new feeds:"))
        let after = try await podfresh.run(["status", "--json"])
        #expect(after.stdout.contains(#""new_feed_settings":null"#), "\(after.stdout)")
    }

    @Test(.timeLimit(.minutes(1)))
    func aFeedAndNewFeedsTogetherOrResetAloneAreUsageErrors() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let neither = try await podfresh.run(["set", "--download", "on"])
        #expect(neither.status == 64 && neither.stderr.contains("--new-feeds"), "\(neither.stderr)")
        let both = try await podfresh.run(["set", "1", "--new-feeds", "--download", "on"])
        #expect(both.status == 64 && both.stderr.contains("leave out \"1\""), "\(both.stderr)")
        let resetAlone = try await podfresh.run(["set", "1", "--reset"])
        #expect(resetAlone.status == 64 && resetAlone.stderr.contains("--reset goes with --new-feeds"))
        let resetAndMore = try await podfresh.run(["set", "--new-feeds", "--reset", "--keep", "2"])
        #expect(resetAndMore.status == 64, "\(resetAndMore.stderr)")
        let badPattern = try await podfresh.run(["set", "--new-feeds", "--exclude", "(trailer"])
        #expect(badPattern.status == 64 && badPattern.stderr.contains("is not a regular expression"))
        #expect(!(try await podfresh.run(["status"])).stdout.contains("new feeds:"), "nothing was stored")
    }

    @Test(.timeLimit(.minutes(3)))
    func feedsAddedAndImportedAfterwardsStartWithThemAndDownloadTheirNewestEpisode() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            Self.serve(server, path: "/old", title: "Old Show", days: 1...3)
            Self.serve(server, path: "/added", title: "Added Show", days: 1...3)
            Self.serve(server, path: "/imported", title: "Imported Show", days: 1...4)
            #expect(try await podfresh.run(["add", server.url("/old/feed.xml").absoluteString]).status == 0)

            let set = try await podfresh.run(["set", "--new-feeds", "--download", "on", "--keep", "2", "--tags", "on"])
            #expect(set.status == 0, "\(set.stderr)")
            let add = try await podfresh.run(["add", server.url("/added/feed.xml").absoluteString])
            #expect(add.status == 0, "\(add.stderr)")
            let opml = podfresh.directory.appendingPathComponent("phone.opml")
            try Data(
                """
                <?xml version="1.0"?><opml version="2.0"><head><title>phone</title></head><body>
                <outline type="rss" text="Imported Show" xmlUrl="\(server.url("/imported/feed.xml").absoluteString)"/>
                </body></opml>
                """.utf8
            ).write(to: opml)
            let imported = try await podfresh.run(["import", opml.path])
            #expect(imported.status == 0, "\(imported.stderr)")

            let list = try await feeds(podfresh)
            let byTitle = Dictionary(list.compactMap { f in (f["url"] as? String).map { ($0, f) } }) { a, _ in a }
            let old = try #require(byTitle[server.url("/old/feed.xml").absoluteString])
            let added = try #require(byTitle[server.url("/added/feed.xml").absoluteString])
            let fromOPML = try #require(byTitle[server.url("/imported/feed.xml").absoluteString])
            #expect(old["downloads"] as? Bool == false, "a feed from before keeps its own settings")
            #expect(old["tags"] as? String == "off")
            for feed in [added, fromOPML] {
                #expect(feed["downloads"] as? Bool == true && feed["keep"] as? Int == 2, "\(feed)")
                #expect(feed["tags"] as? String == "on", "\(feed)")
                #expect(feed["downloads_since"] is String && feed["download_backlog"] as? Int == 1, "\(feed)")
            }

            // The cron line: each new feed's newest episode, none of its back catalogue, nothing of the old feed.
            let refresh = try await podfresh.run(["refresh", "--all", "--quiet", "--download"])
            #expect(refresh.status == 0, "\(refresh.stderr)")
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Added Show/2024-01-03 Day 3.mp3", "Imported Show/2024-01-04 Day 4.mp3",
                ], "\(refresh.stdout)")
            #expect(server.requests(to: "/old/m/3.mp3").isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func migrateCarriesThemAndSubscriptionsOnPostgreSQLStartWithThem() async throws {
        try await withTestHTTPServer { server in
            let podfresh = try Podfresh()
            defer { podfresh.cleanUp() }
            Self.serve(server, path: "/a", title: "A Show", days: 1...2)
            #expect(
                try await podfresh.run(["add", "--no-fetch", server.url("/a/feed.xml").absoluteString]).status == 0)
            let set = try await podfresh.run([
                "set", "--new-feeds", "--download", "on", "--keep", "4", "--delete-played", "on", "--min-duration",
                "10m", "--backlog", "2",
            ])
            #expect(set.status == 0, "\(set.stderr)")
            let cluster = try await TestPostgres.shared()
            let url = try await cluster.makeDatabase(prefix: "cli_new_feeds")

            let migrated = try await podfresh.run(["migrate", "--to", url])
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect(
                migrated.stdoutLines.contains(
                    "  new feeds:     the settings new subscriptions start with (set --new-feeds)"),
                "\(migrated.stdout)")
            let database = String(url.split(separator: "/").last?.prefix { $0 != "?" } ?? "")
            #expect(
                try await cluster.psql(
                    database: database,
                    "SELECT downloads_enabled, keep_newest, delete_played, download_backlog FROM new_feed_settings")
                    == "t|4|t|2")

            // On the new database a subscription made there starts with them; the copied one kept its own.
            var onPostgres = podfresh
            onPostgres.environment["PODFRESH_DATABASE"] = url
            let status = try await onPostgres.run(["status"])
            #expect(
                status.stdout.contains("new feeds: downloads on, keep newest 4"), "\(status.stdout)\(status.stderr)")
            Self.serve(server, path: "/b", title: "B Show", days: 1...2)
            let add = try await onPostgres.run(["add", "--no-fetch", server.url("/b/feed.xml").absoluteString])
            #expect(add.status == 0, "\(add.stderr)")
            let list = try await feeds(onPostgres)
            let b = try #require(list.first { $0["url"] as? String == server.url("/b/feed.xml").absoluteString })
            #expect(b["downloads"] as? Bool == true && b["keep"] as? Int == 4 && b["delete_played"] as? Bool == true)
            #expect(b["download_backlog"] as? Int == 2, "\(b)")
            #expect((b["filters"] as? [String: Any])?["min_duration_seconds"] as? Int == 600, "\(b)")
            let a = try #require(list.first { $0["url"] as? String == server.url("/a/feed.xml").absoluteString })
            #expect(a["downloads"] as? Bool == false, "\(a)")

            // Migrated again with --merge into a target that has its own: the target keeps them.
            let again = try await podfresh.run(["migrate", "--to", url, "--merge", "--json"])
            #expect(
                again.status == 0 && again.stdout.contains(#""new_feed_settings":"target_has_them""#), "\(again.stdout)"
            )
        }
    }
}
