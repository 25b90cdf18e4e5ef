import Foundation

/// Gzip of `megabytes` of zero bytes at compression `level` (1–9), made with the system's gzip at test time: a
/// decompression bomb that costs a few kilobytes to serve.
public func gzippedZeros(level: Int, megabytes: Int) async throws -> [UInt8] {
    try await onOwnThread { try gzippedZerosBlocking(level: level, megabytes: megabytes) }
}

private func gzippedZerosBlocking(level: Int, megabytes: Int) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "head -c \(megabytes << 20) /dev/zero | gzip -\(level)"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Array(data)
}
