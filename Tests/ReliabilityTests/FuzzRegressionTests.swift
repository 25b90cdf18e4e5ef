import FeedParsing
import Foundation
import Testing

/// Inputs the fuzzer once found (Fixtures/fuzz/): each must now end in a feed or a ``FeedParseError``, in bounded time.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/fuzz")

    static var parserInputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix("parser-") }
            .sorted()
    }

    @Test(.timeLimit(.minutes(1)), arguments: parserInputs)
    func aFuzzerFindingParsesToAFeedOrAClearError(_ name: String) throws {
        let data = Array(try Data(contentsOf: Self.folder.appendingPathComponent(name)))
        guard let first = data.first else { return }
        // The same split the harness used: the first byte picks the chunk size.
        let chunk = Int(first) * 37 + 1
        do {
            _ = try parse(Array(data.dropFirst()), chunk: chunk)
        } catch is FeedParseError {
            // A clear error is a fine answer.
        }
    }
}
