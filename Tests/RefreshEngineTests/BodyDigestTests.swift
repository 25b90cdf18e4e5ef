import FeedFetching
import FeedModels
import FeedParsing
import Foundation
import Testing

@testable import RefreshEngine

/// The digest of a body as it streams, and what a refresh's consumer makes of it (issue #36).
struct BodyDigestTests {
    private func xxh64(_ text: String, pieces: Int = 1) -> UInt64 {
        var stream = XXH64Stream()
        let bytes = Array(text.utf8)
        let size = max(1, (bytes.count + pieces - 1) / pieces)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            bytes[start..<end].withUnsafeBytes { stream.update($0) }
            start = end
        }
        return stream.finalize()
    }

    @Test func itIsXXH64() {
        // The reference implementation's values (xxhsum -H64).
        #expect(xxh64("") == 0xEF46_DB37_51D8_E999)
        #expect(xxh64("abc") == 0x44BC_2CF5_AD77_0999)
    }

    @Test(arguments: [1, 2, 3, 7, 31, 33, 100, 1000])
    func itDoesNotDependOnHowTheBodyWasSplit(pieces: Int) {
        let text = String(repeating: "<item><title>ünïcode and bytes</title></item>\n", count: 37)
        #expect(xxh64(text, pieces: pieces) == xxh64(text))
    }

    @Test func aStoredDigestReadsBackAndAnotherFormIsNone() {
        let digest = BodyDigest(hash: 0xDEAD_BEEF, byteCount: 1234)
        #expect(BodyDigest(storedText: digest.storedText) == digest)
        #expect(BodyDigest(storedText: "sha256:abc") == nil)
        #expect(BodyDigest(storedText: "xxh64:0:deadbeef:1234") == nil, "an older generation is parsed again")
    }

    private func consume(_ text: String, plan: BodyReadPlan) throws -> ReadBody {
        let consumer = FeedParserConsumer(
            head: FeedResponseHead(url: URL(string: "https://a.example/f.xml")!, status: 200),
            options: .init(), plan: plan)
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: 100) {
            try bytes[start..<min(bytes.count, start + 100)].withUnsafeBytes { try consumer.consume($0) }
        }
        return try consumer.finishRead()
    }

    @Test func aBodyIdenticalToTheLastIsNotParsedAndAnyOtherIs() throws {
        let text = "<rss><channel><title>A</title><item><guid>a</guid></item></channel></rss>"
        guard case .parsed(_, .whole(let stored?)) = try consume(text, plan: BodyReadPlan()) else {
            Issue.record("a first body is parsed and its digest kept")
            return
        }
        let last = try #require(BodyDigest(storedText: stored))
        guard case .identical = try consume(text, plan: BodyReadPlan(lastDigest: last)) else {
            Issue.record("the same bytes again are identical")
            return
        }
        let other = text.replacingOccurrences(of: "<title>A</title>", with: "<title>B</title>")
        guard case .parsed(let feed, .whole) = try consume(other, plan: BodyReadPlan(lastDigest: last)) else {
            Issue.record("a body of the same length with other bytes is parsed")
            return
        }
        #expect(feed.title == "B")
        guard case .parsed(let longer, _) = try consume(text + "\n\n", plan: BodyReadPlan(lastDigest: last)) else {
            Issue.record("a longer body is parsed")
            return
        }
        #expect(longer.episodes.count == 1)
    }
}
