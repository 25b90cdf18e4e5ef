import ConsoleOutput
import Foundation
import Podping
import RefreshEngine
import Testing

/// How podping's events read: JSON Lines for every one; a person hears of matches and problems; cron only of what
/// it must act on (the chain unreadable, blocks skipped).
struct PodpingOutputTests {
    let feed = FeedTarget(id: 3, url: URL(string: "https://feeds.example.org/3.xml")!, title: "Show \u{1B}[31mThree")
    let blockTime = Date(timeIntervalSince1970: 1_732_581_663)

    func render(_ mode: OutputMode, _ events: [PodpingEvent]) -> (out: Buffer, err: Buffer) {
        let out = Buffer()
        let err = Buffer()
        let service = UIUpdateService(notificationCenter: nil)
        // A terminal of 100 columns, whatever runs the tests.
        let renderer = ConsoleRenderer(
            mode: mode, out: out, err: err, now: { Date(timeIntervalSince1970: 0) }, width: { 100 })
        renderer.attach(to: service)
        for event in events { service.deliver(.podping(event)) }
        return (out, err)
    }

    var events: [PodpingEvent] {
        [
            .received(
                PodpingReceipt(
                    block: 90_000_001, blockTime: blockTime, senders: ["podping.aaa"], operationID: "pp_podcast_update",
                    reason: "update", medium: "podcast", iris: 2, matched: 1, untrusted: 0)),
            .matched(
                PodpingMatch(
                    feed: feed, block: 90_000_001, blockTime: blockTime, reason: "update",
                    iri: "HTTPS://feeds.example.org/3.xml", dueAt: Date(timeIntervalSince1970: 0))),
            .nodeFailed(
                HiveNodeError(
                    node: URL(string: "https://api.example")!,
                    .rpcError(method: "block_api.get_block_range", code: -32003, message: "busy"))),
            .skippedAhead(from: 100, to: 400, blocks: 300),
        ]
    }

    @Test func jsonLinesGiveEachEventItsKeys() throws {
        let lines = render(.json, events).out.lines
        #expect(lines.count == 4)
        #expect(
            lines[0]
                == #"{"event":"podping_received","block":90000001,"block_time":"2024-11-26T00:41:03Z","id":"pp_podcast_update","senders":["podping.aaa"],"reason":"update","medium":"podcast","iris":2,"matched":1,"untrusted":0}"#
        )
        #expect(
            lines[1].hasPrefix(#"{"event":"podping_matched","feed_id":3,"url":"https://feeds.example.org/3.xml","#))
        #expect(lines[1].contains(#""block":90000001,"block_time":"2024-11-26T00:41:03Z","reason":"update""#))
        #expect(lines[1].contains(#""due_at":"1970-01-01T00:00:00Z""#))
        #expect(lines[2].contains(#""event":"podping_node_failed","node":"https://api.example","kind":"rpc""#))
        #expect(lines[3] == #"{"event":"podping_skipped_ahead","from_block":100,"to_block":400,"blocks":300}"#)
    }

    @Test func plainLinesSayWhatMatchedAndProblemsGoToStandardError() {
        let (out, err) = render(.plain, events)
        #expect(out.lines == ["podping: Show Three: update in block 90000001; due now"])
        #expect(err.lines.count == 2)
        #expect(err.lines[0].hasPrefix("podfresh: podping node: https://api.example refused"))
        #expect(
            err.lines[1].contains("300 blocks behind the chain (blocks 101-400 not read); skipped ahead to block 400"))
    }

    @Test func cronHearsOnlyOfSkippedBlocksAndAnUnreadableChain() {
        let unavailable = PodpingUnavailable(failures: [
            HiveNodeError(node: URL(string: "https://x.example")!, .httpStatus(method: "m", status: 500))
        ])
        let (out, err) = render(.quiet, events + [.unavailable(unavailable)])
        #expect(out.text.isEmpty)
        #expect(err.lines.count == 2)
        #expect(err.lines[0].contains("skipped ahead"))
        #expect(
            err.lines[1].contains(
                "no podping node answered: https://x.example answered m with HTTP 500; trying again later"))
    }

    static let node = URL(string: "https://api.example")!
    static let nodeWordings: [(HiveNodeError.Reason, String)] = [
        (.unreachable(reason: "Connection refused"), "https://api.example is unreachable (Connection refused)"),
        (
            .timedOut(method: "block_api.get_block_range"),
            "https://api.example did not answer block_api.get_block_range in time"
        ),
        (.rateLimited(retryAfter: "30"), "https://api.example is rate-limiting us (HTTP 429, Retry-After 30)"),
        (.rateLimited(retryAfter: nil), "https://api.example is rate-limiting us (HTTP 429)"),
        (.httpStatus(method: "m", status: 503), "https://api.example answered m with HTTP 503"),
        (
            .rpcError(method: "m", code: -32003, message: "busy"),
            "https://api.example refused m: JSON-RPC error -32003 busy"
        ),
        (
            .rpcError(method: "m", code: nil, message: nil),
            "https://api.example refused m: JSON-RPC error ? (no message)"
        ),
        (.tooLarge(method: "m", maxBytes: 100), "https://api.example answered m with more than 100 bytes"),
        (
            .notJSONRPC(method: "m", detail: "result: expected an object"),
            "https://api.example answered m with something that is not JSON-RPC (result: expected an object)"
        ),
        (.emptyAnswer(method: "m"), "https://api.example answered m with neither a result nor an error"),
        (
            .headIncomplete,
            "https://api.example answered get_dynamic_global_properties without head_block_number and time"
        ),
        (
            .undecodableBlocks(detail: "blocks: expected an array"),
            "https://api.example: the block range is not the JSON podfresh expects (blocks: expected an array)"
        ),
        (.wrongBlock(got: 7, asked: 5), "https://api.example answered block 7 where block 5 was asked for"),
        (.headTooOld(block: 9, seconds: 600), "https://api.example lags: its head block 9 is 600 s old"),
        (
            .headBehind(block: 9, blocks: 25),
            "https://api.example lags: its head block 9 is 25 blocks behind another node's"
        ),
        (.unexpected(reason: "unexpected error (Odd)"), "https://api.example: unexpected error (Odd)"),
    ]

    @Test(arguments: nodeWordings)
    func eachNodeFailureIsWordedOnceNamingTheNode(reason: HiveNodeError.Reason, text: String) {
        let (_, err) = render(.plain, [.nodeFailed(HiveNodeError(node: Self.node, reason))])
        #expect(err.lines == ["podfresh: podping node: \(text); trying the next"])
    }
}
