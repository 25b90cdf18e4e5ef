/// The 64-bit FNV-1a hash: cheap, stable across runs and platforms (unlike `Hasher`), for identity keys and
/// fingerprints that are stored.
///
/// Inlinable so that callers in other modules get a specialised loop: through the generic entry point unspecialised,
/// every byte cost a witness-table call, and fingerprinting episodes took a sixth of a cold refresh's CPU.
public struct FNV1a: Sendable {
    /// The hash of what was mixed in so far.
    public var value: UInt64 { state }

    @usableFromInline var state: UInt64 = 0xcbf2_9ce4_8422_2325

    @inlinable public init() {}

    /// Mixes in one byte.
    @inlinable @inline(__always)
    public mutating func mix(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    /// Mixes in a 64-bit word, least significant byte first.
    @inlinable
    public mutating func mix(word: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }

    /// Mixes in contiguous bytes in order.
    @inlinable
    public mutating func mix(_ bytes: UnsafeBufferPointer<UInt8>) {
        var hash = state
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        state = hash
    }

    /// Mixes in bytes in order.
    @inlinable
    public mutating func mix<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { mix($0) }
        if done == nil { for byte in bytes { mix(byte) } }
    }
}
