import AsyncHTTPClient
import NIOHTTP1
import NIOSSL

extension HTTPNetwork {
    /// Whether `error`, thrown while a body streams in, says the connection closed before the body's end: the
    /// server (or something between) closed it with bytes still announced or a chunk unfinished, or a TLS
    /// connection ended without its closing message.
    ///
    /// AsyncHTTPClient reports these as NIO's parser error for a stream that "ended at an unexpected time", as its
    /// own "remote connection closed", or as NIOSSL's unclean shutdown; none of them is a fact a user can read.
    public static func closedBeforeBodyEnd(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPParserError: error == .invalidEOFState
        case let error as HTTPClientError: error == .remoteConnectionClosed
        case let error as NIOSSLError: error == .uncleanShutdown
        default: false
        }
    }
}
