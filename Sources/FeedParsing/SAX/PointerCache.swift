/// A small open-addressing map from pointers to one-byte codes.
///
/// libxml2 interns every element name, attribute name, prefix and namespace URI of a document in one dictionary, so
/// within a document equal names arrive as equal pointers. Caching what a pointer means turns each name lookup into
/// a multiply and a probe or two, instead of hashing a string.
struct PointerCache {
    private var keys: [UInt]
    private var values: [UInt8]
    private var count = 0
    private var shift: UInt64

    init() {
        keys = Array(repeating: 0, count: 64)
        values = Array(repeating: 0, count: 64)
        shift = 64 - 6
    }

    @inline(__always)
    private func slot(_ key: UInt) -> Int {
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The code stored for `pointer`, or nil.
    @inline(__always)
    func value(for pointer: UnsafeRawPointer) -> UInt8? {
        let key = UInt(bitPattern: pointer)
        let mask = keys.count - 1
        var i = slot(key)
        while true {
            let k = keys[i]
            if k == key { return values[i] }
            if k == 0 { return nil }
            i = (i + 1) & mask
        }
    }

    /// The code stored for `pointer`, computing and storing it first when there is none.
    @inline(__always)
    mutating func value(for pointer: UnsafeRawPointer, orInsert compute: () -> UInt8) -> UInt8 {
        if let cached = value(for: pointer) { return cached }
        let computed = compute()
        insert(computed, for: pointer)
        return computed
    }

    /// Stores `value` for `pointer`.
    mutating func insert(_ value: UInt8, for pointer: UnsafeRawPointer) {
        if (count + 1) * 2 > keys.count { grow() }
        let key = UInt(bitPattern: pointer)
        let mask = keys.count - 1
        var i = slot(key)
        while keys[i] != 0 && keys[i] != key { i = (i + 1) & mask }
        if keys[i] == 0 { count += 1 }
        keys[i] = key
        values[i] = value
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: 0, count: oldKeys.count * 2)
        shift -= 1
        count = 0
        for (index, key) in oldKeys.enumerated() where key != 0 {
            insert(oldValues[index], for: UnsafeRawPointer(bitPattern: key)!)
        }
    }
}
