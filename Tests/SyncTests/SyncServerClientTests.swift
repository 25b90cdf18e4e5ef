import FeedModels
import Foundation
import GPodderSync
import HTTPTransport
import TestSupport
import Testing

/// The client of both API flavours against real servers on 127.0.0.1, and every fault a server can show: each is a
/// ``SyncFailure`` that names the server and the cause, and never carries the password.
@Suite(
    .serialized,
    .enabled(
        "needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI) and python3",
        Servers.bothAvailable))
struct SyncServerClientTests {
    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func subscriptionsPushedComeBackFromAPullSinceZero(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            let client = harness.client()
            let answer = try await client.pushSubscriptions(
                add: ["https://a.example/one.xml", "https://a.example/two.xml"], remove: [])
            #expect(answer.updateURLs.isEmpty)
            let changes = try await client.pullSubscriptions(since: 0)
            #expect(Set(changes.add) == ["https://a.example/one.xml", "https://a.example/two.xml"])
            #expect(changes.timestamp > 0)
            let later = try await client.pullSubscriptions(since: changes.timestamp)
            #expect(later.add.isEmpty && later.remove.isEmpty, "nothing changed since the cursor")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aGpodderServerRewritesURLsAndSaysSo() async throws {
        try await withHarness(.gpodder) { harness in
            try await harness.setUp()
            let answer = try await harness.client().pushSubscriptions(add: ["http://B.example"], remove: [])
            #expect(answer.updateURLs.map { [$0.sent, $0.kept] } == [["http://B.example", "http://b.example/"]])
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func aWrongPasswordIsRefusedAndNeverShown(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            let secret = "hunter2-never-printed"
            let failure = try await #require(throws: SyncFailure.self) {
                _ = try await harness.client(password: secret).pullSubscriptions(since: 0)
            }
            #expect(failure.kind == .unauthorized && failure.status == 401 && failure.step == .pull)
            #expect(failure.server == harness.server.url.absoluteString)
            #expect(!"\(failure)".contains(secret))
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: SyncTestServer.Kind.allCases)
    func serverFaultsAreNamed(_ kind: SyncTestServer.Kind) async throws {
        try await withHarness(kind) { harness in
            try await harness.setUp()
            let client = harness.client(timeout: .seconds(1))
            try await harness.server.inject("status", match: "subscri", status: 500)
            let fiveHundred = try await #require(throws: SyncFailure.self) {
                _ = try await client.pullSubscriptions(since: 0)
            }
            #expect(fiveHundred.kind == .httpStatus && fiveHundred.status == 500)
            try await harness.server.inject("status", match: "subscri", status: 403)
            let forbidden = try await #require(throws: SyncFailure.self) {
                _ = try await client.pullSubscriptions(since: 0)
            }
            #expect(forbidden.kind == .forbidden)
            try await harness.server.inject("malformed", match: "subscri")
            let malformed = try await #require(throws: SyncFailure.self) {
                _ = try await client.pullSubscriptions(since: 0)
            }
            #expect(malformed.kind == .malformed)
            try await harness.server.inject("delay", match: "subscri", seconds: 3)
            let slow = try await #require(throws: SyncFailure.self) {
                _ = try await client.pullSubscriptions(since: 0)
            }
            #expect(slow.kind == .timedOut)
            // After the faults, the same client works again.
            #expect(try await client.pullSubscriptions(since: 0).timestamp > 0)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aServerThatIsDownIsUnreachable() async throws {
        try await HTTPNetwork.withNetwork { network in
            let port = closedLoopbackPort()
            let client = SyncServerClient(
                setup: SyncSetup(
                    server: URL(string: "http://127.0.0.1:\(port)")!, user: "alice", device: "d", api: .gpodder),
                password: "secret", network: network, timeout: .seconds(5))
            let failure = try await #require(throws: SyncFailure.self) {
                _ = try await client.pullSubscriptions(since: 0)
            }
            #expect(failure.kind == .unreachable)
            #expect(failure.detail?.contains("refused") == true, "\(failure)")
        }
    }
}
