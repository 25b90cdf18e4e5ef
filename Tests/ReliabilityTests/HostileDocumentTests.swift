import ConsoleOutput
import FeedParsing
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Parses `bytes` fed `chunk` bytes at a time.
func parse(_ bytes: [UInt8], chunk: Int, options: FeedParserOptions = .init()) throws -> ParsedFeed {
    let parser = FeedParser(baseURL: URL(string: "https://example.org/feed.xml"), options: options)
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunk)
        try bytes[offset..<end].withUnsafeBytes { try parser.parse($0) }
        offset = end
    }
    return try parser.finish()
}

/// The parse result reduced to what must not depend on chunking.
enum ParseResult: Equatable {
    case feed(ParsedFeed)
    case error(FeedParseError.Kind)

    init(_ body: () throws -> ParsedFeed) throws {
        do {
            self = .feed(try body())
        } catch let error as FeedParseError {
            self = .error(error.kind)
        }
    }
}

/// Every piece of text a parsed feed carries (its warnings aside, which may name what was dropped), for "this never
/// shows up" checks.
func allText(_ feed: ParsedFeed) -> String {
    var feed = feed
    feed.warnings = []
    return String(describing: feed)
}

/// Titles and descriptions, scalar-exact (``allText(_:)`` escapes control characters).
func visibleStrings(_ feed: ParsedFeed) -> [String] {
    var strings = [feed.title, feed.description, feed.subtitle, feed.author].compactMap { $0 }
    for episode in feed.episodes {
        strings += [episode.title, episode.description, episode.summary, episode.guid].compactMap { $0 }
    }
    return strings
}

/// Peak resident memory of this process so far (VmHWM), in bytes.
func peakResidentBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return digits.map { $0 * 1024 }
    }
    return nil
}

/// Hostile documents straight through the parser: each ends in a specific error or a recovered feed with warnings,
/// reads nothing and contacts nothing, and gives the same result however the bytes are split.
@Suite("Hostile documents through the parser")
struct HostileDocumentTests {
    @Test(.timeLimit(.minutes(1)), arguments: HostileDocument.catalogue)
    func everyHostileDocumentEndsInASpecificErrorOrARecoveredFeed(_ document: HostileDocument) async throws {
        try await withHostileContext { context in
            let bytes = try document.make(context)

            let results = try [7, 4096, bytes.count].map { chunk in try ParseResult { try parse(bytes, chunk: chunk) } }
            #expect(results.dropFirst().allSatisfy { $0 == results[0] }, "the result depends on chunking")

            switch (results[0], document.expectation) {
            case (.error(let kind), .fails(let kinds)), (.error(let kind), .failsOrRecovers(let kinds)):
                #expect(kinds.contains(kind.rawValue), "\(document): unexpected kind \(kind)")
            case (.feed(let feed), .recoversWithWarnings), (.feed(let feed), .failsOrRecovers):
                #expect(!feed.warnings.isEmpty, "\(document): recovered without a warning")
            case (.feed, .recovers):
                break
            case (let result, let expectation):
                Issue.record("\(document): got \(result), expected \(expectation)")
            }
            if case .feed(let feed) = results[0] {
                let text = allText(feed)
                #expect(!text.contains(context.marker), "\(document): a file or URL was read")
                for forbidden in document.forbidden {
                    #expect(!text.contains(forbidden), "\(document): \(forbidden.debugDescription) survived")
                    #expect(
                        !visibleStrings(feed).contains { $0.contains(forbidden) },
                        "\(document): \(forbidden.debugDescription) survived")
                }
            }
            #expect(context.spyRequests == 0, "\(document): the parser made a network request")
        }
    }

    // MARK: - Entities and DTDs

    @Test(.timeLimit(.minutes(1)))
    func billionLaughsIsNeverExpanded() throws {
        let bytes = try HostileDocument.fixture("billion-laughs.xml")
        switch try ParseResult({ try parse(bytes, chunk: bytes.count) }) {
        case .error(let kind):
            #expect(kind == .entityExpansion || kind == .malformed)
        case .feed(let feed):
            #expect(!allText(feed).contains("lollol"))
            #expect((feed.title ?? "").utf8.count < 100)
            #expect(!feed.warnings.isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aQuadraticBlowUpIsNeverExpanded() throws {
        // 100 kB × 20 000 references would be 2 GB expanded.
        let bytes = HostileDocument.quadraticBlowUp(entityBytes: 100_000, references: 20_000)
        switch try ParseResult({ try parse(bytes, chunk: 64 * 1024) }) {
        case .error(let kind):
            #expect([.entityExpansion, .malformed, .limitExceeded].contains(kind))
        case .feed(let feed):
            let longest = feed.episodes.map { ($0.description ?? "").utf8.count }.max() ?? 0
            #expect(longest <= FeedParserOptions().maxFieldBytes)
            #expect(!feed.warnings.isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anExternalFileEntityIsNeverRead() async throws {
        try await withHostileContext { context in
            let bytes = try HostileDocument.fixture("xxe-file-entity.xml", ["__PATH__": context.secretFile.path])
            if case .feed(let feed) = try ParseResult({ try parse(bytes, chunk: 13) }) {
                #expect(!allText(feed).contains(context.marker))
                #expect(feed.episodes.map(\.id) == ["xxe-1"])
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anExternalURLEntityMakesNoConnection() async throws {
        try await withHostileContext { context in
            let bytes = try HostileDocument.fixture(
                "xxe-url-entity.xml", ["__URL__": context.spy.url("/x").absoluteString])
            if case .feed(let feed) = try ParseResult({ try parse(bytes, chunk: 13) }) {
                #expect(!allText(feed).contains(context.marker))
            }
            // Also at a closed port: nothing to connect to, and the parse still ends at once.
            let closed = try HostileDocument.fixture(
                "xxe-url-entity.xml", ["__URL__": "http://127.0.0.1:\(closedLoopbackPort())/x"])
            _ = try ParseResult { try parse(closed, chunk: closed.count) }
            #expect(context.spyRequests == 0)
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: ["http", "file"])
    func anExternalDTDIsNeitherFetchedNorRead(_ scheme: String) async throws {
        try await withHostileContext { context in
            let dtd = scheme == "http" ? context.spy.url("/evil.dtd").absoluteString : context.dtdFile.absoluteString
            let bytes = try HostileDocument.fixture("dtd-external.xml", ["__DTD__": dtd])
            if case .feed(let feed) = try ParseResult({ try parse(bytes, chunk: 5) }) {
                #expect(!allText(feed).contains(context.marker))
                #expect(feed.episodes.map(\.id) == ["dtd-1"])
            }
            #expect(context.spyRequests == 0)
        }
    }

    // MARK: - Size and shape

    @Test(.timeLimit(.minutes(1)), arguments: [10_000, 200_000])
    func deepNestingIsReadWithoutRecursionAndLosesNoItem(_ depth: Int) throws {
        // SAX push parsing keeps no recursion per element, so depth costs only memory for the element stack: the items
        // around the deep one (and the deep one itself) are all read.
        let bytes = HostileDocument.deepNesting(depth: depth)
        let feed = try parse(bytes, chunk: 4096)
        #expect(feed.episodes.map(\.id) == ["deep-0", "deep-1", "deep-2"])
        #expect(feed.episodes.map(\.title) == ["Before", "Deep", "After"])
    }

    @Test(.timeLimit(.minutes(1)))
    func aMillionItemsStreamToTheEpisodeLimitWithAWarning() throws {
        let options = FeedParserOptions()
        let parser = FeedParser(options: options)
        let head = Array("<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Million</title>\n".utf8)
        try head.withUnsafeBytes { try parser.parse($0) }
        // Stream 1 000 000 items in blocks of 10 000, never holding the whole 50 MB document.
        for block in 0..<100 {
            var text = ""
            text.reserveCapacity(600_000)
            for index in (block * 10_000)..<((block + 1) * 10_000) {
                text += "<item><guid>m\(index)</guid><title>Item \(index)</title></item>\n"
            }
            try Array(text.utf8).withUnsafeBytes { try parser.parse($0) }
        }
        try Array("</channel></rss>\n".utf8).withUnsafeBytes { try parser.parse($0) }
        let feed = try parser.finish()
        #expect(feed.episodes.count == options.maxEpisodes)
        #expect(feed.episodes.first?.id == "m0")
        #expect(
            feed.warnings.contains { $0.reason == .tooManyEpisodes(limit: options.maxEpisodes) },
            "warnings: \(feed.warnings.prefix(5))")
        #expect(feed.warnings.count <= options.maxWarnings + 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func aHundredMegabyteTextNodeIsCutWithAWarningInBoundedMemory() throws {
        let options = FeedParserOptions()
        let parser = FeedParser(options: options)
        let peakBefore = peakResidentBytes()
        try Array(
            "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Big</title><item><guid>big-1</guid><title>"
                .utf8
        )
        .withUnsafeBytes { try parser.parse($0) }
        let megabyte = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        for _ in 0..<100 {
            try megabyte.withUnsafeBytes { try parser.parse($0) }
        }
        try Array("</title></item></channel></rss>\n".utf8).withUnsafeBytes { try parser.parse($0) }
        let feed = try parser.finish()
        let peakAfter = peakResidentBytes()

        let title = try #require(feed.episodes.first?.title)
        #expect(title.utf8.count <= options.maxFieldBytes)
        #expect(title.utf8.count > 0)
        #expect(!feed.warnings.isEmpty)
        if let peakBefore, let peakAfter {
            // Other tests run in parallel in this process, so this is a loose bound: the input was 100 MB.
            let growth = peakAfter - peakBefore
            print("reliability-figure: 100 MB text node, peak RSS growth \(growth / (1 << 20)) MB")
            #expect(growth < 64 << 20, "peak RSS grew by \(growth / (1 << 20)) MB")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func tenThousandEnclosuresAreCutToTheLimitWithAWarning() throws {
        let options = FeedParserOptions()
        let feed = try parse(HostileDocument.manyEnclosures(10_000), chunk: 4096, options: options)
        let episode = try #require(feed.episodes.first)
        #expect(episode.enclosures.count == options.maxItemsPerEpisode)
        #expect(episode.enclosures.first?.url.absoluteString == "https://cdn.example.org/0.mp3")
        #expect(!feed.warnings.isEmpty)
    }

    // MARK: - Content

    @Test(.timeLimit(.minutes(1)))
    func theWarningCapHoldsWhenInputWasRepaired() throws {
        // Found by the parser fuzzer: more warnings than the cap, plus a control character and a byte that is not
        // UTF-8. `maxWarnings` promises the rest are summarised in one final warning, so at most cap + 1 in all.
        var text = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel><title>Cap\u{1}</title>\n"
        for index in 0..<30 { text += "<item><guid>w\(index)</guid><pubDate>not a date</pubDate></item>\n" }
        var bytes = Array(text.utf8)
        bytes += [0x3C, 0x21, 0x2D, 0x2D, 0xFF, 0x2D, 0x2D, 0x3E]  // <!--\xFF-->
        bytes += Array("</channel></rss>\n".utf8)
        let options = FeedParserOptions(maxWarnings: 10)
        let feed = try parse(bytes, chunk: bytes.count, options: options)
        #expect(feed.episodes.count == 30)
        #expect(
            feed.warnings.count <= options.maxWarnings + 1,
            "\(feed.warnings.count) warnings: \(feed.warnings.prefix(3).map(\.reason))")
    }

    @Test(.timeLimit(.minutes(1)))
    func duplicateGuidsAreReportedAsAWarning() throws {
        // The parser keeps every item and warns; the store keeps the first occurrence of a key (see ContainmentTests),
        // so the warning is what tells the user why episodes are missing.
        let feed = try parse(try HostileDocument.fixture("duplicate-guids.xml"), chunk: 100)
        #expect(Set(feed.episodes.map(\.id)) == ["same", "other"])
        #expect(
            feed.warnings.map(\.reason).filter(\.isSharedEpisodeID) == [
                .sharedEpisodeID(first: 1, second: 2, id: "same"), .sharedEpisodeID(first: 1, second: 3, id: "same"),
            ],
            "warnings: \(feed.warnings)")
    }

    @Test(.timeLimit(.minutes(1)))
    func javascriptFileAndDataURLsAreDropped() throws {
        let feed = try parse(try HostileDocument.fixture("hostile-url-schemes.xml"), chunk: 64)
        #expect(feed.link == nil)
        #expect(feed.image == nil)
        let episode = try #require(feed.episodes.first)
        #expect(episode.link == nil)
        #expect(episode.image == nil)
        #expect(episode.transcripts.isEmpty)
        #expect(episode.enclosures.map(\.url.absoluteString) == ["https://cdn.example.org/good.mp3"])
    }

    @Test(.timeLimit(.minutes(1)))
    func absurdDatesAndDurationsBecomeNilNotGarbage() throws {
        let feed = try parse(try HostileDocument.fixture("absurd-dates-durations.xml"), chunk: 31)
        #expect(feed.episodes.count == 7)
        let sane = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 32_503_680_000)  // 1970 … 3000
        for episode in feed.episodes {
            if let published = episode.published {
                #expect(sane.contains(published), "\(episode.id): \(published)")
            }
            if let duration = episode.duration {
                #expect(
                    duration.isFinite && duration >= 0 && duration < 10 * 365 * 86_400, "\(episode.id): \(duration)")
            }
        }
        #expect(feed.episodes.first { $0.id == "t6" }?.published != nil, "a real RFC 822 date still parses")
    }

    @Test(.timeLimit(.minutes(1)))
    func nulBytesNeverReachStoredText() throws {
        let bytes = try HostileDocument.fixture("nul-bytes.xml")
        switch try ParseResult({ try parse(bytes, chunk: 9) }) {
        case .error(let kind):
            #expect(kind == .malformed)
        case .feed(let feed):
            #expect(!visibleStrings(feed).contains { $0.unicodeScalars.contains { $0.value == 0 } })
            #expect(!feed.warnings.isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func terminalEscapesAndBidiOverridesAreRemovedBeforePrinting() throws {
        let bytes = try HostileDocument.fixture("terminal-escapes.xml")
        guard case .feed(let feed) = try ParseResult({ try parse(bytes, chunk: 3) }) else {
            return  // A rejected document prints nothing from the feed at all.
        }
        let strings = visibleStrings(feed)
        #expect(!strings.isEmpty)
        for text in strings {
            let safe = TerminalText.sanitize(text)
            #expect(unsafeTerminalScalars(in: safe).isEmpty, "\(text.debugDescription) → \(safe.debugDescription)")
            #expect(!safe.contains("\n"))
        }
        // The C1 CSI and RLO characters are valid XML, so they do arrive in titles: the sanitiser is what stops them.
        #expect(strings.contains { $0.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E } })
    }

    @Test(arguments: [
        "\u{1B}[2J\u{1B}[31mred", "\u{1B}]0;title\u{07}x", "\u{1B}]8;;http://x\u{1B}\\link", "\u{9B}31m",
        "a\u{202E}b\u{2066}c",
        "\u{0}\u{7}\u{8}\u{7F}", "\u{1B}", "\u{1B}[", "\u{1B}]", "line\nbreak\r\nend",
        String(repeating: "\u{1B}[", count: 1000),
    ])
    func theSanitiserLeavesNothingThatDrivesATerminal(_ text: String) {
        let safe = TerminalText.sanitize(text)
        #expect(unsafeTerminalScalars(in: safe).isEmpty, "\(safe.debugDescription)")
        #expect(!safe.contains("\n"))
    }
}

extension ParseWarning.Reason {
    fileprivate var isSharedEpisodeID: Bool {
        if case .sharedEpisodeID = self { true } else { false }
    }
}
