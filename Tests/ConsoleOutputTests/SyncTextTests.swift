import FeedModels
import FeedParsing
import Foundation
import RefreshEngine
import Testing

@testable import ConsoleOutput

/// How sync is worded: every failure names the server, the step and the cause, and says what to do; JSON Lines events
/// carry counts; `status` shows the set-up and the last outcome.
struct SyncTextTests {
    let server = "https://gpodder.example.org"

    @Test(arguments: [
        (SyncFailure.Kind.unreachable, "cannot be reached"), (.timedOut, "did not answer in time"),
        (.unauthorized, "podfresh sync setup"), (.forbidden, "HTTP 403"), (.notFound, "--api"),
        (.malformed, "not the gPodder API's JSON"), (.redirected, "--server"), (.noPassword, "sync setup"),
    ])
    func everyFailureNamesTheServerAndTheCause(_ kind: SyncFailure.Kind, _ words: String) {
        let line = SyncText.failureLine(SyncFailure(step: .pull, kind: kind, server: server, status: 401))
        #expect(line.contains(server) && line.contains(words), "\(line)")
        #expect(line.contains("reading the subscriptions from"))
    }

    @Test func aServerFaultSaysTheNextSyncTriesAgain() {
        let line = SyncText.failureLine(
            SyncFailure(step: .push, kind: .httpStatus, server: server, status: 502))
        #expect(line.hasPrefix("sending the subscriptions to \(server) failed: the server answered HTTP 502"))
        #expect(line.contains("the next sync tries again"))
    }

    @Test func jsonEventsCarryCounts() {
        let pulled = SyncText.json(
            .pulled(SyncPulled(added: [URL(string: "https://a.example/feed")!], removed: [], cursor: 12)))
        #expect(JSONValue.object(pulled).serialized().contains("\"event\":\"sync_pulled\",\"added\":1,\"removed\":0"))
        let failed = SyncText.json(.failed(SyncFailure(step: .pull, kind: .unauthorized, server: server, status: 401)))
        #expect(JSONValue.object(failed).serialized().contains("\"kind\":\"unauthorized\""))
    }

    @Test func statusShowsTheSetUpAndTheLastOutcome() {
        let setup = SyncSetup(server: URL(string: server)!, user: "alice", device: "box", api: .gpodder)
        #expect(
            SyncText.statusLines(nil) == ["sync:         not set up (podfresh sync setup --server URL --user NAME)"])
        let lines = SyncText.statusLines(
            SyncState(
                setup: setup, subscriptionsCursor: 5, lastSyncAt: Date(timeIntervalSince1970: 1_700_000_000),
                lastOutcome: SyncOutcome(pulledAdded: 2, pushedRemoved: 1)))
        #expect(lines.first?.contains("user alice, device box") == true)
        #expect(lines.last?.contains("ok: 2 added and 0 removed here, 0 added and 1 removed on the server") == true)
    }
}
