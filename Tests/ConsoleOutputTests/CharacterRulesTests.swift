import ConsoleOutput
import Testing

@testable import FeedParsing

/// The one table of special characters (``CharacterRules``) against Unicode's own data, and its three users (terminal
/// text, JSON, feed text cleaning) against the table: each handles exactly the characters the table names.
struct CharacterRulesTests {
    /// Every scalar value but the surrogates.
    static let allScalars: [Unicode.Scalar] = (0..<0x11_0000).compactMap(Unicode.Scalar.init(_:))

    /// The scalars the users are checked on one by one: the first planes' worth of scripts, punctuation and format
    /// characters (every character of the table lies in it), and the specials block.
    static let sampleScalars: [Unicode.Scalar] = allScalars.filter {
        $0.value < 0x3000 || (0xFE00...0xFFFF).contains($0.value)
    }

    @Test func theClassesAreUnicodesOwn() {
        // Mismatches are collected (one expectation each) so a wrong range reports its values, not a million issues.
        var control: [UInt32] = []
        var bidi: [UInt32] = []
        var separator: [UInt32] = []
        var parts: [UInt32] = []
        var xml: [UInt32] = []
        for scalar in Self.allScalars {
            let properties = scalar.properties
            let value = scalar.value
            if CharacterRules.isControl(value) != (properties.generalCategory == .control) { control.append(value) }
            if CharacterRules.isBidiControl(value) != properties.isBidiControl { bidi.append(value) }
            if CharacterRules.isLineOrParagraphSeparator(value)
                != [.lineSeparator, .paragraphSeparator].contains(properties.generalCategory)
            {
                separator.append(value)
            }
            if CharacterRules.isControl(value)
                != (CharacterRules.isC0Control(value) || CharacterRules.isDelete(value)
                    || CharacterRules.isC1Control(value))
            {
                parts.append(value)
            }
            if CharacterRules.isXMLForbiddenControl(value)
                != (CharacterRules.isC0Control(value) && !CharacterRules.isWhitespaceControl(value))
            {
                xml.append(value)
            }
        }
        #expect(control.isEmpty, "isControl differs from General_Category=Cc at \(control.prefix(10).map { hex($0) })")
        #expect(bidi.isEmpty, "isBidiControl differs from Bidi_Control at \(bidi.prefix(10).map { hex($0) })")
        #expect(
            separator.isEmpty,
            "isLineOrParagraphSeparator differs from Zl/Zp at \(separator.prefix(10).map { hex($0) })")
        #expect(parts.isEmpty, "isControl is not C0 + DEL + C1 at \(parts.prefix(10).map { hex($0) })")
        #expect(xml.isEmpty, "isXMLForbiddenControl is not C0 but whitespace at \(xml.prefix(10).map { hex($0) })")
        #expect(
            Self.allScalars.filter { CharacterRules.isWhitespaceControl($0.value) }.map(\.value) == [0x09, 0x0A, 0x0D])
    }

    @Test func theFastPathsLeadBytesAreExactlyTheLeadBytesOfTheTablesCharacters() {
        let listed = Self.allScalars.filter { scalar in
            CharacterRules.isControl(scalar) || CharacterRules.isBidiControl(scalar)
                || CharacterRules.isLineOrParagraphSeparator(scalar)
        }
        let leads = Set(listed.compactMap { String($0).utf8.first })
        let flagged = Set((0...255).map(UInt8.init).filter(CharacterRules.mayStartListedCharacter))
        #expect(
            flagged == leads,
            "flagged but not a lead: \(flagged.subtracting(leads)), missed: \(leads.subtracting(flagged))")
    }

    @Test func aScalarIsDecodedFromItsUTF8() {
        for scalar in Self.allScalars where scalar.value < 0x1_0000 {
            let bytes = Array(String(scalar).utf8)
            bytes.withUnsafeBufferPointer { buffer in
                #expect(CharacterRules.scalarValue(buffer, at: 0) == scalar.value, "U+\(hex(scalar.value))")
                #expect(
                    CharacterRules.isC1Control(buffer, at: 0) == CharacterRules.isC1Control(scalar.value),
                    "U+\(hex(scalar.value))")
                if buffer.count > 1 {
                    let cut = UnsafeBufferPointer(rebasing: buffer.dropLast())
                    #expect(CharacterRules.scalarValue(cut, at: 0) == nil)
                    #expect(!CharacterRules.isC1Control(cut, at: 0))
                }
            }
            if bytes.count == 2 {
                #expect(
                    CharacterRules.isC1Control(lead: bytes[0], second: bytes[1])
                        == CharacterRules.isC1Control(scalar.value))
            }
        }
    }

    @Test func terminalTextDropsExactlyTheTablesControlsAndBidiControls() {
        for scalar in Self.sampleScalars {
            let text = "a\(Character(scalar))b"
            let handled = CharacterRules.isControl(scalar) || CharacterRules.isBidiControl(scalar)
            let sanitized = TerminalText.sanitize(text)
            #expect((sanitized != text) == handled, "U+\(hex(scalar.value)): \(sanitized.debugDescription)")
            if handled {
                #expect(!sanitized.unicodeScalars.contains(scalar), "U+\(hex(scalar.value)) reached the terminal")
            }
        }
    }

    @Test func jsonEscapesExactlyTheTablesCharactersBesidesQuoteAndBackslash() {
        for scalar in Self.sampleScalars {
            let text = "a\(Character(scalar))b"
            let listed =
                CharacterRules.isControl(scalar) || CharacterRules.isBidiControl(scalar)
                || CharacterRules.isLineOrParagraphSeparator(scalar)
            let handled = listed || scalar == "\"" || scalar == "\\"
            let serialized = JSONValue.string(text).serialized()
            #expect((serialized != "\"\(text)\"") == handled, "U+\(hex(scalar.value)): \(serialized)")
            if listed {
                #expect(
                    !serialized.unicodeScalars.dropFirst().dropLast().contains(scalar),
                    "U+\(hex(scalar.value)) unescaped")
            }
        }
    }

    @Test func feedTextCleaningTouchesExactlyTheTablesForbiddenControlsDeleteAndC1() {
        for scalar in Self.sampleScalars {
            let text = "a\(Character(scalar))b"
            let value = scalar.value
            let handled =
                CharacterRules.isXMLForbiddenControl(value) || CharacterRules.isDelete(value)
                || CharacterRules.isC1Control(value)
            let cleaned = TextCleaning.clean(text)
            #expect((cleaned != text) == handled, "U+\(hex(value)): \(cleaned.debugDescription)")
            #expect(TextCleaning.isForbidden(scalar) == handled, "U+\(hex(value))")
        }
    }

    @Test func terminalTextAndJSONAgreeOnTheBidiControls() {
        let bidi = Self.allScalars.filter(CharacterRules.isBidiControl)
        #expect(!bidi.isEmpty)
        for scalar in bidi {
            let text = "x\(Character(scalar))y"
            #expect(TerminalText.sanitize(text) == "xy", "U+\(hex(scalar.value)) kept for the terminal")
            #expect(
                JSONValue.string(text).serialized() == "\"x\\u\(hex(scalar.value, width: 4))y\"",
                "U+\(hex(scalar.value))")
            // Feed text keeps them: only output removes or escapes them.
            #expect(TextCleaning.clean(text) == text)
        }
    }

    private func hex(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
