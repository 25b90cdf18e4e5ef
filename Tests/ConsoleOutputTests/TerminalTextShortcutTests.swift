import Testing

@testable import ConsoleOutput

/// The shortcut for text that needs no cleaning agrees with the scalar-by-scalar rule.
struct TerminalTextShortcutTests {
    @Test func textTheShortcutPassesIsTextTheFullRuleLeavesAlone() {
        let pieces = [
            "Episode", " ", "  ", "\t", "\n", "\u{1B}[31m", "\u{1B}]0;title\u{07}", "\u{85}", "\u{9B}", "\u{7F}",
            "\u{202E}",
            "\u{2067}", "\u{200F}", "\u{061C}", "é", "東京", "🎙️", "—", "\u{2028}", "’", "x", "#42:",
        ]
        var state: UInt64 = 3
        var shortcuts = 0
        for _ in 0..<5_000 {
            var text = ""
            for _ in 0..<8 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                if state >> 61 < 3 { text += pieces[Int((state >> 33) % UInt64(pieces.count))] }
            }
            if TerminalText.isAlreadySafe(text) {
                shortcuts += 1
                #expect(
                    TerminalText.sanitizeScalars(text) == text,
                    "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            }
            #expect(TerminalText.sanitize(text) == TerminalText.sanitizeScalars(text))
        }
        #expect(shortcuts > 100)
    }
}
