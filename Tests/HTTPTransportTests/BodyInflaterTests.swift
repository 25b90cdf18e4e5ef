import Foundation
import HTTPTransport
import TestSupport
import Testing

@Suite("A gzip or deflate body decoded as it streams")
struct BodyInflaterTests {
    /// A feed-like body: repetitive XML, so it compresses about as well as a real feed.
    static let original: [UInt8] = Array(
        (1...4000).map { "<item><title>Episode \($0)</title><guid>urn:ep:\($0)</guid></item>\n" }.joined().utf8)

    /// Feeds `encoded` to a new inflater in pieces of `pieceSize` bytes and returns what came out, piece by piece.
    static func decode(
        _ encoded: [UInt8], encoding: String = "gzip", ratio: Int = 1000, pieceSize: Int
    ) throws -> [[UInt8]] {
        let inflater = try #require(BodyInflater(contentEncoding: encoding, ratioLimit: ratio))
        var pieces: [[UInt8]] = []
        var start = 0
        while start < encoded.count {
            let end = min(encoded.count, start + pieceSize)
            try encoded[start..<end].withUnsafeBytes { input in
                try inflater.inflate(input) { pieces.append(Array($0)) }
            }
            start = end
        }
        try inflater.finish()
        return pieces
    }

    @Test(arguments: [1, 7, 4096, 1 << 20])
    func gzipReadInPiecesOfAnySizeComesOutWholeInSmallPieces(pieceSize: Int) async throws {
        let pieces = try Self.decode(try await gzipped(Self.original), pieceSize: pieceSize)
        #expect(Array(pieces.joined()) == Self.original)
        #expect(pieces.allSatisfy { !$0.isEmpty && $0.count <= BodyInflater.pieceSize })
        #expect(pieces.count >= Self.original.count / BodyInflater.pieceSize)
    }

    @Test
    func deflateIsReadWithTheZlibHeaderAndWithoutIt() async throws {
        let zlib = try await deflated(Self.original)
        #expect(Array(try Self.decode(zlib, encoding: "deflate", pieceSize: 1000).joined()) == Self.original)
        // Raw deflate (no zlib header or checksum), as some servers send for `deflate`.
        let raw = Array(zlib[2..<(zlib.count - 4)])
        #expect(Array(try Self.decode(raw, encoding: "deflate", pieceSize: 1000).joined()) == Self.original)
    }

    @Test
    func theEncodingIsReadAsHTTPWritesItAndAnythingElseIsPassedThrough() {
        #expect(BodyInflater(contentEncoding: " GZIP ", ratioLimit: 10) != nil)
        #expect(BodyInflater(contentEncoding: "x-gzip", ratioLimit: 10) != nil)
        #expect(BodyInflater(contentEncoding: "Deflate", ratioLimit: 10) != nil)
        #expect(BodyInflater(contentEncoding: nil, ratioLimit: 10) == nil)
        #expect(BodyInflater(contentEncoding: "identity", ratioLimit: 10) == nil)
        #expect(BodyInflater(contentEncoding: "br", ratioLimit: 10) == nil)
    }

    @Test
    func aBodyCutBeforeTheEndOfItsStreamIsTruncated() async throws {
        let gzip = try await gzipped(Self.original)
        #expect(throws: BodyInflater.Failure.truncated) {
            _ = try Self.decode(Array(gzip.prefix(gzip.count / 2)), pieceSize: 512)
        }
    }

    @Test
    func bytesAfterTheEndOfTheStreamOrBytesThatAreNotGzipAreCorrupt() async throws {
        let gzip = try await gzipped(Self.original)
        #expect(throws: BodyInflater.Failure.corrupt) { _ = try Self.decode(gzip + [1, 2, 3], pieceSize: 512) }
        #expect(throws: BodyInflater.Failure.corrupt) { _ = try Self.decode(gzip + [1, 2, 3], pieceSize: 1 << 20) }
        #expect(throws: BodyInflater.Failure.corrupt) {
            _ = try Self.decode(Array("<rss>not gzip at all</rss>".utf8), pieceSize: 512)
        }
    }

    @Test
    func aConsumerThatHasReadEnoughStopsTheRestOfTheInputFromBeingInflated() async throws {
        let encoded = try await gzipped(Self.original)
        let inflater = try #require(BodyInflater(contentEncoding: "gzip", ratioLimit: 1000))
        var pieces: [[UInt8]] = []
        // The whole body in one read, as a fast connection hands it on; the consumer wants two pieces of it.
        try encoded.withUnsafeBytes { input in
            try inflater.inflate(input, while: { pieces.count < 2 }) { pieces.append(Array($0)) }
        }
        #expect(Self.original.count > 4 * BodyInflater.pieceSize)
        #expect(pieces.count == 2)
        #expect(Array(pieces.joined()) == Array(Self.original.prefix(pieces.joined().count)))
    }

    @Test
    func aBodyThatExpandsBeyondTheRatioStopsThere() async throws {
        let zeros = try await gzipped([UInt8](repeating: 0, count: 4 << 20))
        var handedOn = 0
        let inflater = try #require(BodyInflater(contentEncoding: "gzip", ratioLimit: 100))
        #expect(throws: BodyInflater.Failure.expandsTooMuch(ratio: 100)) {
            try zeros.withUnsafeBytes { try inflater.inflate($0) { handedOn += $0.count } }
        }
        #expect(handedOn <= zeros.count * 100, "nothing past the limit is handed on")
        #expect(Array(try Self.decode(zeros, ratio: 2000, pieceSize: 4096).joined()).count == 4 << 20)
    }
}
