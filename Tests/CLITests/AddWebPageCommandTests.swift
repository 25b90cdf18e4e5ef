import Foundation
import TestSupport
import Testing

/// End-to-end: `add` of a web page subscribes to the feed it links with `<link rel="alternate">`, and says so; a page
/// that links several lists them and subscribes to none.
@Suite(.serialized)
struct AddWebPageCommandTests {
    static func page(_ links: [String]) -> TestResponse {
        TestResponse(
            headers: [("Content-Type", "text/html; charset=utf-8")],
            text: "<!DOCTYPE html><html><head><title>The Show</title>\n" + links.joined(separator: "\n")
                + "\n</head><body><h1>The Show</h1></body></html>")
    }

    @Test(.timeLimit(.minutes(2)))
    func aPageLinkingOneFeedSubscribesToItAndSaysSo() async throws {
        try await withTestHTTPServer { server in
            let podfresh = try Podfresh()
            defer { podfresh.cleanUp() }
            let item = DownloadCommandTests.Item(guid: "e1", title: "One", day: 1, path: "/m/1.mp3")
            server.serveFeed("/feeds/show.xml", DownloadCommandTests.feed("Linked Show", [item], server: server))
            server.setRoute(
                "/show/", Self.page([#"<link rel="alternate" type="application/rss+xml" href="../feeds/show.xml">"#]))
            let add = try await podfresh.run(["add", server.url("/show/").absoluteString])
            #expect(add.status == 0, "\(add.stderr)")
            #expect(
                add.stdout.contains(
                    "\(server.url("/show/").absoluteString) is a web page; subscribing to the feed it links: "
                        + server.url("/feeds/show.xml").absoluteString), "\(add.stdout)")
            #expect(add.stderr.isEmpty, "the page is not checked as a feed, and fails nothing: \(add.stderr)")
            #expect(!add.stdout.contains("failed"), "\(add.stdout)")
            let listed = try await podfresh.run(["list", "--json"])
            let feeds = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(feeds.map { $0["url"] as? String } == [server.url("/feeds/show.xml").absoluteString])
            #expect(feeds.first?["title"] as? String == "Linked Show")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aPageLinkingSeveralFeedsListsThemAndSubscribesToNone() async throws {
        try await withTestHTTPServer { server in
            let podfresh = try Podfresh()
            defer { podfresh.cleanUp() }
            server.setRoute(
                "/show.html",
                Self.page([
                    #"<link rel="alternate" type="application/rss+xml" title="MP3" href="/mp3.xml">"#,
                    #"<link rel="alternate" type="application/atom+xml" title="Video" href="/video.atom">"#,
                ]))
            let add = try await podfresh.run(["add", server.url("/show.html").absoluteString])
            #expect(add.status == 1)
            #expect(add.stderr.contains("it is a web page that links 2 feeds"), "\(add.stderr)")
            #expect(!add.stderr.contains("not a usable feed"), "\(add.stderr)")
            #expect(add.stderr.contains("  podfresh add \(server.url("/mp3.xml").absoluteString)    # MP3"))
            #expect(add.stderr.contains("  podfresh add \(server.url("/video.atom").absoluteString)    # Video"))
            #expect(
                try await podfresh.run(["list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "[]")

            // A page that links none says why it was not subscribed, as before.
            server.setRoute("/plain.html", Self.page([]))
            let plain = try await podfresh.run(["add", server.url("/plain.html").absoluteString])
            #expect(plain.status == 1)
            #expect(plain.stderr.contains("not subscribed to"), "\(plain.stderr)")
        }
    }
}
