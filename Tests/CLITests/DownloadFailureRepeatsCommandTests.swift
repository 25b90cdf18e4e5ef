import Foundation
import TestSupport
import Testing

/// End-to-end: a download whose host does not answer waits as a failing feed does, and cron mode says it once, again
/// when its cause changes, and the file when it recovers.
@Suite(.serialized)
struct DownloadFailureRepeatsCommandTests {
    typealias Item = DownloadCommandTests.Item

    @Test(.timeLimit(.minutes(3)))
    func aHostThatDoesNotAnswerWaitsAndCronModeSaysItOnceThenItsRecovery() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            let dead = "http://127.0.0.1:\(closedLoopbackPort())/m/1.mp3"
            func feed(enclosure: String) -> String {
                """
                <?xml version="1.0"?><rss version="2.0"><channel><title>Dead Host Cast</title>
                <item><title>One</title><guid>e1</guid><pubDate>01 Jan 2024 10:00:00 GMT</pubDate>
                <enclosure url="\(enclosure)" type="audio/mpeg" length="0"/></item>
                </channel></rss>
                """
            }
            server.serveFeed("/feed.xml", feed(enclosure: dead))
            #expect(try await podfresh.run(["add", server.url("/feed.xml").absoluteString]).status == 0)
            #expect(try await podfresh.run(["set", "1", "--download", "on"]).status == 0)

            // The first failure is said, with when it is tried again.
            let first = try await podfresh.run(["download", "--quiet"])
            #expect(first.status == 1)
            #expect(first.stderr.contains("Dead Host Cast: One: download failed:"), "\(first.stderr)")
            #expect(first.stderr.contains("failed once: next try after"), "\(first.stderr)")
            #expect(!first.stderr.contains("broken link"), "it may pass by itself: \(first.stderr)")

            // Cron's next runs: nothing tried, nothing said, exit 0.
            let waiting = try await podfresh.run(["download", "--quiet"])
            #expect(waiting.status == 0, "\(waiting.stderr)")
            #expect(waiting.stdout.isEmpty && waiting.stderr.isEmpty, "\(waiting.stdout)\(waiting.stderr)")
            let plain = try await podfresh.run(["download"])
            #expect(plain.stdout.contains("One: waiting after a failure (failed once"), "\(plain.stdout)")
            let status = try await podfresh.run(["status"])
            #expect(status.stdout.contains("failed downloads: 1 waiting"), "\(status.stdout)")

            // Tried again, the same failure is not said again; the wait doubles.
            let again = try await podfresh.run(["download", "--quiet", "--retry"])
            #expect(again.status == 1, "the attempt failed")
            #expect(again.stderr.isEmpty && again.stdout.isEmpty, "said once: \(again.stderr)")
            let episodes = try await DownloadCommandTests().episodes(podfresh)
            #expect(episodes["e1"]?["download_failures"] as? Int == 2)

            // The host answers again: the file is said as it arrives.
            server.serveMedia("/m/1.mp3", DownloadCommandTests.media(9_000, seed: 3))
            server.serveFeed("/feed.xml", feed(enclosure: server.url("/m/1.mp3").absoluteString))
            #expect(try await podfresh.run(["refresh", "--all", "--quiet"]).status == 0)
            let recovered = try await podfresh.run(["download", "--quiet", "--retry"])
            #expect(recovered.status == 0, "\(recovered.stderr)")
            #expect(recovered.stdout.contains("downloaded Dead Host Cast: One"), "\(recovered.stdout)")
            #expect(DownloadCommandTests.files(in: folder) == ["Dead Host Cast/2024-01-01 One.mp3"])
        }
    }
}
