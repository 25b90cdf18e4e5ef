/// The digest of a feed's body as it streams: XXH64 over the bytes the parser is given (after gzip or deflate are
/// undone), with their count. Stored with the subscription after a body was read whole, it tells the next body that
/// is identical without parsing it (issue #36).
///
/// Why XXH64 and 64 bits: it reads 32 bytes a round at several GB/s, so digesting a body costs a small fraction of
/// receiving it, where SHA-256 in software would cost about as much as parsing. It is not meant to resist a forger,
/// and need not: a server that wanted podfresh to keep its old episodes could simply send the old body. Against chance,
/// two different bodies of the same length share a 64-bit digest with a probability of 2⁻⁶⁴ per comparison. The
/// inflated bytes, not the bytes on the wire, so that a server compressing the same feed differently (another level,
/// another gzip header time) still matches.
struct BodyDigest: Sendable, Hashable {
    /// Bump when the parser reads the same bytes differently, so that a body unchanged since an older podfresh read
    /// it is parsed once again rather than taken as identical.
    static let generation = 1

    let hash: UInt64
    let byteCount: Int

    /// As stored: `xxh64:<generation>:<hex>:<byte count>`.
    var storedText: String {
        "xxh64:\(Self.generation):\(String(hash, radix: 16)):\(byteCount)"
    }

    init(hash: UInt64, byteCount: Int) {
        self.hash = hash
        self.byteCount = byteCount
    }

    /// A stored digest; nil for another form or an older generation.
    init?(storedText: String?) {
        guard let parts = storedText?.split(separator: ":"), parts.count == 4, parts[0] == "xxh64",
            parts[1] == "\(Self.generation)", let hash = UInt64(parts[2], radix: 16), let count = Int(parts[3])
        else { return nil }
        self.init(hash: hash, byteCount: count)
    }
}

/// XXH64 (Yann Collet's xxHash, 64-bit, seed 0), fed in pieces of any size: the result does not depend on how the
/// bytes were split.
struct XXH64Stream {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private var v1: UInt64 = prime1 &+ prime2
    private var v2: UInt64 = prime2
    private var v3: UInt64 = 0
    private var v4: UInt64 = 0 &- prime1
    /// Bytes not yet a whole 32-byte stripe.
    private var pending: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var pendingCount = 0
    private(set) var byteCount = 0

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        var acc = accumulator &+ input &* prime2
        acc = (acc << 31) | (acc >> 33)
        return acc &* prime1
    }

    @inline(__always)
    private static func merge(_ accumulator: UInt64, _ value: UInt64) -> UInt64 {
        let acc = accumulator ^ round(0, value)
        return acc &* prime1 &+ prime4
    }

    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        byteCount += bytes.count
        var offset = 0
        if pendingCount > 0 {
            let take = min(32 - pendingCount, bytes.count)
            withUnsafeMutableBytes(of: &pending) { stripe in
                stripe.baseAddress!.advanced(by: pendingCount).copyMemory(from: bytes.baseAddress!, byteCount: take)
            }
            pendingCount += take
            offset = take
            guard pendingCount == 32 else { return }
            withUnsafeBytes(of: pending) { stripe in consumeStripe(stripe, 0) }
            pendingCount = 0
        }
        while bytes.count - offset >= 32 {
            consumeStripe(bytes, offset)
            offset += 32
        }
        let rest = bytes.count - offset
        if rest > 0 {
            withUnsafeMutableBytes(of: &pending) { stripe in
                stripe.baseAddress!.copyMemory(from: bytes.baseAddress!.advanced(by: offset), byteCount: rest)
            }
            pendingCount = rest
        }
    }

    @inline(__always)
    private mutating func consumeStripe(_ bytes: UnsafeRawBufferPointer, _ offset: Int) {
        v1 = Self.round(v1, Self.word(bytes, offset))
        v2 = Self.round(v2, Self.word(bytes, offset + 8))
        v3 = Self.round(v3, Self.word(bytes, offset + 16))
        v4 = Self.round(v4, Self.word(bytes, offset + 24))
    }

    /// The digest of every byte given so far.
    func finalize() -> UInt64 {
        var hash: UInt64
        if byteCount >= 32 {
            hash =
                ((v1 << 1) | (v1 >> 63)) &+ ((v2 << 7) | (v2 >> 57)) &+ ((v3 << 12) | (v3 >> 52))
                &+ ((v4 << 18) | (v4 >> 46))
            hash = Self.merge(hash, v1)
            hash = Self.merge(hash, v2)
            hash = Self.merge(hash, v3)
            hash = Self.merge(hash, v4)
        } else {
            hash = Self.prime5
        }
        hash = hash &+ UInt64(byteCount)
        withUnsafeBytes(of: pending) { tail in
            var offset = 0
            while pendingCount - offset >= 8 {
                let k1 = Self.round(0, Self.word(tail, offset))
                hash ^= k1
                hash = ((hash << 27) | (hash >> 37)) &* Self.prime1 &+ Self.prime4
                offset += 8
            }
            if pendingCount - offset >= 4 {
                let word = UInt64(UInt32(littleEndian: tail.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                hash ^= word &* Self.prime1
                hash = ((hash << 23) | (hash >> 41)) &* Self.prime2 &+ Self.prime3
                offset += 4
            }
            while offset < pendingCount {
                hash ^= UInt64(tail[offset]) &* Self.prime5
                hash = ((hash << 11) | (hash >> 53)) &* Self.prime1
                offset += 1
            }
        }
        hash ^= hash >> 33
        hash = hash &* Self.prime2
        hash ^= hash >> 29
        hash = hash &* Self.prime3
        hash ^= hash >> 32
        return hash
    }
}
