import CZlib
import Foundation

/// Decodes a `gzip` or `deflate` body as it streams, handing it on in small pieces.
///
/// AsyncHTTPClient's decompression inflates each read from the socket whole (tens of kilobytes of XML become hundreds)
/// before the body's consumer has asked for it, so every answer waiting for its turn held its first read inflated, and
/// the parser was given one large piece per read. Here a body stays compressed until its consumer reads it, and is
/// handed on at most ``pieceSize`` bytes at a time.
///
/// Used by one task at a time (it is not `Sendable`).
public final class BodyInflater {
    /// Why a body could not be decoded.
    public enum Failure: Error, Equatable, Sendable {
        /// The body expands more than the ratio limit allows (a "zip bomb").
        case expandsTooMuch(ratio: Int)
        /// The bytes are not what the `Content-Encoding` says, or continue after the compressed stream has ended.
        case corrupt
        /// The body ended before its compressed stream did.
        case truncated
    }

    /// The most bytes handed on at once.
    public static let pieceSize = 32 * 1024

    private let ratioLimit: Int
    private let isDeflate: Bool
    private var stream = z_stream()
    private var started = false
    private var ended = false
    private var compressed = 0
    private var inflated = 0
    private let output: UnsafeMutableRawBufferPointer

    /// An inflater for a body sent with `contentEncoding`, or nil when the body is sent as it is (no encoding,
    /// `identity`, or an encoding other than gzip and deflate, which is passed through as it came).
    ///
    /// - Parameter ratioLimit: The most bytes out per compressed byte in.
    public init?(contentEncoding: String?, ratioLimit: Int) {
        switch contentEncoding?.trimmingCharacters(in: .whitespaces).lowercased() {
        case "gzip", "x-gzip": isDeflate = false
        case "deflate": isDeflate = true
        default: return nil
        }
        self.ratioLimit = ratioLimit
        output = .allocate(byteCount: Self.pieceSize, alignment: 1)
    }

    deinit {
        if started { inflateEnd(&stream) }
        output.deallocate()
    }

    /// Decodes `input`, the next bytes of the body, calling `body` with each decoded piece in order, for as long as
    /// `wanted` says the body is still wanted (asked after each piece): a consumer that has read enough stops the
    /// rest of `input` from being inflated, and the inflater is then not used again.
    public func inflate(
        _ input: UnsafeRawBufferPointer, while wanted: () -> Bool = { true },
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard !input.isEmpty else { return }
        guard !ended else { throw Failure.corrupt }
        if !started { try start(firstBytes: input) }
        compressed += input.count
        stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.avail_in = uInt(input.count)
        defer {
            stream.next_in = nil
            stream.avail_in = 0
        }
        // Output may still be pending inside zlib when the last piece filled the buffer exactly.
        repeat {
            stream.next_out = output.bindMemory(to: Bytef.self).baseAddress
            stream.avail_out = uInt(output.count)
            let result = CZlib.inflate(&stream, Z_NO_FLUSH)
            switch result {
            case Z_OK, Z_BUF_ERROR: break
            case Z_STREAM_END: ended = true
            default: throw Failure.corrupt
            }
            let produced = output.count - Int(stream.avail_out)
            if produced == 0 && result == Z_BUF_ERROR { break }
            inflated += produced
            if inflated > compressed * ratioLimit { throw Failure.expandsTooMuch(ratio: ratioLimit) }
            if produced > 0 { try body(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
        } while !ended && (stream.avail_in > 0 || stream.avail_out == 0) && wanted()
        if ended && stream.avail_in > 0 { throw Failure.corrupt }
    }

    /// Checks that the body ended where its compressed stream did (call once the last bytes were given).
    public func finish() throws {
        if started && !ended { throw Failure.truncated }
    }

    /// gzip and zlib streams are told apart by their header (15 + 32); a `deflate` body without the zlib header
    /// (raw deflate, which some servers send) is read raw (-15).
    private func start(firstBytes: UnsafeRawBufferPointer) throws {
        var windowBits: Int32 = 15 + 32
        if isDeflate, firstBytes.count >= 2 {
            let header = UInt16(firstBytes[0]) << 8 | UInt16(firstBytes[1])
            let isZlib = firstBytes[0] & 0x0F == 8 && header % 31 == 0
            if !isZlib { windowBits = -15 }
        }
        guard inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure.corrupt
        }
        started = true
    }
}
