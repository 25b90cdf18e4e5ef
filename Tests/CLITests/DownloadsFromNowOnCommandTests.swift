import Foundation
import TestSupport
import Testing

/// End-to-end: turning a feed's downloads on downloads what arrives from then on and the newest episode already
/// there; older ones only when asked (`download FEED --latest N`, `set FEED --backlog N|all`).
@Suite(.serialized)
struct DownloadsFromNowOnCommandTests {
    typealias Item = DownloadCommandTests.Item

    static func items(_ days: ClosedRange<Int>) -> [Item] {
        days.reversed().map { Item(guid: "e\($0)", title: "Day \($0)", day: $0, path: "/m/\($0).mp3") }
    }

    static func serve(_ server: TestHTTPServer, days: ClosedRange<Int>) {
        for day in days { server.serveMedia("/m/\(day).mp3", DownloadCommandTests.media(8_000, seed: UInt8(day))) }
        server.serveFeed("/feed.xml", DownloadCommandTests.feed("Now Cast", items(days), server: server))
    }

    @Test(.timeLimit(.minutes(3)))
    func turningDownloadsOnTakesTheNewestAndWhatArrivesAndOlderOnesOnlyWhenAsked() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            Self.serve(server, days: 1...3)
            #expect(try await podfresh.run(["add", server.url("/feed.xml").absoluteString]).status == 0)
            let set = try await podfresh.run(["set", "1", "--download", "on"])
            #expect(set.status == 0, "\(set.stderr)")
            #expect(set.stdout.contains("downloading the episodes since "), "\(set.stdout)")
            #expect(set.stdout.hasSuffix(" and the newest 1 before\n"), "\(set.stdout)")

            // The newest episode at that moment, and a word about the older ones and how to get them.
            let first = try await podfresh.run(["download"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(DownloadCommandTests.files(in: folder) == ["Now Cast/2024-01-03 Day 3.mp3"], "\(first.stdout)")
            #expect(
                first.stdout.contains("older      Now Cast: 2 earlier episodes not downloaded (downloads on since "),
                "\(first.stdout)")
            #expect(first.stdout.contains("`podfresh download 1 --latest N`"), "\(first.stdout)")
            let json = try await podfresh.run(["download", "--json"])
            let older = json.stdoutLines.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }.first { $0["event"] as? String == "download_older_left_out" }
            #expect(older?["count"] as? Int == 2 && older?["downloads_since"] is String, "\(json.stdout)")
            let quiet = try await podfresh.run(["download", "--quiet"])
            #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdout)")

            // A new episode arrives: the documented cron line downloads it, and nothing older.
            Self.serve(server, days: 1...4)
            let refresh = try await podfresh.run(["refresh", "--all", "--quiet", "--download"])
            #expect(refresh.status == 0, "\(refresh.stderr)")
            let cron = try await podfresh.run(["download", "--quiet"])
            #expect(cron.status == 0 && cron.stdout.isEmpty, "\(cron.stdout)\(cron.stderr)")
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Now Cast/2024-01-03 Day 3.mp3", "Now Cast/2024-01-04 Day 4.mp3",
                ])
            for day in 1...2 { #expect(server.requests(to: "/m/\(day).mp3").isEmpty) }

            // Asked for: --latest N takes the newest N whenever they arrived; --backlog all every one.
            let latest = try await podfresh.run(["download", "1", "--latest", "3"])
            #expect(latest.status == 0, "\(latest.stderr)")
            #expect(DownloadCommandTests.files(in: folder).contains("Now Cast/2024-01-02 Day 2.mp3"))
            #expect(server.requests(to: "/m/1.mp3").isEmpty)
            let all = try await podfresh.run(["set", "1", "--backlog", "all"])
            #expect(all.stdout.hasSuffix("downloading every episode\n"), "\(all.stdout)")
            #expect(try await podfresh.run(["download", "--quiet"]).status == 0)
            #expect(DownloadCommandTests.files(in: folder).count == 4)
            let list = try await podfresh.run(["list", "1"])
            #expect(list.stdout.contains("downloading:  every episode"), "\(list.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func theDocumentedCronLineOnAFreshDatabaseDownloadsNoBackCatalogue() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            Self.serve(server, days: 1...5)
            // Subscribed and turned on before the feed was ever checked (as after `import`).
            #expect(try await podfresh.run(["add", "--no-fetch", server.url("/feed.xml").absoluteString]).status == 0)
            #expect(try await podfresh.run(["set", "1", "--download", "on", "--backlog", "2"]).status == 0)
            for _ in 1...2 {
                let refresh = try await podfresh.run(["refresh", "--quiet", "--download"])
                #expect(refresh.status == 0, "\(refresh.stderr)")
                let download = try await podfresh.run(["download", "--quiet"])
                #expect(download.status == 0, "\(download.stderr)")
            }
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Now Cast/2024-01-04 Day 4.mp3", "Now Cast/2024-01-05 Day 5.mp3",
                ], "the newest two (--backlog 2), not the back catalogue")
            let listed = try await podfresh.run(["list", "--json"])
            let feeds = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(feeds.first?["download_backlog"] as? Int == 2)
            #expect(feeds.first?["downloads_since"] is String)
        }
    }
}
