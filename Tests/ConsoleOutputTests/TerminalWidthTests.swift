import ConsoleOutput
import Testing

struct TerminalWidthTests {
    @Test func wideCharactersAndEmojiTakeTwoColumnsAndMarksNone() {
        #expect(TerminalWidth.of("abc") == 3)
        #expect(TerminalWidth.of("日本語") == 6)
        #expect(TerminalWidth.of("한국") == 4)
        #expect(TerminalWidth.of("ｆｕｌｌ") == 8, "fullwidth forms")
        #expect(TerminalWidth.of("🎙") == 1, "text presentation unless asked")
        #expect(TerminalWidth.of("🎙️") == 2, "VS16 asks for a picture")
        #expect(TerminalWidth.of("😀") == 2)
        #expect(TerminalWidth.of("👨‍👩‍👧") == 2, "one family cluster")
        #expect(TerminalWidth.of("🇫🇷") == 2, "a flag")
        #expect(TerminalWidth.of("e\u{301}") == 1, "a letter with a combining accent")
        #expect(TerminalWidth.of("Café") == 4)
    }

    @Test(arguments: 1...14)
    func fitNeverExceedsTheColumnsNorCutsACluster(columns: Int) {
        let text = "日本👨‍👩‍👧e\u{301}🇫🇷 Podcast 語"
        let fitted = TerminalWidth.fit(text, to: columns)
        #expect(TerminalWidth.of(fitted) <= columns, "\(fitted)")
        let kept = fitted.hasSuffix("…") ? String(fitted.dropLast()) : fitted
        #expect(text.hasPrefix(kept), "whole clusters only: \(fitted)")
        for character in kept { #expect(text.contains(character)) }
    }

    @Test func fitLeavesWhatFitsAlone() {
        #expect(TerminalWidth.fit("日本語", to: 6) == "日本語")
        #expect(TerminalWidth.fit("日本語", to: 5) == "日本…")
        #expect(TerminalWidth.fit("abcdef", to: 4) == "abc…")
    }

    @Test(arguments: [20, 33, 80])
    func wrapKeepsEveryLineWithinTheColumnsAndEveryWord(columns: Int) {
        let text =
            "podfresh: http://127.0.0.1:8080/feeder__antennapod-feeds.opml: not a usable feed: the document is an OPML subscription list, not a feed 日本語のタイトル (import it with `podfresh import FILE`)"
        let lines = TerminalWidth.wrap(text, to: columns, indent: 2)
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { TerminalWidth.of($0) <= columns }, "\(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("  ") })
        let joined = lines.map { $0.trimmingPrefix("  ") }.joined()
        #expect(
            joined.filter { $0 != " " } == text.filter { $0 != " " }, "nothing lost, nothing added but line breaks")
    }
}
