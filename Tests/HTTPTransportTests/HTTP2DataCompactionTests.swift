import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import HTTPTransport

/// ``HTTP2DataCompactor`` passes each DATA frame on in a buffer of its own: NIOHTTP2's decoder hands out slices of its
/// read buffer, and a frame waiting in its stream would otherwise keep that whole buffer alive.
struct HTTP2DataCompactionTests {
    /// A DATA frame for stream 1 whose payload is `count` bytes sliced out of a buffer of `storage` bytes, as the
    /// decoder makes them.
    private func slicedFrame(count: Int, of storage: Int, endStream: Bool = false) -> HTTP2Frame {
        var read = ByteBufferAllocator().buffer(capacity: storage)
        read.writeRepeatingByte(0x61, count: storage)
        read.moveReaderIndex(forwardBy: 100)
        let slice = read.readSlice(length: count)!
        return HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(slice), endStream: endStream)))
    }

    private func passed(_ frame: HTTP2Frame) throws -> HTTP2Frame.FramePayload.Data {
        let channel = EmbeddedChannel(handler: HTTP2DataCompactor())
        try channel.writeInbound(frame)
        let out = try #require(try channel.readInbound(as: HTTP2Frame.self))
        _ = try channel.finish()
        guard case .data(let data) = out.payload else {
            Issue.record("not a DATA frame: \(out.payload)")
            throw CancellationError()
        }
        return data
    }

    @Test func aDataFrameSlicedFromALargeReadBufferIsPassedOnInABufferOfItsOwnSize() throws {
        let data = try passed(slicedFrame(count: 1_000, of: 64 * 1024, endStream: true))
        guard case .byteBuffer(let bytes) = data.data else {
            Issue.record("not a byte buffer")
            return
        }
        #expect(bytes.readableBytes == 1_000)
        #expect(bytes.storageCapacity <= 1_024, "the frame still holds \(bytes.storageCapacity) bytes")
        #expect(bytes.readableBytesView.allSatisfy { $0 == 0x61 })
        #expect(data.endStream)
    }

    @Test func aDataFrameInABufferOfItsOwnAndAnEmptyOneAreLeftAsTheyAre() throws {
        // NIO rounds a buffer's storage up to a power of two: 16 bytes fill this one.
        var own = ByteBufferAllocator().buffer(capacity: 16)
        own.writeString("0123456789abcdef")
        #expect(own.storageCapacity == own.readableBytes)
        #expect(HTTP2DataCompactor.compacted(.init(data: .byteBuffer(own)), allocator: ByteBufferAllocator()) == nil)
        let empty = ByteBufferAllocator().buffer(capacity: 64)
        #expect(HTTP2DataCompactor.compacted(.init(data: .byteBuffer(empty)), allocator: ByteBufferAllocator()) == nil)
    }
}
