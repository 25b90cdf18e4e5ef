import FeedParsing
import FeedStorage
import TestSupport
import Foundation
import Testing

/// Reads a pipe in the background, so tests can wait for a line to appear.
final class PipeReader: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var data = Data()

    init(_ pipe: Pipe) {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            guard let self else { return }
            if chunk.isEmpty {
                handle.readabilityHandler = nil
            } else {
                lock.withLock { data.append(chunk) }
            }
        }
    }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

    /// Waits until `predicate` holds for the text so far, at most `timeout` seconds.
    func wait(timeout: Double, until predicate: (String) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if predicate(text) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return predicate(text)
    }
}

@Suite(.serialized)
struct WatchCommandTests {
    func feed(items: [String]) -> String {
        let entries = items.map { "<item><title>\($0)</title><guid>\($0)</guid><pubDate>Tue, 12 Nov 2024 05:00:00 GMT</pubDate></item>" }
        return "<rss version=\"2.0\"><channel><title>Watched</title>\(entries.joined())</channel></rss>"
    }

    @Test(.timeLimit(.minutes(2)))
    func watchReportsANewEpisodeAndStopsCleanlyOnSIGTERM() async throws {
        let podfresh = try Podfresh()
        let server = try await TestHTTPServer.start()
        defer {
            podfresh.cleanUp()
            Task { try? await server.shutdown() }
        }
        server.serveFeed("/watched.xml", feed(items: ["first"]))
        #expect(try await podfresh.run(["add", "--no-fetch", server.url("/watched.xml").absoluteString]).status == 0)

        let out = Pipe()
        let err = Pipe()
        let process = try podfresh.start(["watch", "--interval", "1s"], stdout: out, stderr: err)
        let stdout = PipeReader(out)
        let stderr = PipeReader(err)
        defer { if process.isRunning { process.terminate() } }

        #expect(await stdout.wait(timeout: 30) { $0.contains("first") }, "first cycle: \(stdout.text) \(stderr.text)")
        // The feed gains an episode.
        server.serveFeed("/watched.xml", feed(items: ["second", "first"]), lastModified: "Wed, 13 Nov 2024 05:00:00 GMT")
        #expect(await stdout.wait(timeout: 30) { $0.contains("second") }, "new episode: \(stdout.text) \(stderr.text)")

        // A second refresh on the same database is refused while watch holds the lock.
        let concurrent = try await podfresh.run(["refresh"])
        #expect(concurrent.status == 75)

        process.terminate()  // SIGTERM
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning, "watch must exit within a few seconds of SIGTERM")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(stderr.text)")
        #expect(process.terminationReason == .exit)

        let store = try FeedStore(path: podfresh.databasePath)
        let titles = try store.episodes(EpisodeQuery()).compactMap(\.episode.title)
        #expect(Set(titles) == ["first", "second"])
        #expect(titles.filter { $0 == "second" }.count == 1, "the episode is stored once")
        #expect(server.requests(to: "/watched.xml").count >= 2)
        #expect(try store.integrityCheck() == "ok")
    }
}
