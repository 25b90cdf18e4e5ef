import Foundation
import TestSupport

/// Everything a hostile document may point at, made fresh per test: a listening "spy" server that must never be
/// contacted, a secret file that must never be read, and an external DTD that must never be loaded.
final class HostileContext: Sendable {
    /// Every property is a `let` set in `init`, and the spy server is itself thread-safe.
    let spy: TestHTTPServer
    let directory: URL
    /// A unique string inside the secret file and the external DTD: if it ever shows up in output, something was read.
    let marker: String
    let secretFile: URL
    let dtdFile: URL

    fileprivate init(spy: TestHTTPServer) throws {
        self.spy = spy
        marker = "LEAKED-\(UUID().uuidString)"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        secretFile = directory.appendingPathComponent("secret.txt")
        try Data("\(marker)\n".utf8).write(to: secretFile)
        dtdFile = directory.appendingPathComponent("evil.dtd")
        try Data("<!ENTITY marker \"\(marker)\">\n".utf8).write(to: dtdFile)
        // If anything does fetch from the spy, give it something that would leak the marker too.
        spy.setRoute(
            "/evil.dtd", .ok(body: Array("<!ENTITY marker \"\(marker)\">\n".utf8), contentType: "application/xml-dtd"))
        spy.setRoute("/x", .ok(body: Array(marker.utf8), contentType: "text/plain"))
        spy.setRoute("/x-param", .ok(body: Array("<!ENTITY remote \"\(marker)\">".utf8), contentType: "text/plain"))
    }

    /// How many requests reached the spy server (there must be none).
    var spyRequests: Int { spy.requests.count }
}

/// Runs `body` with a fresh ``HostileContext``, then stops its spy server and removes its files however `body` ends.
func withHostileContext<R>(_ body: (HostileContext) async throws -> R) async throws -> R {
    try await withTestHTTPServer { spy in
        let context = try HostileContext(spy: spy)
        defer { try? FileManager.default.removeItem(at: context.directory) }
        return try await body(context)
    }
}

// MARK: - Hostile answers

/// The answers the reliability tests serve, sent exactly as given (never gzipped), so a declared `Content-Length`, a
/// cut or stalled body, or a gzip bomb reaches the client byte for byte.
extension TestResponse {
    /// 200 with these bytes and a correct `Content-Length`, or the given fault while sending them.
    static func ok(body: [UInt8], contentType: String = "application/rss+xml", fault: TestFault? = nil) -> TestResponse
    {
        TestResponse(
            status: 200, headers: [("Content-Type", contentType)], body: body, fault: fault, compressible: false)
    }

    /// Any status, headers and body, with a correct `Content-Length`.
    static func status(_ status: Int, headers: [(String, String)] = [], body: [UInt8] = []) -> TestResponse {
        TestResponse(status: status, headers: headers, body: body, compressible: false)
    }

    /// A 3xx to `location`, sent as is (an absolute URL, or any text a hostile server might send).
    static func redirect(status: Int, location: String) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)], compressible: false)
    }
}

/// One hostile document and what podfresh must do with it.
struct HostileDocument: Sendable, CustomStringConvertible {
    /// How a refresh of this document may end.
    enum Expectation: Sendable {
        /// The feed fails with one of these kinds; its stored episodes are untouched.
        case fails(kinds: Set<String>)
        /// The feed is recovered (stored) and the outcome carries at least one warning.
        case recoversWithWarnings
        /// The feed is recovered; warnings are optional (the document is odd, not broken).
        case recovers
        /// Either a failure of these kinds or a recovery with warnings: both keep the database right.
        case failsOrRecovers(kinds: Set<String>)
    }

    let name: String
    let expectation: Expectation
    /// The bytes, possibly pointing at the context's spy server and files.
    let make: @Sendable (HostileContext) throws -> [UInt8]
    /// Text that must appear nowhere in what is stored or printed (beyond the context's marker).
    var forbidden: [String] = []

    var description: String { name }

    /// Every document of the catalogue small enough to serve in a containment test.
    static let catalogue: [HostileDocument] = [
        HostileDocument(
            name: "billion laughs", expectation: .failsOrRecovers(kinds: ["entity-expansion", "malformed"]),
            make: { _ in try fixture("billion-laughs.xml") }, forbidden: ["lollollollollol"]),
        HostileDocument(
            name: "quadratic blow-up",
            expectation: .failsOrRecovers(kinds: ["entity-expansion", "malformed", "limit-exceeded"]),
            make: { _ in quadraticBlowUp(entityBytes: 100_000, references: 20_000) },
            forbidden: ["QQQQQQQQQQQQQQQQQQQQ"]),
        HostileDocument(
            name: "XXE file entity", expectation: .failsOrRecovers(kinds: ["malformed"]),
            make: { context in try fixture("xxe-file-entity.xml", ["__PATH__": context.secretFile.path]) }),
        HostileDocument(
            name: "XXE URL entity", expectation: .failsOrRecovers(kinds: ["malformed"]),
            make: { context in try fixture("xxe-url-entity.xml", ["__URL__": context.spy.url("/x").absoluteString]) }),
        HostileDocument(
            name: "external DTD over HTTP", expectation: .failsOrRecovers(kinds: ["malformed"]),
            make: { context in try fixture("dtd-external.xml", ["__DTD__": context.spy.url("/evil.dtd").absoluteString])
            }),
        HostileDocument(
            name: "external DTD from a file", expectation: .failsOrRecovers(kinds: ["malformed"]),
            make: { context in try fixture("dtd-external.xml", ["__DTD__": context.dtdFile.absoluteString]) }),
        HostileDocument(
            name: "10 000-deep nesting", expectation: .recovers,
            make: { _ in deepNesting(depth: 10_000) }),
        HostileDocument(
            name: "NUL bytes", expectation: .failsOrRecovers(kinds: ["malformed"]),
            make: { _ in try fixture("nul-bytes.xml") }, forbidden: ["\u{0}"]),
        HostileDocument(
            name: "terminal escapes and bidi overrides", expectation: .failsOrRecovers(kinds: ["malformed"]),
            make: { _ in try fixture("terminal-escapes.xml") }),
        HostileDocument(
            name: "absurd dates and durations", expectation: .recovers,
            make: { _ in try fixture("absurd-dates-durations.xml") }),
        HostileDocument(
            name: "10 000 enclosures on one item", expectation: .recoversWithWarnings,
            make: { _ in manyEnclosures(10_000) }),
        HostileDocument(
            name: "duplicate guids", expectation: .recovers,
            make: { _ in try fixture("duplicate-guids.xml") }),
        HostileDocument(
            name: "javascript, file and data URLs", expectation: .recovers,
            make: { _ in try fixture("hostile-url-schemes.xml") },
            // Whole URLs: a warning may say "ignored a javascript: URL", which is fine to print.
            forbidden: ["javascript:alert", "JaVaScRiPt:alert", "file:///etc", "data:audio", "data:image"]),
    ]

    // MARK: - Generators (huge documents are generated, never committed)

    static let fixtures: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String, _ replacements: [String: String] = [:]) throws -> [UInt8] {
        let bundled = Bundle.module.resourceURL?.appendingPathComponent("Fixtures").appendingPathComponent(name)
        let url =
            bundled.flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }
            ?? fixtures.appendingPathComponent(name)
        var data = try Data(contentsOf: url)
        for (placeholder, value) in replacements {
            guard var text = String(data: data, encoding: .utf8) else { break }
            text = text.replacingOccurrences(of: placeholder, with: value)
            data = Data(text.utf8)
        }
        return Array(data)
    }

    /// One big internal entity referenced many times: `entityBytes × references` bytes if expanded.
    static func quadraticBlowUp(entityBytes: Int, references: Int) -> [UInt8] {
        var text =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE rss [<!ENTITY q \"" + String(repeating: "Q", count: entityBytes)
            + "\">]>\n"
        text +=
            "<rss version=\"2.0\"><channel><title>Quadratic</title><item><guid>quad-1</guid><title>Q</title><description>"
        text += String(repeating: "&q;", count: references)
        text += "</description></item></channel></rss>\n"
        return Array(text.utf8)
    }

    /// A valid feed whose one item holds `depth` nested unknown elements.
    static func deepNesting(depth: Int) -> [UInt8] {
        var text = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Deep</title>"
        text += "<item><guid>deep-0</guid><title>Before</title></item><item><guid>deep-1</guid><title>Deep</title>"
        text += String(repeating: "<x>", count: depth) + "bottom" + String(repeating: "</x>", count: depth)
        text += "</item><item><guid>deep-2</guid><title>After</title></item></channel></rss>\n"
        return Array(text.utf8)
    }

    /// One item with `count` enclosures.
    static func manyEnclosures(_ count: Int) -> [UInt8] {
        var text =
            "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Enclosures</title><item><guid>many</guid><title>Many</title>"
        for index in 0..<count {
            text +=
                "<enclosure url=\"https://cdn.example.org/\(index).mp3\" length=\"\(index + 1)\" type=\"audio/mpeg\"/>"
        }
        text += "</item></channel></rss>\n"
        return Array(text.utf8)
    }
}
