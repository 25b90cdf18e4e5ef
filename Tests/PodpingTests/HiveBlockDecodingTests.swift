import Foundation
import HTTPTransport
import Podping
import TestSupport
import Testing

/// Blocks as public Hive API nodes serve them (`block_api.get_block_range`), decoded into podping notices.
struct HiveBlockDecodingTests {
    static let fixture: [UInt8] = {
        let url = Bundle.module.url(forResource: "Fixtures/block-range", withExtension: "json")!
        return Array(try! Data(contentsOf: url))
    }()

    /// Decodes the fixture through the real client: a node on 127.0.0.1 that answers with it.
    func fixtureBlocks() async throws -> [HiveBlock] {
        try await withTestHTTPServer { server in
            server.setRoute("/", TestResponse(headers: [("Content-Type", "application/json")], body: Self.fixture))
            return try await HTTPNetwork.withNetwork { network in
                try await HiveNodeClient(node: server.url("/"), network: network)
                    .blocks(from: 90_123_457, count: 3, limits: PodpingLimits())
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aBlockRangeGivesEachBlockWithItsNumberTimeAndNotices() async throws {
        let blocks = try await fixtureBlocks()
        #expect(blocks.map(\.number) == [90_123_457, 90_123_458, 90_123_459])
        #expect(blocks[0].time == HiveBlockDecoder.chainTime("2024-11-26T00:41:03"))
        #expect(blocks[2].notices.isEmpty)
        let first = blocks[0].notices
        #expect(first.count == 3, "a v1.0 ping, a legacy url ping and a legacy urls ping; the follow is foreign")
        #expect(
            first[0].iris == ["https://feeds.example.org/show-one/rss", "https://feeds.example.org/show-two/rss"])
        #expect(first[0].senders == ["podping.aaa"])
        #expect(first[0].operationID == "pp_podcast_update")
        #expect(first[0].reason == "update")
        #expect(first[0].transactionID == String(format: "%040x", 901_234_570))
        #expect(first[1].iris == ["https://legacy.example.net/feed.xml"])
        #expect(first[1].reason == "feed_update")
        #expect(first[2].iris == ["https://legacy.example.net/a.xml", "https://legacy.example.net/b.xml"])
        #expect(blocks[0].skipped == PodpingSkips())
    }

    @Test(.timeLimit(.minutes(1)))
    func liveTestsAreIgnoredAndMalformedPayloadsCountedWithoutLosingTheRest() async throws {
        let block = try await fixtureBlocks()[1]
        #expect(block.skipped.tests == 2, "podping-livetest and pplt_…")
        #expect(block.skipped.malformed == 2, "a cut-off JSON string and a JSON array")
        #expect(block.notices.count == 1)
        #expect(block.notices.first?.reason == "live")
        #expect(block.notices.first?.medium == "music")
        #expect(block.notices.first?.iris == ["https://live.example.org/feed"])
    }

    @Test func aBlockNotProducedYetEndsTheRangeWithoutAnError() throws {
        let block = #"{"timestamp":"2024-11-26T00:41:03","block_id":"055f2cc1ab","transactions":[]}"#
        for missing in ["{}", "null"] {
            let data = Data(#"{"blocks":[\#(block),\#(missing),\#(block)]}"#.utf8)
            let blocks = try HiveBlockDecoder.blocks(fromRangeResult: data, firstNumber: 90_123_457)
            #expect(blocks.map(\.number) == [90_123_457])
        }
        #expect(throws: HiveDecodingError.self) {
            try HiveBlockDecoder.blocks(fromRangeResult: Data("<html>busy</html>".utf8), firstNumber: 1)
        }
    }

    @Test func numbersThatDoNotFitSixtyFourBitsAreSkippedUnread() throws {
        let json =
            #"{"version":"1.1","medium":"podcast","reason":"update","iris":["https://a.example/rss"],"sessionId":340282366920938463463374607431768211455,"timestampNs":1.8e400}"#
        let notice = try HiveBlockDecoder.notice(
            operationID: "pp_podcast_update", senders: ["podping.aaa"], json: json, blockNumber: 1,
            blockTime: Date(timeIntervalSince1970: 0), transactionID: nil
        ).get()
        #expect(notice.iris == ["https://a.example/rss"])
    }

    @Test func aPayloadTooLargeOrNamingTooManyFeedsIsSkipped() {
        let many = (0..<5000).map { "\"https://feeds.example.org/\($0).xml\"" }.joined(separator: ",")
        let tooMany = HiveBlockDecoder.notice(
            operationID: "pp_podcast_update", senders: ["podping.aaa"], json: "{\"iris\":[\(many)]}",
            blockNumber: 1, blockTime: Date(), transactionID: nil, limits: PodpingLimits(maxPayloadBytes: 1 << 20))
        #expect(tooMany == .failure(.tooManyIRIs))
        let huge = HiveBlockDecoder.notice(
            operationID: "pp_podcast_update", senders: ["podping.aaa"], json: "{\"iris\":[\(many)]}",
            blockNumber: 1, blockTime: Date(), transactionID: nil)
        #expect(huge == .failure(.tooLarge))
        let empty = HiveBlockDecoder.notice(
            operationID: "podping", senders: [], json: "{\"version\":\"1.0\"}", blockNumber: 1, blockTime: Date(),
            transactionID: nil)
        #expect(empty == .failure(.malformed))
    }

    @Test(arguments: [
        ("podping", HiveBlockDecoder.OperationKind.podping), ("pp_podcast_update", .podping),
        ("pp_video_live", .podping), ("podping-livetest", .liveTest), ("pplt_podcast_update", .liveTest),
        ("follow", .foreign), ("ssc-mainnet-hive", .foreign), ("podpingx", .foreign),
    ])
    func operationIDsAreToldApart(id: String, kind: HiveBlockDecoder.OperationKind) {
        #expect(HiveBlockDecoder.kind(ofOperationID: id) == kind)
    }

    @Test func theChainsTimeIsUTC() {
        #expect(HiveBlockDecoder.chainTime("1970-01-01T00:00:00") == Date(timeIntervalSince1970: 0))
        #expect(HiveBlockDecoder.chainTime("2024-11-26T00:41:03") == Date(timeIntervalSince1970: 1_732_581_663))
        #expect(HiveBlockDecoder.chainTime("2024-02-29T12:00:00Z") == Date(timeIntervalSince1970: 1_709_208_000))
        #expect(HiveBlockDecoder.chainTime("yesterday") == nil)
        #expect(HiveBlockDecoder.chainTime("2024-13-01T00:00:00") == nil)
    }
}
