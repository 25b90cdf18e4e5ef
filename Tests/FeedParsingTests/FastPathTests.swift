import Foundation
import Testing

@testable import FeedParsing

/// The parser's byte-level fast paths give exactly what the general code gives, or step aside.
struct FastPathTests {
    // MARK: - Dates

    static let dates: [String] = {
        var list: [String] = []
        let zones = [
            "+0000", "-0500", "+0530", "+1400", "+1500", "-0060", "GMT", "gmt", "UT", "UTC", "Z", "EST", "PDT", "",
            "+00:00", "GMTX",
        ]
        for zone in zones {
            for day in ["1", "01", "9", "29", "30", "31", "32", "001"] {
                for month in ["Jan", "feb", "FEB", "Jun", "Sep", "Sept", "Dec", "Foo"] {
                    for weekday in ["", "Wed, ", "wed, ", "Sun, ", "Foo, ", "Wednesday, ", "Wed "] {
                        for time in ["19:20:00", "19:20", "24:00:00", "23:59:60", "7:20:00", "19:61:00"] {
                            let text = "\(weekday)\(day) \(month) 2024 \(time)" + (zone.isEmpty ? "" : " \(zone)")
                            list.append(text)
                        }
                    }
                }
            }
        }
        list += [
            "2024-05-01", "2024-02-30", "2024-05-01T12:00:00Z", "2024-05-01t12:00:00z", "2024-05-01 12:00:00",
            "2024-05-01T12:00:00.123+02:00", "2024-05-01T12:00:00.1234567890123456-05:30", "2024-05-01T12:00:00+15:00",
            "2024-05-01T12:00:00+0200", "2024-05-01T12:00", "2024-05-01T25:00:00Z", "2024-13-01T00:00:00Z",
            "2024-5-1", "2024/05/01 14:33:00", "1999-12-31T23:59:59Z", "0999-01-01", "2024-05-01T12:00:00.Z",
            "Wed, 21 Oct 2026 19:20:00 +0000", "21 Oct 26 19:20:00 +0000", "Wed, 21 Oct 2026 19:20:00 +0000 (UTC)",
            "", "x", "Wed,", "Wed, 21", "Wed, 21 Oct", "Wed, 21 Oct 2026", "Wed, 21 Oct 2026 ", "Wed, 21 Oct 2026 19",
        ]
        return list
    }()

    @Test func commonDateShapesReadAsTheGeneralParserReadsThem() {
        var fast = 0
        for text in Self.dates {
            let quick = Array(text.utf8).withUnsafeBufferPointer { FeedDate.parseCommon($0) }
            guard let quick else { continue }
            fast += 1
            #expect(quick == FeedDate.parse(text), "\(text)")
        }
        // The fast path is taken for the usual shapes, not skipped.
        #expect(fast > 2_000)
        for text in [
            "Wed, 21 Oct 2026 19:20:00 +0000", "1 Jan 2024 00:00 GMT", "2024-05-01T12:00:00.5-05:30", "2024-05-01",
        ] {
            let quick = Array(text.utf8).withUnsafeBufferPointer { FeedDate.parseCommon($0) }
            #expect(quick != nil, "\(text) takes the fast path")
        }
    }

    // MARK: - Durations

    @Test func clockDurationsReadAsTheGeneralParserReadsThem() {
        let samples = [
            "0", "7", "3130", "1014.708", "30:01", "1:02:03", "100:25", "01:00:00:00", ":30", "30:", "1::2",
            "8784:00:00",
            "8784:00:01", "31622400", "31622401", "9999999", "12345678", "-5", "1e3", "٣٠", "00:00:00", "1:2:3",
        ]
        var fast = 0
        for text in samples {
            let quick = Array(text.utf8).withUnsafeBufferPointer { EpisodeDuration.parseClock($0) }
            guard let quick else { continue }
            fast += 1
            #expect(quick == EpisodeDuration.parse(text), "\(text)")
        }
        #expect(fast >= 10)
        for text in ["3130", "30:01", "1:02:03", "100:25"] {
            let quick = Array(text.utf8).withUnsafeBufferPointer { EpisodeDuration.parseClock($0) }
            #expect(quick != nil, "\(text) takes the fast path")
        }
    }

    // MARK: - URLs

    @Test func plainHTTPURLsAreExactlyWhatFoundationKeeps() {
        let accepted = [
            "http://127.0.0.1:18080/media/pod0000/00153.mp3?source=rss",
            "https://example.com", "https://example.com/", "https://a.example.com/x/y.mp3?a=1&b=2#t=10",
            "https://cdn.example.com/%E2%9C%A8/ep.mp3", "https://ex-ample_host.example/~user/(1)!$'*+,;=:@",
            "https://Example.COM/Path",
        ]
        for text in accepted {
            let plain = Array(text.utf8).withUnsafeBufferPointer { URLText.isPlainHTTP($0) }
            #expect(plain, "\(text) is plain")
            #expect(URL(string: text)?.absoluteString == text, "Foundation keeps \(text) as it is")
        }
        let refused = [
            "HTTP://example.com/", "ftp://example.com/", "https://", "https:///path", "https://exa mple.com/",
            "https://example.com/a b", "https://example.com/é", "https://example.com/?a=1&#38;b=2",
            "https://example.com/%ZZ",
            "https://example.com/#a#b", "https://user@example.com/", "https://[::1]/", "https://example.com:99999/",
            " https://example.com/", "https://example.com/\"x\"", "https://example.com/{x}", "https://example.com\\x",
            "javascript:alert(1)", "//example.com/x", "/relative/path",
        ]
        for text in refused {
            let plain = Array(text.utf8).withUnsafeBufferPointer { URLText.isPlainHTTP($0) }
            #expect(!plain, "\(text) goes the slow way")
        }
    }

    @Test func theParsersURLTextRoundTripsThroughFoundation() throws {
        var files = TestFiles.fixtureNames.compactMap { try? TestFiles.fixture($0) }
        files += TestFiles.corpusFiles.filter { !$0.quirks.contains("OPML") }.compactMap {
            try? TestFiles.corpusBytes($0)
        }
        var checked = 0
        for bytes in files {
            guard let feed = try? FeedParser.parse(bytes, baseURL: URL(string: "https://feeds.example.com/feed.xml"))
            else { continue }
            for episode in feed.episodes {
                let texts =
                    [episode.linkString, episode.imageString, episode.chaptersString].compactMap { $0 }
                    + episode.enclosures.map(\.urlString) + episode.transcripts.map(\.urlString)
                    + episode.persons.compactMap(\.hrefString)
                for text in texts {
                    checked += 1
                    #expect(URL(string: text)?.absoluteString == text, "\(text)")
                }
            }
        }
        #expect(checked > 0)
    }

    // MARK: - Text cleaning

    /// The byte-at-a-time rule the word-at-a-time scan must match.
    static func needsCleaningReference(_ bytes: [UInt8], collapse: Bool) -> Bool {
        for i in bytes.indices {
            let b = bytes[i]
            let next = i + 1 < bytes.count ? bytes[i + 1] : nil
            if b < 0x20 && (collapse || !(b == 0x09 || b == 0x0A || b == 0x0D)) { return true }
            if b == 0x7F { return true }
            if b == 0xC2, let next, next >= 0x80 && next <= 0x9F { return true }
            if collapse && b == 0x20, let next, next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D {
                return true
            }
        }
        return false
    }

    @Test func theWordScanFindsEveryCharacterToClean() {
        var generator = SplitMix(seed: 7)
        let pieces: [[UInt8]] = [
            Array("plain words ".utf8), Array("é".utf8), Array("€".utf8), Array("🎙".utf8), [0x20, 0x20], [0x09], [0x0A],
            [0x0D],
            [0x01], [0x1F], [0x7F], [0xC2, 0x85], [0xC2, 0xA0], [0xC2, 0x9F], Array("x".utf8),
            Array("<p>&amp;</p>".utf8),
        ]
        for _ in 0..<4_000 {
            var bytes: [UInt8] = []
            let length = Int(generator.next() % 40)
            for _ in 0..<length {
                // Mostly ordinary text (now and then a lone 0xC2, the lead byte a C1 control shares), sometimes a
                // character to clean, at every offset within a word.
                let pick = Int(generator.next() % 100)
                if pick < 70 {
                    let take = Int(generator.next() % 12) + 1
                    let ordinary = pick % 4 == 0 ? pieces[12] : pieces[0]
                    bytes.append(contentsOf: ordinary.prefix(take))
                } else {
                    bytes.append(contentsOf: pieces[pick % pieces.count])
                }
            }
            for collapse in [false, true] {
                let scanned = bytes.withUnsafeBufferPointer { TextCleaning.needsCleaning($0, collapse: collapse) }
                #expect(
                    scanned == Self.needsCleaningReference(bytes, collapse: collapse), "\(bytes) collapse: \(collapse)")
            }
        }
    }

    @Test func cleaningALineDropsControlsAsIfTheyWereNotThere() {
        #expect(TextCleaning.cleanLine("a \u{1} b") == "a b")
        #expect(TextCleaning.cleanLine("  \u{1} a\u{7F}\u{81} ") == "a")
        // A C1 control is the Windows-1252 character of its byte (U+0085 → "…"); unassigned ones are dropped.
        #expect(TextCleaning.cleanLine("  \u{1} a\u{7F}\u{85} ") == "a…")
        #expect(TextCleaning.cleanLine("\u{93}q\u{94} \u{8D} \u{96} \u{80}") == "“q” – €")
        #expect(TextCleaning.cleanLine("a\t\n b") == "a b")
        #expect(TextCleaning.clean(" a\u{1}\n b ") == "a\n b")
    }

    // MARK: - Strings from bytes

    @Test func longMostlyASCIITextDecodesAsSwiftDecodesIt() {
        var generator = SplitMix(seed: 13)
        let rare: [[UInt8]] = [
            Array("’".utf8), Array("é".utf8), Array("🎙".utf8), Array("東京".utf8), [0xFF], [0xC3], [0xE2, 0x80],
            [0x80, 0x80], [0xF0, 0x9F, 0x8E],
        ]
        for _ in 0..<2_000 {
            var bytes: [UInt8] = []
            let length = Int(generator.next() % 3_000)
            while bytes.count < length {
                if generator.next() % 200 == 0 {
                    bytes += rare[Int(generator.next() % UInt64(rare.count))]
                } else {
                    bytes.append(UInt8(0x20 + generator.next() % 95))
                }
            }
            let decoded = bytes.withUnsafeBufferPointer(TextCleaning.decodedString)
            #expect(decoded == String(decoding: bytes, as: UTF8.self))
            #expect(Array(decoded.utf8) == Array(String(decoding: bytes, as: UTF8.self).utf8))
        }
    }

    // MARK: - Plain summaries

    /// The summary rule, one byte at a time (the implementation copies runs of ordinary bytes a word at a time).
    static func summaryReference(_ html: String, limit: Int) -> String {
        let bytes = Array(html.utf8)
        var out: [UInt8] = []
        var characters = 0
        var lastWasSpace = true
        var cut = false
        var i = 0
        func space() {
            if !lastWasSpace {
                out.append(0x20)
                characters += 1
            }
            lastWasSpace = true
        }
        while i < bytes.count {
            if characters >= limit {
                cut = true
                break
            }
            let byte = bytes[i]
            if byte == 0x3C {
                i += 1
                while i < bytes.count && bytes[i] != 0x3E { i += 1 }
                i += 1
                space()
            } else if byte == 0x26 {
                var j = i + 1
                while j < bytes.count, j - i <= 10,
                    bytes[j] == 0x23 || (bytes[j] >= 0x30 && bytes[j] <= 0x39)
                        || (bytes[j] | 0x20 >= 0x61 && bytes[j] | 0x20 <= 0x7A)
                { j += 1 }
                if j < bytes.count, bytes[j] == 0x3B,
                    let decoded = TextCleaning.decodeEntity(String(decoding: bytes[(i + 1)..<j], as: UTF8.self))
                {
                    if decoded.isWhitespace {
                        space()
                    } else {
                        out += Array(decoded.utf8)
                        characters += 1
                        lastWasSpace = false
                    }
                    i = j + 1
                } else {
                    out.append(0x26)
                    characters += 1
                    lastWasSpace = false
                    i += 1
                }
            } else if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                space()
                i += 1
            } else {
                out.append(byte)
                if byte & 0xC0 != 0x80 { characters += 1 }
                lastWasSpace = false
                i += 1
            }
        }
        if cut {
            while let last = out.last, last & 0xC0 == 0x80 { out.removeLast() }
            if let last = out.last, last >= 0xC0 { out.removeLast() }
            if let space = out.lastIndex(of: 0x20), space > out.count / 2 { out.removeSubrange(space...) }
            out += Array("…".utf8)
        }
        return TextCleaning.cleanLine(String(decoding: out, as: UTF8.self))
    }

    @Test func summariesMatchTheByteAtATimeRule() {
        var generator = SplitMix(seed: 11)
        let pieces = [
            "word", "longerword", "café", "東京", "🎧", " ", "  ", "\n", "<p>", "</p>", "<a href=\"x\">", "&amp;",
            "&nbsp;",
            "&#8217;", "&bogus;", "&", "Zürich", "x", "1966,", "(ok?)", "a-b:c;", "\t", "&#9;", "&#x85;", "&#129;",
            "&#8232;",
        ]
        for _ in 0..<3_000 {
            var html = ""
            for _ in 0..<Int(generator.next() % 60) { html += pieces[Int(generator.next() % UInt64(pieces.count))] }
            for limit in [1, 7, 20, 500] {
                #expect(
                    TextCleaning.plainSummary(html, limit: limit) == Self.summaryReference(html, limit: limit),
                    "\(html) limit \(limit)")
            }
        }
    }
}

/// Show notes kept as bytes until their episode ends never let one item hold more than a few fields' worth of memory.
struct DeferredTextMemoryTests {
    @Test func anItemRepeatingItsShowNotesKeepsMemoryBoundedByTheFieldLimit() throws {
        let options = FeedParserOptions(maxFieldBytes: 64 * 1024)
        let parser = FeedParser(options: options)
        let notes = String(repeating: "show notes ", count: 9_000)  // 99 000 bytes: cut at the limit
        let head = "<rss version=\"2.0\"><channel><title>T</title><item><title>One</title>"
        try Array(head.utf8).withUnsafeBytes { try parser.parse($0) }
        var largest = 0
        for _ in 0..<200 {
            try Array(
                "<description>\(notes)</description><content:encoded xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">\(notes.prefix(30_000))</content:encoded>"
                    .utf8
            )
            .withUnsafeBytes { try parser.parse($0) }
            largest = max(largest, parser.heldTextBytes)
        }
        try Array("</item></channel></rss>".utf8).withUnsafeBytes { try parser.parse($0) }
        let feed = try parser.finish()
        #expect(largest <= 4 * options.maxFieldBytes, "held \(largest) bytes for one item")
        #expect(feed.episodes.count == 1)
        #expect(feed.episodes.first?.description?.hasPrefix("show notes") == true)
        #expect(feed.episodes.first?.summary?.hasPrefix("show notes") == true)
    }
}

/// A small deterministic generator (SplitMix64) so failures reproduce.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
