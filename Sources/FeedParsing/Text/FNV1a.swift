/// The 64-bit FNV-1a hash: cheap, stable across runs and platforms (unlike `Hasher`), for identity keys and
/// fingerprints that are stored.
public struct FNV1a: Sendable {
    /// The hash of what was mixed in so far.
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    /// Mixes in one byte.
    @inline(__always)
    public mutating func mix(_ byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01B3
    }

    /// Mixes in a 64-bit word, least significant byte first.
    public mutating func mix(word: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }

    /// Mixes in bytes in order.
    public mutating func mix<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes { mix(byte) }
    }
}
