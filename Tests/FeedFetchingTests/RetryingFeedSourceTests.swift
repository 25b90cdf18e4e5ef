import FeedFetching
import Foundation
import HTTPTransport
import TestSupport
import Testing

/// Counts attempts and answers from a script of outcomes.
private final class ScriptedSource: FeedSource, @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var script: [FeedFetchError?]
    private(set) var attempts = 0

    init(_ script: [FeedFetchError?]) { self.script = script }

    func fetch<Consumer: FeedBodyConsumer>(
        _ request: FeedRequest, consumer makeConsumer: (FeedResponseHead) async throws -> Consumer
    ) async throws -> FeedFetchResult<Consumer> {
        let next: FeedFetchError? = lock.withLock {
            attempts += 1
            return script.isEmpty ? nil : script.removeFirst()
        }
        if let next { throw next }
        let head = FeedResponseHead(url: request.url, status: 200)
        return .fetched(head, try await makeConsumer(head), byteCount: 0)
    }
}

private let url = URL(string: "http://127.0.0.1:1/feed.xml")!

@Suite(.timeLimit(.minutes(1)))
struct RetryingFeedSourceTests {
    @Test func aTransientFailureIsTriedOnceMoreAndTheSecondAnswerCounts() async throws {
        let base = ScriptedSource([FeedFetchError(.transport(.connectionReset(host: "a.example")))])
        let source = RetryingFeedSource(wrapping: base, delay: .milliseconds(1))
        let result = try await source.fetch(FeedRequest(url: url)) { _ in Collect() }
        guard case .fetched = result else {
            Issue.record("not fetched")
            return
        }
        #expect(base.attempts == 2)
    }

    @Test func aSecondTransientFailureIsTheAnswer() async throws {
        let base = ScriptedSource([
            FeedFetchError(.transport(.timedOut(after: .seconds(60)))),
            FeedFetchError(.transport(.connectionReset(host: "a.example"))),
        ])
        let source = RetryingFeedSource(wrapping: base, delay: .milliseconds(1))
        await #expect(throws: FeedFetchError.self) {
            _ = try await source.fetch(FeedRequest(url: url)) { _ in Collect() }
        }
        #expect(base.attempts == 2)
    }

    @Test func finalFailuresAreNotRetried() async throws {
        for error in [
            FeedFetchError(.httpStatus(500, reasonPhrase: "Internal Server Error", retryAfter: nil)),
            FeedFetchError(.transport(.connectionRefused(host: "a.example", port: nil))),
            FeedFetchError(.transport(.certificateNotTrusted(host: "a.example"))),
        ] {
            let base = ScriptedSource([error])
            let source = RetryingFeedSource(wrapping: base, delay: .milliseconds(1))
            await #expect(throws: FeedFetchError.self) {
                _ = try await source.fetch(FeedRequest(url: url)) { _ in Collect() }
            }
            #expect(base.attempts == 1, "\(error)")
        }
    }

    @Test func aResetFromARealServerIsRetriedOnTheWire() async throws {
        let server = try await TestHTTPServer.start()
        let configuration = FetchConfiguration(
            connectTimeout: .seconds(2), totalTimeout: .seconds(20), userAgent: "podfresh/test")
        let body = Array(String(repeating: "<item>x</item>", count: 200).utf8)
        let attempts = AttemptCounter()
        server.setRoute("/flaky.xml") { _ in
            attempts.next() == 1
                ? TestResponse(status: 200, body: body, fault: .reset(afterBytes: 20))
                : TestResponse(status: 200, body: body)
        }
        try await HTTPFeedSource.withSource(configuration: configuration) { http in
            let source = RetryingFeedSource(wrapping: http, delay: .milliseconds(10))
            let result = try await source.fetch(FeedRequest(url: server.url("/flaky.xml"))) { _ in Collect() }
            guard case .fetched(_, let consumer, _) = result else {
                Issue.record("not fetched")
                return
            }
            #expect(consumer.bytes == body, "the retry's consumer is a new one")
        }
        #expect(server.requests(to: "/flaky.xml").count == 2)
        try await server.shutdown()
    }
}

private final class AttemptCounter: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
