import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPTransport

private let profile = HTTPNetwork.Profile(
    decompressionRatioLimit: 100, connectTimeout: .seconds(2), readTimeout: .seconds(10))

/// What a request for `url` fails with, sorted by the one classification, with the body read to its end.
private func failure(of url: URL) async -> TransportFailure? {
    do {
        try await HTTPNetwork.withNetwork { (network: HTTPNetwork) async throws -> Void in
            let exchange = try await network.execute(
                HTTPNetwork.Request(url: url), profile: profile, maxRedirects: 0, deadline: .now + .seconds(10))
            var received: Int64 = 0
            do {
                for try await chunk in exchange.response.body { received += Int64(chunk.count) }
            } catch {
                let length = exchange.response.headers.first(name: "Content-Length").flatMap { Int64($0) }
                throw TransportFailure(
                    error, url: exchange.url, profile: profile, timeout: .seconds(10),
                    body: .init(receivedBytes: received, expectedBytes: length))
            }
        }
        return nil
    } catch {
        return TransportFailure(error, url: url, profile: profile, timeout: .seconds(10))
    }
}

/// Every failure of a transfer below HTTP becomes one fact, from the errors a real server on 127.0.0.1 causes.
@Suite(.timeLimit(.minutes(1)))
struct TransportFailureTests {
    @Test func aPortNobodyListensOnIsARefusedConnectionNamingHostAndPort() async {
        let port = closedLoopbackPort()
        let failure = await failure(of: URL(string: "http://127.0.0.1:\(port)/feed.xml")!)
        #expect(failure == .connectionRefused(host: "127.0.0.1", port: port))
        #expect(failure?.kind == .refused)
    }

    @Test func anAnswerThatIsNotHTTPIsInvalidHTTP() async throws {
        try await withTestHTTPServer { server in
            server.setRoute("/feed.xml", TestResponse(fault: .raw(Array("SPDY/9 banana\r\n\r\n".utf8))))
            let failure = await failure(of: server.url("/feed.xml"))
            #expect(failure == .invalidHTTP)
            #expect(failure?.kind == .broken)
        }
    }

    @Test func aConnectionClosedBeforeAnyAnswerIsClosedEarly() async throws {
        try await withTestHTTPServer { server in
            server.setRoute("/feed.xml", TestResponse(fault: .raw([])))
            #expect(await failure(of: server.url("/feed.xml")) == .closedEarly)
        }
    }

    @Test func aBodyCutByTheServerNamesTheHostAndTheBytesSoFar() async throws {
        try await withTestHTTPServer { server in
            server.setRoute(
                "/ep.mp3",
                TestResponse(
                    body: Array(repeating: 7, count: 10_000), fault: .shortBody(afterBytes: 100),
                    compressible: false))
            let failure = await failure(of: server.url("/ep.mp3"))
            #expect(failure == .closedBeforeEnd(host: "127.0.0.1", receivedBytes: 100, expectedBytes: 10_000))
        }
    }

    @Test func aBodyResetByTheServerIsAResetConnection() async throws {
        try await withTestHTTPServer { server in
            server.setRoute(
                "/ep.mp3",
                TestResponse(
                    body: Array(repeating: 7, count: 10_000), fault: .reset(afterBytes: 100),
                    compressible: false))
            let failure = await failure(of: server.url("/ep.mp3"))
            #expect(failure == .connectionReset(host: "127.0.0.1"))
            #expect(failure?.kind == .broken)
        }
    }

    @Test func theResolversAnswersAreFactsAboutTheName() {
        let url = URL(string: "https://gone.example/feed.xml")!
        func sorted(_ kind: NameLookupError.Kind) -> TransportFailure {
            TransportFailure(
                NameLookupError(kind: kind, host: "gone.example"), url: url, profile: profile, timeout: .seconds(10))
        }
        #expect(sorted(.noSuchHost) == .noSuchHost(host: "gone.example"))
        #expect(sorted(.noSuchHost).kind == .noSuchHost)
        #expect(sorted(.nameServerUnavailable) == .nameServerGaveNoAnswer(host: "gone.example"))
        #expect(sorted(.timedOut(.seconds(3))) == .lookupTimedOut(host: "gone.example", after: .seconds(3)))
        #expect(sorted(.failed("bad flags")) == .lookupFailed(host: "gone.example", reason: "bad flags"))
        #expect(sorted(.nameServerUnavailable).kind == .unreachable)
    }

    @Test func eachLimitIsNamedWithItsValueAndTheBytesSoFar() {
        let limits = TransferLimits(connect: .seconds(4), stall: .seconds(20), minimumRate: MinimumRate())
        func sorted(_ limit: TransferLimit) -> TransportFailure {
            TransportFailure(
                TransferLimitExceeded(limit: limit, limits: limits, receivedBytes: 5, expectedBytes: 9), host: "h")
        }
        #expect(sorted(.connect) == .connectTimedOut(host: "h", after: .seconds(4)))
        #expect(sorted(.nameLookup) == .lookupTimedOut(host: "h", after: .seconds(10)))
        #expect(
            sorted(.stall)
                == .transferLimit(
                    .stall, host: "h", after: .seconds(20), receivedBytes: 5, expectedBytes: 9, minimumRate: nil))
        #expect(
            sorted(.minimumRate)
                == .transferLimit(
                    .minimumRate, host: "h", after: .seconds(30), receivedBytes: 5, expectedBytes: 9,
                    minimumRate: 1_000))
        for limit in [TransferLimit.nameLookup, .connect, .firstByte, .stall, .minimumRate, .total] {
            #expect(sorted(limit).limit == limit)
        }
    }

    @Test func aBodyThatDoesNotInflateIsCorruptAndABombExpandsTooMuch() {
        let url = URL(string: "https://a.example/feed.xml")!
        func sorted(_ error: BodyInflater.Failure) -> TransportFailure {
            TransportFailure(error, url: url, profile: profile, timeout: .seconds(10))
        }
        #expect(sorted(.corrupt) == .corruptBody)
        #expect(sorted(.truncated) == .corruptBody)
        #expect(sorted(.expandsTooMuch(ratio: 50)) == .expandsTooMuch(ratio: 50))
    }
}

/// ``TransferWatch/run(limits:_:)``: a transfer beside its watchdog, the first to end deciding.
@Suite(.timeLimit(.minutes(1)))
struct TransferRaceTests {
    @Test func aTransferThatEndsInTimeGivesItsResult() async throws {
        let watch = TransferWatch()
        let result = try await watch.run(limits: TransferLimits(total: .seconds(10))) { "done" }
        #expect(result == "done")
    }

    @Test func aTransferThatWaitsPastALimitIsCancelledAndTheLimitThrown() async throws {
        let watch = TransferWatch()
        let cancelled = Mutex(false)
        await #expect(throws: TransferLimitExceeded.self) {
            try await watch.run(limits: TransferLimits(total: .milliseconds(200))) {
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    cancelled.withLock { $0 = true }
                    throw error
                }
            }
        }
        #expect(cancelled.withLock { $0 }, "the transfer was cancelled, not waited for")
    }

    @Test func aTransfersOwnErrorIsThrownAsItIs() async throws {
        struct Broken: Error, Equatable {}
        await #expect(throws: Broken()) {
            try await TransferWatch().run(limits: TransferLimits()) { throw Broken() }
        }
    }
}
