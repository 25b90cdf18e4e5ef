import Foundation
import TestSupport
import Testing

/// End-to-end: `episodes` and `episodes --json` list dated episodes first, newest first, and the undated ones after
/// them (the latest first seen first, those seen together in feed order), on SQLite and on PostgreSQL: a feed of
/// undated items, first seen today, no longer hides every other feed's newest episodes.
@Suite(.serialized)
struct UndatedOrderCommandTests {
    static let dated = """
        <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Dated</title>
        <item><title>Dated new</title><guid>d2</guid><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate></item>
        <item><title>Dated old</title><guid>d1</guid><pubDate>Mon, 01 Jan 2024 10:00:00 GMT</pubDate></item>
        </channel></rss>
        """
    static let undated = """
        <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Undated</title>
        <item><title>Undated top</title><guid>u1</guid></item>
        <item><title>Undated middle</title><guid>u2</guid></item>
        <item><title>Undated bottom</title><guid>u3</guid></item>
        </channel></rss>
        """

    enum Store: CaseIterable { case sqlite, postgres }

    @Test(.timeLimit(.minutes(2)), arguments: Store.allCases)
    func undatedEpisodesComeAfterDatedOnes(store: Store) async throws {
        try await withTestHTTPServer { server in
            var podfresh = try Podfresh()
            defer { podfresh.cleanUp() }
            if store == .postgres {
                podfresh.environment["PODFRESH_DATABASE"] = try await TestPostgres.shared().makeDatabase(
                    prefix: "undated")
            }
            server.serveFeed("/undated.xml", Self.undated)
            server.serveFeed("/dated.xml", Self.dated)
            for path in ["/undated.xml", "/dated.xml"] {
                let added = try await podfresh.run(["add", "--backlog", "10", server.url(path).absoluteString])
                #expect(added.status == 0, "\(added.stderr)")
            }

            let json = EpisodeActionCommandTests.jsonLines(try await podfresh.run(["episodes", "--json"]).stdout)
            #expect(json.map { $0["id"] as? String } == ["d2", "d1", "u1", "u2", "u3"], "\(json)")

            let text = try await podfresh.run(["episodes", "--wide"])
            #expect(text.status == 0, "\(text.stderr)")
            let titles = ["Dated new", "Dated old", "Undated top", "Undated middle", "Undated bottom"]
            let lines = titles.map { title in text.stdoutLines.firstIndex { $0.contains(": \(title)") } }
            #expect(lines == Array(0..<5).map(Optional.some), "\(text.stdout)")

            // The two newest are the dated ones, whatever was first seen last.
            let newest = try await podfresh.run(["episodes", "--json", "--limit", "2"])
            #expect(EpisodeActionCommandTests.jsonLines(newest.stdout).map { $0["id"] as? String } == ["d2", "d1"])
        }
    }
}
