/// Eight bytes at a time: SWAR tests on a 64-bit word, each exact (no false positives from carries).
///
/// Swift's SIMD types compile to scalar loops for unsigned byte comparisons on this toolchain, so the hot byte scans
/// (input sanitising, text cleaning) use plain integer arithmetic instead.
enum ByteScan {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080
    static let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// 0x80 in every byte of `word` that is zero.
    @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        ~(((word & lows) &+ lows) | word | lows)
    }

    /// 0x80 in every byte of `word` equal to `byte`.
    @inline(__always)
    static func bytes(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
        zeroBytes(word ^ (ones &* UInt64(byte)))
    }

    /// 0x80 in every byte of `word` below 0x20 (C0 controls, tab, newline and CR included).
    @inline(__always)
    static func controlBytes(_ word: UInt64) -> UInt64 {
        zeroBytes(word & 0xE0E0_E0E0_E0E0_E0E0)
    }

    /// 0x80 in every byte below 0x20 of a word whose bytes are all ASCII (cheaper than ``controlBytes(_:)``).
    @inline(__always)
    static func asciiControlBytes(_ word: UInt64) -> UInt64 {
        ~((word | highs) &- 0x2020_2020_2020_2020) & highs
    }

    /// 0x80 in every DEL (0x7F) byte of a word whose bytes are all ASCII.
    @inline(__always)
    static func asciiDeleteBytes(_ word: UInt64) -> UInt64 {
        (word &+ ones) & highs
    }

    /// True when every byte flagged in `controls` (0x80 per byte, as from ``controlBytes(_:)`` or
    /// ``asciiControlBytes(_:)``) is a tab,
    /// newline or carriage return. Flags are rare (a newline now and then), so they are visited one by one.
    @inline(__always)
    static func onlyWhitespaceControls(_ word: UInt64, _ controls: UInt64) -> Bool {
        var flags = controls
        while flags != 0 {
            let byte = UInt8(truncatingIfNeeded: word >> UInt64(flags.trailingZeroBitCount - 7))
            if byte != 0x0A && byte != 0x09 && byte != 0x0D { return false }
            flags &= flags &- 1
        }
        return true
    }
}
