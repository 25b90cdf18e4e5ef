import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1

extension HTTPNetwork {
    /// One request for the network to send: its method, URL, header fields and body. A value of this module's own, so
    /// no client of ``HTTPNetwork`` names an AsyncHTTPClient or NIO type.
    public struct Request: Sendable {
        /// The methods podfresh sends.
        public enum Method: String, Sendable, Hashable {
            /// `GET`: feeds and media.
            case get = "GET"
            /// `POST`: JSON-RPC calls (podping's Hive nodes).
            case post = "POST"
        }

        /// Where the request goes first (redirects are followed from here).
        public var url: URL
        /// The method.
        public var method: Method
        /// The header fields, in order; a name may come more than once.
        public var headers: [(name: String, value: String)]
        /// The body, for a `POST`.
        public var body: [UInt8]?

        /// A request for `url`.
        public init(
            url: URL, method: Method = .get, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil
        ) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
        }

        /// Adds the header field `name: value`.
        public mutating func addHeader(_ name: String, _ value: String) {
            headers.append((name, value))
        }

        /// The request as AsyncHTTPClient sends it.
        var client: HTTPClientRequest {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = HTTPMethod(rawValue: method.rawValue)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            return request
        }
    }
}
