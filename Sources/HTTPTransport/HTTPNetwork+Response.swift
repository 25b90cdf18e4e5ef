import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension HTTPNetwork {
    /// An answer whose body has not been read yet: its status, header fields and body. A value of this module's own,
    /// so no client of ``HTTPNetwork`` names an AsyncHTTPClient or NIO type.
    public struct Response: Sendable {
        /// The status code (`200`, `304` …).
        public var status: Int
        /// The status line's reason phrase as the server sent it (`Not Found`).
        public var reasonPhrase: String
        /// The header fields.
        public var headers: Headers
        /// The body, read as it arrives.
        public var body: Body

        init(_ response: HTTPClientResponse) {
            status = Int(response.status.code)
            reasonPhrase = response.status.reasonPhrase
            headers = Headers(fields: response.headers)
            body = Body(base: response.body)
        }
    }

    /// A response's header fields; names are matched without regard to case.
    public struct Headers: Sendable {
        let fields: HTTPHeaders

        /// The first value of the field `name`, or nil when there is none.
        public func first(name: String) -> String? {
            fields.first(name: name)
        }

        /// Every value of the field `name`, a comma-separated list split into its elements (`Content-Encoding: gzip,
        /// br` gives `gzip` and `br`).
        public func values(name: String) -> [String] {
            fields[canonicalForm: name].map(String.init)
        }
    }

    /// A response's body: its chunks as they come from the connection, with backpressure (a chunk is read only
    /// when the one before it was taken).
    public struct Body: AsyncSequence, Sendable {
        public typealias Element = Chunk

        let base: HTTPClientResponse.Body

        /// Reads the chunks in order.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: HTTPClientResponse.Body.AsyncIterator

            /// The next chunk, or nil at the body's end.
            ///
            /// - Throws: What the connection failed with; ``TransportFailure/init(_:url:profile:timeout:body:)``
            ///   says what it means.
            public mutating func next() async throws -> Chunk? {
                try await base.next().map(Chunk.init)
            }
        }

        /// An iterator over the chunks; a body is read once.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: base.makeAsyncIterator())
        }

        /// The whole body, when it is at most `maxBytes` long.
        ///
        /// - Throws: ``BodyTooLarge`` past `maxBytes`, or what the connection failed with.
        public func collect(upTo maxBytes: Int) async throws -> [UInt8] {
            var bytes: [UInt8] = []
            for try await chunk in self {
                guard bytes.count + chunk.count <= maxBytes else { throw BodyTooLarge(maxBytes: maxBytes) }
                chunk.withUnsafeBytes { bytes.append(contentsOf: $0) }
            }
            return bytes
        }
    }

    /// One piece of a body as it came from the connection. It keeps the connection's buffer (no copy): read its bytes
    /// with ``withUnsafeBytes(_:)``.
    public struct Chunk: Sendable {
        let buffer: ByteBuffer

        /// The number of bytes.
        public var count: Int { buffer.readableBytes }

        /// Calls `body` with the bytes, valid only during the call.
        public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            try buffer.withUnsafeReadableBytes(body)
        }

        /// The first `maxCount` bytes (all of them when there are fewer), copied.
        public func prefix(_ maxCount: Int) -> [UInt8] {
            Array(buffer.readableBytesView.prefix(maxCount))
        }
    }

    /// A body longer than a caller would read whole.
    public struct BodyTooLarge: Error, Sendable, Hashable {
        /// The most bytes the caller would take.
        public var maxBytes: Int
    }
}
