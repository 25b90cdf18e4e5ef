#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How many columns text takes on a terminal, and how to make it fit: cut with "…" or wrapped, never inside a
/// grapheme cluster (a letter with its accents, a flag, a family emoji stays whole).
///
/// A character is as wide as a terminal draws it: East Asian wide and fullwidth characters (CJK, Hangul, kana,
/// fullwidth forms) and emoji shown as pictures take two columns, a cluster of only zero-width marks none, the rest
/// one. Text should already be sanitised (``TerminalText/sanitize(_:)``): controls are not measured.
public enum TerminalWidth {
    /// The width of the terminal on standard output, or nil when standard output is not a terminal (a pipe, a file).
    ///
    /// Asks the terminal (`TIOCGWINSZ`); when it does not say, `$COLUMNS`; else 80.
    public static func ofStandardOutput(environment: [String: String]) -> Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        return columns(environment: environment)
    }

    /// The width of the terminal on standard output (`TIOCGWINSZ`), else `$COLUMNS`, else 80; for a caller that
    /// already knows standard output is a terminal.
    public static func columns(environment: [String: String]) -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    /// The columns `text` takes.
    public static func of(_ text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += of(character: character) }
        return total
    }

    /// The columns one grapheme cluster takes: 2 for a wide or emoji character, 0 for zero-width marks alone, else 1.
    public static func of(character: Character) -> Int {
        if character.isASCII { return 1 }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.allSatisfy(isZeroWidth) { return 0 }
        if isWide(first.value) { return 2 }
        // An emoji drawn as a picture: one that is by default, or any emoji asked to be (VS16), or a flag pair.
        if first.properties.isEmojiPresentation { return 2 }
        if scalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
        if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }
        return 1
    }

    /// Combining marks, joiners and other characters a terminal draws in no column of their own.
    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return scalar.value == 0x200B || (0xFE00...0xFE0F).contains(scalar.value)
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode's EastAsianWidth.txt, as terminals draw them.
    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
            0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
            0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF,
            0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `columns` columns, ending in "…" when cut (whole grapheme clusters only).
    public static func fit(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard of(text) > columns else { return text }
        var result = ""
        var used = 0
        for character in text {
            let width = of(character: character)
            if used + width > columns - 1 { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }

    /// `text` padded with spaces to `columns` columns (text already that wide or wider is left as it is).
    public static func pad(_ text: String, to columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - of(text)))
    }

    /// `text` broken into lines of at most `columns` columns: at spaces where it can, else inside a long word (a
    /// URL), never inside a grapheme cluster. Lines after the first start with `indent` spaces.
    public static func wrap(_ text: String, to columns: Int, indent: Int = 2) -> [String] {
        guard of(text) > columns, columns > indent + 8 else { return [text] }
        var lines: [String] = []
        // The first line keeps the text's own leading spaces.
        let lead = text.prefix { $0 == " " }.count
        var line = String(repeating: " ", count: lead)
        var lineWidth = lead
        let prefix = String(repeating: " ", count: indent)
        func finishLine() {
            var finished = line
            while finished.hasSuffix(" ") { finished.removeLast() }
            lines.append(finished)
            line = prefix
            lineWidth = indent
        }
        for word in text.dropFirst(lead).split(separator: " ", omittingEmptySubsequences: false) {
            let wordWidth = of(word)
            let space = lineWidth > (lines.isEmpty ? lead : indent) ? 1 : 0
            if lineWidth + space + wordWidth <= columns {
                if space == 1 { line += " " }
                line += word
                lineWidth += space + wordWidth
                continue
            }
            if lineWidth > (lines.isEmpty ? lead : indent) { finishLine() }
            // A word longer than a whole line is broken where the line ends.
            for character in word {
                let width = of(character: character)
                if lineWidth + width > columns { finishLine() }
                line.append(character)
                lineWidth += width
            }
        }
        if lineWidth > (lines.isEmpty ? 0 : indent) || lines.isEmpty { finishLine() }
        return lines
    }
}
