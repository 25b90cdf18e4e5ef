import AsyncHTTPClient
import FeedFetching
import Foundation
import HTTPTransport
import TestSupport
import Testing

/// Collects a body.
final class Collect: FeedBodyConsumer {
    var bytes: [UInt8] = []
    func consume(_ chunk: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: chunk) }
}

struct Refuse: Error, Equatable {}

/// Throws on the first chunk.
final class Refusing: FeedBodyConsumer {
    func consume(_ chunk: UnsafeRawBufferPointer) throws { throw Refuse() }
}

private func withSource<R>(
    maxBodyBytes: Int = 1_000_000, totalTimeout: Duration = .seconds(30), now: Date = Date(),
    idleConnectionTimeout: Duration? = nil, _ body: (HTTPFeedSource, TestHTTPServer) async throws -> R
) async throws -> R {
    let server = try await TestHTTPServer.start()
    var configuration = FetchConfiguration(
        connectTimeout: .seconds(2), totalTimeout: totalTimeout, maxBodyBytes: maxBodyBytes, maxRedirects: 5,
        userAgent: "podfresh/test", now: { now })
    if let idleConnectionTimeout { configuration.idleConnectionTimeout = idleConnectionTimeout }
    let client = HTTPFeedSource.makeNetwork(configuration: configuration)
    do {
        let result = try await body(HTTPFeedSource(network: client, configuration: configuration), server)
        await client.shutdown()
        try await server.shutdown()
        return result
    } catch {
        await client.shutdown()
        try? await server.shutdown()
        throw error
    }
}

private func fetchError(_ source: HTTPFeedSource, _ url: URL, conditional: Bool = true) async -> FeedFetchError? {
    do {
        _ = try await source.fetch(FeedRequest(url: url, conditional: conditional)) { _ in Collect() }
        return nil
    } catch {
        return error as? FeedFetchError
    }
}

@Suite(.timeLimit(.minutes(1)))
struct HTTPFeedSourceTests {
    @Test func aBodyStreamsThroughTheConsumerAndGzipIsDecoded() async throws {
        let text = String(repeating: "<item>gzip me</item>", count: 2000)
        try await withSource { source, server in
            server.serveFeed("/f.xml", text)
            let result = try await source.fetch(FeedRequest(url: server.url("/f.xml"))) { _ in Collect() }
            guard case .fetched(let head, let consumer, let count) = result else {
                Issue.record("not fetched")
                return
            }
            #expect(consumer.bytes == Array(text.utf8))
            #expect(count == text.utf8.count)
            #expect(head.charset == "utf-8")
            #expect(head.etag != nil)
            let request = try #require(server.requests.first)
            #expect(request.headers["accept-encoding"] == "gzip, deflate")
            #expect(request.headers["user-agent"] == "podfresh/test")
        }
    }

    @Test func validatorsGiveNotModified() async throws {
        try await withSource { source, server in
            server.serveFeed("/f.xml", "<rss/>")
            guard
                case .fetched(let head, _, _) = try await source.fetch(
                    FeedRequest(url: server.url("/f.xml")), consumer: { _ in Collect() })
            else {
                Issue.record("not fetched")
                return
            }
            let again = try await source.fetch(
                FeedRequest(url: server.url("/f.xml"), etag: head.etag, lastModified: head.lastModified)
            ) { _ in Collect() }
            guard case .notModified = again else {
                Issue.record("expected 304")
                return
            }
            let forced = try await source.fetch(
                FeedRequest(url: server.url("/f.xml"), etag: head.etag, conditional: false)
            ) { _ in Collect() }
            guard case .fetched = forced else {
                Issue.record("an unconditional fetch gets the body")
                return
            }
        }
    }

    @Test func aRequestThatReusesNoConnectionAsksTheServerToCloseItAndTheConnectionEnds() async throws {
        // An idle connection lives long enough that a busy machine's pause between the two fetches cannot close it.
        try await withSource(idleConnectionTimeout: .seconds(300)) { source, server in
            server.serveFeed("/f.xml", "<rss/>")
            _ = try await source.fetch(FeedRequest(url: server.url("/f.xml"))) { _ in Collect() }
            _ = try await source.fetch(FeedRequest(url: server.url("/f.xml"), reusesConnection: false)) { _ in
                Collect()
            }
            let requests = server.requests
            try #require(requests.count == 2)
            #expect(requests[0].headers["connection"] == nil, "the first request keeps its connection for the next")
            #expect(requests[1].headers["connection"] == "close")
            #expect(server.openedConnections == 1, "the second request went over the first one's connection")
            // Neither side holds the connection open after the answer to the last request.
            let deadline = Date().addingTimeInterval(3)
            while server.closedConnections == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(server.closedConnections == 1)
        }
    }

    @Test func a304ToAnUnconditionalRequestIsAnError() async throws {
        try await withSource { source, server in
            server.setRoute("/f.xml", TestResponse(status: 304))
            let error = await fetchError(source, server.url("/f.xml"))
            #expect(error?.cause == .unaskedNotModified)
            #expect(error?.status == 304)
        }
    }

    @Test func permanentRedirectsAreReportedButTemporaryFirstHopsAreNot() async throws {
        try await withSource { source, server in
            server.serveFeed("/final.xml", "<rss/>")
            server.setRoute("/p1", .redirect(301, to: "/p2"))
            server.setRoute("/p2", .redirect(308, to: "/final.xml"))
            server.setRoute("/t1", .redirect(302, to: "/p2"))
            server.setRoute("/m1", .redirect(301, to: "/t2"))
            server.setRoute("/t2", .redirect(307, to: "/final.xml"))
            func head(_ path: String) async throws -> FeedResponseHead? {
                if case .fetched(let head, _, _) = try await source.fetch(
                    FeedRequest(url: server.url(path)), consumer: { _ in Collect() })
                {
                    return head
                }
                return nil
            }
            let permanent = try await head("/p1")
            let temporaryFirst = try await head("/t1")
            let permanentFirst = try await head("/m1")
            #expect(permanent?.permanentRedirect == server.url("/final.xml"))
            #expect(permanent?.redirects == [server.url("/p2"), server.url("/final.xml")])
            #expect(temporaryFirst != nil && temporaryFirst?.permanentRedirect == nil)
            #expect(permanentFirst?.permanentRedirect == server.url("/t2"))
        }
    }

    @Test func redirectLoopsAndForeignSchemesAreRefused() async throws {
        try await withSource { source, server in
            server.setRoute("/a", .redirect(302, to: "/b"))
            server.setRoute("/b", .redirect(302, to: "/a"))
            #expect(await fetchError(source, server.url("/a"))?.kind == .tooManyRedirects)
            server.setRoute("/file", .redirect(301, to: "file:///etc/passwd"))
            server.setRoute("/ftp", .redirect(301, to: "ftp://example.com/feed"))
            #expect(await fetchError(source, server.url("/file"))?.kind == .unsupportedScheme)
            #expect(await fetchError(source, server.url("/ftp"))?.kind == .unsupportedScheme)
        }
    }

    @Test func statusesMapToSpecificErrors() async throws {
        let now = Date(timeIntervalSince1970: 1_730_000_000)
        try await withSource(now: now) { source, server in
            server.setRoute("/404", TestResponse(status: 404, text: "no"))
            server.setRoute("/410", TestResponse(status: 410, text: "gone"))
            server.setRoute("/429", TestResponse(status: 429, headers: [("Retry-After", "120")]))
            server.setRoute(
                "/503", TestResponse(status: 503, headers: [("Retry-After", "Wed, 30 Oct 2024 04:00:00 GMT")]))
            server.setRoute("/odd", TestResponse(status: 503, headers: [("Retry-After", "soon-ish")]))
            let notFound = await fetchError(source, server.url("/404"))
            #expect(
                notFound?.kind == .httpStatus && notFound?.status == 404
                    && notFound?.cause == .httpStatus(404, reasonPhrase: "Not Found", retryAfter: nil))
            #expect(await fetchError(source, server.url("/410"))?.kind == .gone)
            #expect(await fetchError(source, server.url("/429"))?.retryAfter == now.addingTimeInterval(120))
            #expect(
                await fetchError(source, server.url("/503"))?.retryAfter == Date(timeIntervalSince1970: 1_730_260_800))
            #expect(await fetchError(source, server.url("/odd"))?.retryAfter == nil)
        }
    }

    @Test func anOversizedBodyIsStoppedEarly() async throws {
        try await withSource(maxBodyBytes: 64 * 1024) { source, server in
            server.setRoute("/huge", TestResponse(status: 200, fault: .huge(bytes: 50_000_000)))
            let error = await fetchError(source, server.url("/huge"))
            #expect(error?.kind == .tooLarge)
            // The limit itself, not a sentence: the console words it (and names the option that raises it).
            #expect(error?.cause == .bodyOverLimit(limit: 64 * 1024, announced: nil))
        }
    }

    @Test func aFileOverTheLimitCarriesTheLimitAndNamesNoFlag() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-big-\(UUID().uuidString).xml")
        try Data(count: 4096).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let source = FileFeedSource(maxBodyBytes: 1024)
        do {
            _ = try await source.fetch(FeedRequest(url: file, conditional: false), consumer: { _ in Collect() })
            Issue.record("a file over the limit was read")
        } catch let error as FeedFetchError {
            #expect(error.kind == .tooLarge)
            #expect(error.maxBodyBytes == 1024)
            #expect(error.cause == .fileOverLimit(path: file.path, limit: 1024))
        }
    }

    @Test func stallsTimeOutAndBrokenBodiesAreTransportErrors() async throws {
        let body = Array(String(repeating: "x", count: 10_000).utf8)
        try await withSource(totalTimeout: .seconds(1)) { source, server in
            server.setRoute("/stall", TestResponse(status: 200, body: body, fault: .stall(afterBytes: 100)))
            #expect(await fetchError(source, server.url("/stall"))?.kind == .timeout)
        }
        // A generous deadline, so a loaded machine cannot turn the broken body into a timeout.
        try await withSource(totalTimeout: .seconds(20)) { source, server in
            server.setRoute("/short", TestResponse(status: 200, body: body, fault: .shortBody(afterBytes: 100)))
            #expect(await fetchError(source, server.url("/short"))?.kind == .transport)
        }
    }

    @Test func aBodyCutByTheServerNamesTheHostAndTheBytesNeverALibraryType() async throws {
        let body = Array(String(repeating: "x", count: 10_000).utf8)
        try await withSource(totalTimeout: .seconds(20)) { source, server in
            // Given a server that announces 10 000 bytes, sends 100 and closes the connection cleanly …
            server.setRoute(
                "/short",
                TestResponse(status: 200, body: body, fault: .shortBody(afterBytes: 100), compressible: false))
            let error = await fetchError(source, server.url("/short"))
            // … the fetch fails as a cut body: which host, how many bytes of how many.
            #expect(error?.kind == .transport)
            #expect(
                error?.cause
                    == .transport(.closedBeforeEnd(host: "127.0.0.1", receivedBytes: 100, expectedBytes: 10_000)))
        }
    }

    @Test func aConsumersErrorComesBackUnchanged() async throws {
        try await withSource { source, server in
            server.serveFeed("/f.xml", "<rss/>")
            await #expect(throws: Refuse()) {
                _ = try await source.fetch(FeedRequest(url: server.url("/f.xml"))) { _ in Refusing() }
            }
        }
    }
}

struct FileAndRoutingSourceTests {
    @Test func filesAreReadAndAnswerNotModifiedByTheirModificationTime() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString).xml")
        try Data("<rss/>".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = FileFeedSource()
        guard
            case .fetched(let head, let consumer, _) = try await source.fetch(
                FeedRequest(url: url), consumer: { _ in Collect() })
        else {
            Issue.record("not fetched")
            return
        }
        #expect(consumer.bytes == Array("<rss/>".utf8))
        guard
            case .notModified = try await source.fetch(
                FeedRequest(url: url, lastModified: head.lastModified), consumer: { _ in Collect() })
        else {
            Issue.record("expected not modified")
            return
        }
    }

    @Test func missingFilesAndFoldersAreClearErrors() async {
        let source = FileFeedSource()
        await #expect {
            _ = try await source.fetch(
                FeedRequest(url: URL(fileURLWithPath: "/nonexistent/feed.xml")), consumer: { _ in Collect() })
        } throws: {
            ($0 as? FeedFetchError)?.kind == .file
                && ($0 as? FeedFetchError)?.cause == .noSuchFile(path: "/nonexistent/feed.xml")
        }
        await #expect {
            _ = try await source.fetch(FeedRequest(url: URL(fileURLWithPath: "/tmp")), consumer: { _ in Collect() })
        } throws: {
            ($0 as? FeedFetchError)?.cause == .folder(path: "/tmp")
        }
    }

    @Test(arguments: ["javascript:alert(1)", "ftp://example.com/feed", "data:text/xml,<rss/>"])
    func onlyHTTPAndFileSchemesAreFetched(address: String) async {
        let source = RoutingFeedSource(http: FileFeedSource(), file: FileFeedSource())
        await #expect {
            _ = try await source.fetch(FeedRequest(url: URL(string: address)!), consumer: { _ in Collect() })
        } throws: {
            ($0 as? FeedFetchError)?.kind == .unsupportedScheme
        }
    }

    @Test func headerValuesAreParsed() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(HTTPHeaderValues.charset("application/rss+xml; charset=\"ISO-8859-1\"") == "iso-8859-1")
        #expect(HTTPHeaderValues.charset("text/xml") == nil)
        #expect(HTTPHeaderValues.maxAge("public, max-age=300") == 300)
        #expect(HTTPHeaderValues.maxAge("no-store, max-age=300") == nil)
        #expect(HTTPHeaderValues.retryAfter("-5", now: now) == nil)
        #expect(HTTPHeaderValues.retryAfter("99999999", now: now) == now.addingTimeInterval(7 * 86_400))
        #expect(HTTPHeaderValues.date("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(
            HTTPHeaderValues.string(from: Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}

@Suite(.timeLimit(.minutes(1)))
struct SlowServerTests {
    @Test func aTrickleSlowerThanTheDeadlineTimesOut() async throws {
        let body = Array(String(repeating: "y", count: 5_000).utf8)
        try await withSource(totalTimeout: .seconds(1)) { source, server in
            server.setRoute(
                "/trickle", TestResponse(status: 200, body: body, fault: .trickle(bytes: 10, delay: .milliseconds(20))))
            #expect(await fetchError(source, server.url("/trickle"))?.kind == .timeout)
        }
    }
}
