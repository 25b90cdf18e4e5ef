import FeedParsing
import Foundation
import Testing

/// Malformed inputs in the fuzz harness's shape (Fixtures/fuzz/): each must end in a feed or a ``FeedParseError``, in
/// bounded time, and the same whatever the chunking.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/fuzz")

    static var parserInputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix("parser-") }
            .sorted()
    }

    @Test func theFolderHoldsInputsSoTheRegressionsRun() {
        #expect(Self.parserInputs.count >= 10)
    }

    @Test(.timeLimit(.minutes(1)), arguments: parserInputs)
    func aFuzzerFindingParsesToAFeedOrAClearErrorWhateverTheChunking(_ name: String) throws {
        let data = Array(try Data(contentsOf: Self.folder.appendingPathComponent(name)))
        let first = try #require(data.first, "\(name) is empty")
        // The same split the harness uses: the first byte picks the chunk size.
        let chunk = Int(first) * 37 + 1
        let body = Array(data.dropFirst())

        let chunked = Result { try parse(body, chunk: chunk) }
        let whole = Result { try parse(body, chunk: .max) }

        switch (chunked, whole) {
        case (.success(let chunkedFeed), .success(let wholeFeed)):
            #expect(chunkedFeed == wholeFeed, "\(name): the same feed in \(chunk)-byte chunks as whole")
        case (.failure(let chunkedError), .failure(let wholeError)):
            #expect(chunkedError is FeedParseError, "\(name): \(chunkedError)")
            #expect("\(chunkedError)" == "\(wholeError)", "\(name): the same error in \(chunk)-byte chunks as whole")
        default:
            Issue.record("\(name): \(chunk)-byte chunks gave \(chunked), the whole input \(whole)")
        }
    }
}
