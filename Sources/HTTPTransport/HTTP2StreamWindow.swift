import NIOCore
import NIOHTTP2

/// Bounds how many bytes of one HTTP/2 stream can arrive before they are read, by opening each stream's receive window
/// only as far as its body is read.
///
/// AsyncHTTPClient gives every stream a fixed 8 MB window and opens it again as soon as bytes arrive, not when they
/// are read: a stream whose body waits for its reader (a feed waiting for a parse slot) piles up to 8 MB in memory.
/// Over HTTP/1.1 the same body waits in TCP. This pair of handlers puts HTTP/2 back on the same footing:
///
/// - ``HTTP2WindowLimiter`` sits in the connection's pipeline, just before NIOHTTP2's stream multiplexer. It drops
///   the multiplexer's own `WINDOW_UPDATE` frames for streams, tops each new stream's window up to `window` bytes,
///   and, when told that a stream's bytes were read, gives the server that much room again.
/// - ``HTTP2ReadReporter`` sits first in each stream's pipeline. AsyncHTTPClient asks a stream for more only when its
///   reader wants more, so what passes this handler has been handed to the reader; it tells the limiter.
///
/// A stream whose reader waits thus holds at most twice `window`: what waits in the stream, and what one read
/// delivered to AsyncHTTPClient (a stream delivers all it holds when asked, and AsyncHTTPClient then asks no more
/// until its reader takes it).
/// The connection's own window is left as AsyncHTTPClient sets it: with every stream bounded, it bounds nothing more.
///
/// Both handlers run on the connection's event loop (a stream's channel shares its parent's loop), so the limiter's
/// state needs no lock.
final class HTTP2WindowLimiter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The most bytes a stream may have sent and not read.
    let window: Int
    /// Read bytes are given back once this many have gathered (fewer, smaller frames).
    private let batch: Int
    private var context: ChannelHandlerContext?
    /// Streams that may still receive data, with the read bytes not yet given back.
    private var streams: [HTTP2StreamID: Int] = [:]

    /// A limiter that keeps each stream's unread bytes within `window` (at least 64 KB, HTTP/2's initial window).
    init(window: Int) {
        self.window = max(window, Self.initialWindow)
        self.batch = max(16 * 1024, self.window / 4)
    }

    /// HTTP/2's initial stream window, which AsyncHTTPClient's settings leave as it is.
    static let initialWindow = 65_535

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        if case .windowUpdate = frame.payload, frame.streamID != .rootStream {
            // The multiplexer's own update, sent when bytes arrive: this limiter opens stream windows itself.
            promise?.succeed(())
            return
        }
        context.write(data, promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if case .data(let payload) = frame.payload, payload.endStream {
            streams[frame.streamID] = nil
        } else if case .headers(let payload) = frame.payload, payload.endStream {
            streams[frame.streamID] = nil
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let created as NIOHTTP2StreamCreatedEvent:
            streams[created.streamID] = 0
            let initial = created.localInitialWindowSize.map(Int.init) ?? Self.initialWindow
            if window > initial {
                sendUpdate(created.streamID, increment: window - initial, context: context)
            }
        case let closed as StreamClosedEvent:
            streams[closed.streamID] = nil
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// `count` bytes of `stream` were read: the server may send that much more once enough has gathered.
    func read(_ count: Int, on stream: HTTP2StreamID) {
        guard let context, let gathered = streams[stream] else { return }
        let total = gathered + count
        guard total >= batch else {
            streams[stream] = total
            return
        }
        streams[stream] = 0
        sendUpdate(stream, increment: total, context: context)
    }

    private func sendUpdate(_ stream: HTTP2StreamID, increment: Int, context: ChannelHandlerContext) {
        let frame = HTTP2Frame(streamID: stream, payload: .windowUpdate(windowSizeIncrement: increment))
        // A stream that closed meanwhile refuses the update; nothing is lost.
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenFailure { _ in }
        context.writeAndFlush(wrapOutboundOut(frame), promise: promise)
    }
}

/// Tells the connection's ``HTTP2WindowLimiter`` how many bytes of its stream were read (see there).
final class HTTP2ReadReporter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    private var limiter: HTTP2WindowLimiter?
    private var stream: HTTP2StreamID?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var count = 0
        if case .data(let payload) = unwrapInboundIn(data) {
            // What flow control counts: the data, the padding and the padding's length octet.
            count = payload.data.readableBytes + (payload.paddingBytes.map { $0 + 1 } ?? 0)
        }
        context.fireChannelRead(data)
        guard count > 0 else { return }
        if limiter == nil {
            limiter = try? context.channel.parent?.pipeline.syncOperations.handler(type: HTTP2WindowLimiter.self)
            stream = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)
        }
        if let limiter, let stream { limiter.read(count, on: stream) }
    }
}

/// Passes each inbound DATA frame on in a buffer of its own, so that a frame waiting in its stream holds its own bytes
/// and no more.
///
/// NIOHTTP2's frame decoder hands out each DATA frame as a slice of its read buffer, which gathers the bytes of
/// several reads (consumed ones included) and never shrinks. A frame that waits in its stream for its reader (a feed
/// waiting for a parse slot) keeps that whole buffer alive, and the decoder, no longer its only owner, copies all of it
/// on its next read into a new buffer at least as large, which the next waiting frame keeps in turn. So each waiting
/// frame held a buffer of the connection's, however few bytes it carried, and the stream window
/// (``HTTP2WindowLimiter``) bounded only the bytes: a cold run of 1,000 feeds over HTTP/2 peaked at 150–470 MB
/// resident, with about 98 MB of 135 MB in use at the peak being such copies (docs/benchmarks.md). Copying a frame's
/// bytes out here, before the stream multiplexer, costs one copy of the body and leaves the decoder the sole owner of
/// its buffer again once the frame is passed on.
///
/// It sits in the connection's pipeline just before the stream multiplexer (and ``HTTP2WindowLimiter``).
final class HTTP2DataCompactor: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if case .data(let payload) = frame.payload,
            let compact = Self.compacted(payload, allocator: context.channel.allocator)
        {
            context.fireChannelRead(wrapInboundOut(HTTP2Frame(streamID: frame.streamID, payload: .data(compact))))
        } else {
            context.fireChannelRead(data)
        }
    }

    /// A DATA frame's bytes in a buffer of their own, or nil when their buffer's storage holds nothing else (or there
    /// are none). The copy's storage is its byte count rounded up to a power of two, as NIO allocates.
    static func compacted(
        _ payload: HTTP2Frame.FramePayload.Data, allocator: ByteBufferAllocator
    ) -> HTTP2Frame.FramePayload.Data? {
        guard case .byteBuffer(let bytes) = payload.data, bytes.readableBytes > 0,
            bytes.storageCapacity > bytes.readableBytes
        else { return nil }
        var own = allocator.buffer(capacity: bytes.readableBytes)
        own.writeImmutableBuffer(bytes)
        var compact = payload
        compact.data = .byteBuffer(own)
        return compact
    }
}
