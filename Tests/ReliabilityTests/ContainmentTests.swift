import ConsoleOutput
import FeedFetching
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import Measures
import RefreshEngine
import Testing

/// Checks a containment result against what the document's catalogue entry says podfresh does.
func expect(
    _ result: Containment, matches document: HostileDocument, context: HostileContext,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    switch (result.outcome.result, document.expectation) {
    case (.failed(let failure), .fails(let kinds)), (.failed(let failure), .failsOrRecovers(let kinds)):
        #expect(
            kinds.contains(failure.kind.rawValue),
            "\(document): kind \(failure.kind.rawValue): \(FeedFailureText.line(failure))",
            sourceLocation: sourceLocation)
        #expect(!FeedFailureText.line(failure).isEmpty, sourceLocation: sourceLocation)
        result.expectFailedUntouched(kind: failure.kind.rawValue, sourceLocation: sourceLocation)
    case (.updated, .recoversWithWarnings), (.updated, .failsOrRecovers):
        #expect(
            !result.outcome.warnings.isEmpty, "\(document): recovered without a warning", sourceLocation: sourceLocation
        )
        #expect(result.subscriptionAfter.failureCount == 0, sourceLocation: sourceLocation)
    case (.updated, .recovers):
        #expect(result.subscriptionAfter.failureCount == 0, sourceLocation: sourceLocation)
    case (let outcome, let expectation):
        Issue.record("\(document): got \(outcome), expected \(expectation)", sourceLocation: sourceLocation)
    }
    let stored = String(describing: result.after)
    for forbidden in document.forbidden + [context.marker] {
        #expect(
            !stored.contains(forbidden), "\(document): \(forbidden.debugDescription) was stored",
            sourceLocation: sourceLocation)
        #expect(
            !result.rendered.contains(forbidden), "\(document): \(forbidden.debugDescription) was printed",
            sourceLocation: sourceLocation)
    }
    #expect(context.spyRequests == 0, "\(document): a request reached the spy server", sourceLocation: sourceLocation)
}

/// Hostile documents served next to a good feed and refreshed through the real engine, store and HTTP source: the good
/// feed is stored, the hostile feed changes nothing but its own error state (or recovers with warnings), the database
/// stays healthy and nothing unsafe is printed.
@Suite("Hostile feeds through the refresh engine")
struct ContainmentTests {
    @Test(.timeLimit(.minutes(1)), arguments: HostileDocument.catalogue)
    func aHostileFeedChangesNothingButItsOwnState(_ document: HostileDocument) async throws {
        try await withHostileContext { context in
            let result = try await refreshTurningHostile(.ok(body: try document.make(context)))
            expect(result, matches: document, context: context)
            let summary: String
            switch result.outcome.result {
            case .failed(let failure): summary = "failed \(failure.kind.rawValue): \(FeedFailureText.line(failure))"
            case .updated(let new, _):
                summary =
                    "recovered, \(new.count) new, \(result.outcome.warnings.count) warning(s): \(result.outcome.warnings.prefix(2).map(\.reason))"
            default: summary = "\(result.outcome.result)"
            }
            print("reliability-figure: hostile \(document): \(summary.prefix(300))")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func duplicateGuidsAreStoredOnceWithTheFirstItemKept() async throws {
        let result = try await refreshTurningHostile(.ok(body: try HostileDocument.fixture("duplicate-guids.xml")))
        #expect(result.outcome.newEpisodes.map(\.key).sorted() == ["other", "same"])
        #expect(result.after.first { $0.key == "same" }?.episode.title == "First")
        #expect(
            result.outcome.warnings.contains {
                $0.reason == ParseWarning.Reason.sharedEpisodeID(first: 1, second: 2, id: "same")
            })
    }

    @Test(.timeLimit(.minutes(3)))
    func aMillionItemFeedIsStoredOnlyUpToTheEpisodeLimit() async throws {
        var text = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Million</title>\n"
        text.reserveCapacity(60_000_000)
        for index in 0..<1_000_000 { text += "<item><guid>m\(index)</guid><title>Item \(index)</title></item>\n" }
        text += "</channel></rss>\n"
        let options = FeedParserOptions(maxEpisodes: 2_000)
        // 60 MB read and parsed in a debug build takes its time on a busy machine: the transfer's clock stands still,
        // so what is judged is where the items stop, not how fast they came.
        var fetch = testFetchConfiguration(totalTimeout: .seconds(50), maxBodyBytes: 64 << 20)
        fetch.clock = .manual(ManualClock())
        let result = try await refreshTurningHostile(.ok(body: Array(text.utf8)), fetch: fetch, parser: options)
        guard case .updated(let newEpisodes, _) = result.outcome.result else {
            Issue.record("expected the first 2 000 items stored, got \(result.outcome.result)")
            return
        }
        #expect(newEpisodes.count == 2_000)
        #expect(result.after.count == 2_003)
        #expect(result.outcome.warnings.map(\.reason).contains(.tooManyEpisodes(limit: 2_000)))
    }

    @Test(.timeLimit(.minutes(1)))
    func aHundredMegabyteFeedIsRefusedAtTheSizeCap() async throws {
        // The body is generated, never committed; the cap (4 MB here) stops the download long before its end.
        var body = Array(
            "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Big</title><item><guid>b</guid><title>".utf8)
        body += [UInt8](repeating: UInt8(ascii: "a"), count: 100 << 20)
        body += Array("</title></item></channel></rss>\n".utf8)
        let result = try await refreshTurningHostile(.ok(body: body))
        result.expectFailedUntouched(kind: "too-large")
    }
}
