import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import TestSupport
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
        let entries = items.map {
            "<item><title>\($0)</title><guid>\($0)</guid><pubDate>Tue, 12 Nov 2024 05:00:00 GMT</pubDate></item>"
        }
        return "<rss version=\"2.0\"><channel><title>Watched</title>\(entries.joined())</channel></rss>"
    }

    @Test(.timeLimit(.minutes(2)))
    func watchReportsANewEpisodeAndStopsCleanlyOnSIGTERM() async throws {
        let podfresh = try Podfresh()
        try await withTestHTTPServer { server in
            defer { podfresh.cleanUp() }
            server.serveFeed("/watched.xml", feed(items: ["first"]))
            #expect(
                try await podfresh.run(["add", "--no-fetch", server.url("/watched.xml").absoluteString]).status == 0)

            let out = Pipe()
            let err = Pipe()
            let process = try podfresh.start(["watch", "--interval", "1s"], stdout: out, stderr: err)
            let stdout = PipeReader(out)
            let stderr = PipeReader(err)
            defer { if process.isRunning { process.terminate() } }

            #expect(
                await stdout.wait(timeout: 30) { $0.contains("first") }, "first cycle: \(stdout.text) \(stderr.text)")
            // The feed gains an episode.
            server.serveFeed(
                "/watched.xml", feed(items: ["second", "first"]), lastModified: "Wed, 13 Nov 2024 05:00:00 GMT")
            #expect(
                await stdout.wait(timeout: 30) { $0.contains("second") }, "new episode: \(stdout.text) \(stderr.text)")

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
            let titles = try await store.episodes(EpisodeQuery()).compactMap(\.episode.title)
            #expect(Set(titles) == ["first", "second"])
            #expect(titles.filter { $0 == "second" }.count == 1, "the episode is stored once")
            #expect(server.requests(to: "/watched.xml").count >= 2)
            #expect(try await store.integrityCheck() == "ok")
        }
    }

    /// Starts `watch` on one subscribed feed whose answer the server holds back for `delay`, and returns once the
    /// fetch is in flight.
    private func watchWithAFetchInFlight(
        _ podfresh: Podfresh, _ server: TestHTTPServer, delay: Duration
    ) async throws -> (process: Process, stderr: PipeReader) {
        server.setRoute("/slow.xml", TestResponse(status: 200, body: Array(feed(items: ["slow"]).utf8), delay: delay))
        #expect(try await podfresh.run(["add", "--no-fetch", server.url("/slow.xml").absoluteString]).status == 0)
        let err = Pipe()
        let process = try podfresh.start(["watch", "--interval", "1s"], stderr: err)
        let stderr = PipeReader(err)
        let deadline = Date().addingTimeInterval(30)
        while server.requests.isEmpty && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.requests.count == 1, "the fetch is in flight: \(stderr.text)")
        return (process, stderr)
    }

    /// Waits at most `seconds` for `process` to end; true when it did.
    private func ended(_ process: Process, within seconds: Double) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return !process.isRunning
    }

    @Test(.timeLimit(.minutes(2)))
    func sigtermLetsTheFetchInFlightCommitAndWatchExitsZero() async throws {
        let podfresh = try Podfresh()
        try await withTestHTTPServer { server in
            defer { podfresh.cleanUp() }
            let (process, stderr) = try await watchWithAFetchInFlight(podfresh, server, delay: .seconds(4))
            defer { if process.isRunning { process.terminate() } }

            process.terminate()  // SIGTERM while the feed is being fetched
            #expect(try await ended(process, within: 15), "watch must exit once the fetch in flight is stored")
            process.waitUntilExit()
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 0, "\(stderr.text)")
            #expect(
                stderr.text.contains("stopping: letting feeds in flight finish (signal again to quit now)"),
                "\(stderr.text)")
            let store = try FeedStore(path: podfresh.databasePath)
            #expect(
                try await store.episodes(EpisodeQuery()).compactMap(\.episode.title) == ["slow"],
                "the merge in flight committed")
            #expect(server.requests.count == 1, "no new fetch starts after the signal")
            #expect(try await store.integrityCheck() == "ok")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aSecondSignalStopsWatchAtOnceWith128PlusThatSignal() async throws {
        let podfresh = try Podfresh()
        try await withTestHTTPServer { server in
            defer { podfresh.cleanUp() }
            // The server answers only after 30 s: a watch that waited for it would not end within the 5 s below.
            let (process, stderr) = try await watchWithAFetchInFlight(podfresh, server, delay: .seconds(30))
            defer { if process.isRunning { process.terminate() } }

            kill(process.processIdentifier, SIGTERM)
            #expect(
                await stderr.wait(timeout: 10) { $0.contains("stopping:") },
                "the first signal is answered: \(stderr.text)")
            kill(process.processIdentifier, SIGINT)
            #expect(try await ended(process, within: 5), "the second signal must not wait for the fetch in flight")
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 128 + SIGINT, "\(stderr.text)")
            let store = try FeedStore(path: podfresh.databasePath)
            #expect(try await store.episodes(EpisodeQuery()).isEmpty, "the fetch in flight was abandoned")
            #expect(try await store.integrityCheck() == "ok")
        }
    }
}
