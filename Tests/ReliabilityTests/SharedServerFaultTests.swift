import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import RefreshEngine
import TestSupport
import Testing

/// The same containment check with ``TestHTTPServer``'s faults as other test targets use them (gzip allowed, so a
/// fault may cut a compressed, chunked body), as a cross-check of ``FaultInjectionTests`` (which send every body as
/// is, with its declared `Content-Length`).
@Suite("Faults from TestHTTPServer through the refresh engine")
struct SharedServerFaultTests {
    static let faults: [(String, TestFault, String?)] = [
        ("trickle", .trickle(bytes: 128, delay: .milliseconds(5)), nil),
        ("stall", .stall(afterBytes: 200), "timeout"),
        ("reset", .reset(afterBytes: 200), "transport"),
        ("short body", .shortBody(afterBytes: 200), "transport"),
        ("huge (100 MB generated)", .huge(bytes: 100 << 20), "too-large"),
    ]

    @Test(.timeLimit(.minutes(1)), arguments: 0..<faults.count)
    func aFaultFromTheSharedServerChangesNothingButItsOwnState(_ index: Int) async throws {
        let (name, fault, expectedKind) = Self.faults[index]
        let server = try await TestHTTPServer.start()
        do {
            try await check(server: server, name: name, fault: fault, expectedKind: expectedKind)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    private func check(server: TestHTTPServer, name: String, fault: TestFault, expectedKind: String?) async throws {
        let victimV2 = FeedFactory.numbered(title: "Victim", prefix: "victim", count: 4)
        server.setRoute("/good.xml", TestResponse(text: FeedFactory.numbered(title: "Good", prefix: "good", count: 3)))
        server.setRoute(
            "/victim.xml", TestResponse(text: FeedFactory.numbered(title: "Victim", prefix: "victim", count: 3)))
        // Only the stall needs a short total timeout; the rest get the roomy default so a loaded machine cannot turn
        // them into timeouts. The stall's limit binds the good feed too: 8 s, as 3 s timed the good feed out once in a
        // full parallel run.
        let timeout: Duration = if case .stall = fault { .seconds(8) } else { .seconds(60) }
        try await withEngine(fetch: testFetchConfiguration(totalTimeout: timeout)) { engine in
            let good = try await engine.store.addSubscription(url: server.url("/good.xml"), title: nil, at: Date())
            let victim = try await engine.store.addSubscription(url: server.url("/victim.xml"), title: nil, at: Date())
            let first = try await engine.refresh([good.id, victim.id])
            #expect(first.failedCount == 0)
            let before = try await engine.episodes(victim.id)
            let failuresBefore = try await engine.subscription(victim.id).failureCount

            server.setRoute(
                "/good.xml", TestResponse(text: FeedFactory.numbered(title: "Good", prefix: "good", count: 4)))
            server.setRoute("/victim.xml", TestResponse(text: victimV2, fault: fault))
            let second = try await engine.refresh([good.id, victim.id])

            #expect(try second.outcome(good.id).newEpisodes.map(\.key) == ["good-3"], "\(name): the good feed")
            let outcome = try second.outcome(victim.id)
            print(
                "reliability-figure: fault \(name) (TestHTTPServer): \(server.requests(to: "/victim.xml").count - 1) faulty response(s), outcome \(outcome.result)"
            )
            if let expectedKind {
                #expect(outcome.failure?.kind.rawValue == expectedKind, "\(name): \(outcome.result)")
                #expect(try await engine.episodes(victim.id) == before, "\(name): stored episodes changed")
                #expect(try await engine.subscription(victim.id).failureCount == failuresBefore + 1)
            } else {
                #expect(outcome.newEpisodes.map(\.key) == ["victim-3"], "\(name): \(outcome.result)")
            }
            #expect(try SQLiteProbe.integrityCheck(engine.databasePath) == "ok")
        }
    }
}
