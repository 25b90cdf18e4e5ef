import Foundation

/// `bytes` compressed by the system's gzip (`gzip -n`: no name, no time stamp), as a server that compresses media
/// anyway sends them with `Content-Encoding: gzip`.
public func gzipped(_ bytes: [UInt8]) async throws -> [UInt8] {
    try await onOwnThread { try gzippedBlocking(bytes) }
}

private func gzippedBlocking(_ bytes: [UInt8]) throws -> [UInt8] {
    let input = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-gzip-\(UUID().uuidString)")
    try Data(bytes).write(to: input)
    defer { try? FileManager.default.removeItem(at: input) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "gzip -n -c < \"$1\"", "sh", input.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Array(data)
}

/// `bytes` in HTTP's `deflate` coding (RFC 9110: a zlib stream, RFC 1950): gzip's deflate data between a zlib
/// header and an Adler-32 of the original.
public func deflated(_ bytes: [UInt8]) async throws -> [UInt8] {
    let gzip = try await gzipped(bytes)
    // `gzip -n` writes a 10-byte header with no optional fields, and an 8-byte trailer (CRC-32, size).
    let raw = gzip[10..<(gzip.count - 8)]
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in bytes {
        a = (a + UInt32(byte)) % 65_521
        b = (b + a) % 65_521
    }
    let adler = (b << 16) | a
    return [0x78, 0x9C] + raw + [
        UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF),
    ]
}
