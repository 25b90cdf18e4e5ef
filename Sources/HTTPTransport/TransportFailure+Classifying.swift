import AsyncHTTPClient
public import Foundation
import Measures
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Sorting the errors of AsyncHTTPClient, NIO, NIOSSL and the resolver into facts

extension TransportFailure {
    /// How far a body had come when the connection failed: bytes as sent (before decoding), the resumed ones
    /// included, and the length announced.
    public struct BodyProgress: Sendable, Hashable {
        /// Body bytes received.
        public var receivedBytes: Int64
        /// The length the server announced, when it did (and the body is not decoded on the way).
        public var expectedBytes: Int64?

        /// `receivedBytes` of a body of `expectedBytes` (nil when no length was announced).
        public init(receivedBytes: Int64, expectedBytes: Int64?) {
            self.receivedBytes = receivedBytes
            self.expectedBytes = expectedBytes
        }
    }

    /// The fact behind `error`, thrown while talking to `url` through ``HTTPNetwork`` under `profile`.
    ///
    /// - Parameters:
    ///   - error: What the network, AsyncHTTPClient, NIO, NIOSSL, the resolver, a ``BodyInflater`` or the watchdog
    ///     (``TransferLimitExceeded``) threw.
    ///   - url: The URL asked (for a body, the one it came from after redirects): its host and port are named.
    ///   - profile: The profile the request went out with: its connect limit and decompression ratio are named.
    ///   - timeout: The client's own deadline, named when AsyncHTTPClient's backstop ends the transfer.
    ///   - body: How far the body had come, when it was being read: a connection closed then closed it early.
    public init(
        _ error: any Error, url: URL, profile: HTTPNetwork.Profile, timeout: Duration, body: BodyProgress? = nil
    ) {
        let host = url.host ?? "the server"
        let port = url.port
        if let body, Self.closedBeforeBodyEnd(error) {
            self = .closedBeforeEnd(host: host, receivedBytes: body.receivedBytes, expectedBytes: body.expectedBytes)
            return
        }
        switch error {
        case let failure as TransportFailure:
            self = failure
        case let exceeded as TransferLimitExceeded:
            self.init(exceeded, host: host)
        case let error as NameLookupError:
            self.init(error)
        case let error as HTTPClientError:
            self.init(error, host: host, connectTimeout: profile.connectTimeout, timeout: timeout)
        case let error as NIOConnectionError:
            // Happy Eyeballs: DNS errors first (no address was tried), else the errors of the addresses tried.
            if let dns = error.dnsAError ?? error.dnsAAAAError {
                self.init(dns, url: url, profile: profile, timeout: timeout)
                return
            }
            let causes = error.connectionErrors.map {
                TransportFailure($0.error, url: url, profile: profile, timeout: timeout)
            }
            // One refused address among several unreachable ones still means the host answered.
            self =
                causes.first { $0.kind != .unreachable } ?? causes.first ?? .noAddressAnswered(host: host, port: port)
        case let error as SocketAddressError.UnknownHost:
            self.init(lookupCode: error.errorCode, host: host, reason: error.errorDescription)
        case let error as IOError:
            self.init(errno: error.errnoCode, host: host, port: port, connectTimeout: profile.connectTimeout)
        case ChannelError.connectTimeout:
            self = .connectTimedOut(host: host, after: profile.connectTimeout)
        case let error as BodyInflater.Failure:
            switch error {
            case .expandsTooMuch(let ratio): self = .expandsTooMuch(ratio: ratio)
            case .corrupt, .truncated: self = .corruptBody
            }
        case let error as NIOHTTPDecompression.DecompressionError:
            self = error == .limit ? .expandsTooMuch(ratio: profile.decompressionRatioLimit ?? 0) : .corruptBody
        case let error as NIOHTTPDecompression.ExtraDecompressionError:
            self = error == .truncatedData ? .compressedBodyCutShort : .corruptBody
        case let error as NIOSSLError:
            self.init(error, host: host, port: port)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            self = .certificateForAnotherName(host: host)
        case is NIOSSLExtraError, is BoringSSLError:
            self = .handshakeFailed(host: host, port: port)
        case is HTTPParserError:
            self = .invalidHTTP
        case let error as NIOHTTP2Errors.StreamClosed:
            self = .streamReset(host: host, code: error.errorCode.networkCode)
        default:
            self = .networkError(host: host, reason: ErrorWords.describe(error))
        }
    }

    /// A transfer that went over one of its limits, the limit named with its value.
    public init(_ exceeded: TransferLimitExceeded, host: String) {
        switch exceeded.limit {
        case .nameLookup:
            self = .lookupTimedOut(host: host, after: exceeded.duration)
        case .connect:
            self = .connectTimedOut(host: host, after: exceeded.duration)
        case .firstByte, .stall, .minimumRate, .total:
            self = .transferLimit(
                exceeded.limit, host: host, after: exceeded.duration, receivedBytes: exceeded.receivedBytes,
                expectedBytes: exceeded.expectedBytes,
                minimumRate: exceeded.limit == .minimumRate ? exceeded.limits.minimumRate?.bytesPerSecond ?? 0 : nil)
        }
    }

    /// A failed lookup of our own resolver: "no such name" is final; a name server that does not answer points at
    /// the network.
    init(_ error: NameLookupError) {
        let host = error.host
        switch error.kind {
        case .noSuchHost: self = .noSuchHost(host: host)
        case .nameServerUnavailable: self = .nameServerGaveNoAnswer(host: host)
        case .timedOut(let limit): self = .lookupTimedOut(host: host, after: limit)
        case .failed(let reason): self = .lookupFailed(host: host, reason: reason)
        }
    }

    private init(_ error: HTTPClientError, host: String, connectTimeout: Duration, timeout: Duration) {
        switch error {
        case .connectTimeout: self = .connectTimedOut(host: host, after: connectTimeout)
        case .readTimeout, .deadlineExceeded: self = .timedOut(after: timeout)
        case .remoteConnectionClosed: self = .closedEarly
        case .cancelled: self = .cancelled
        default: self = .httpClientError(host: host, reason: ErrorWords.describe(error))
        }
    }

    /// A `getaddrinfo` failure (NIO's own lookup): "no such name" is final; a resolver that cannot be reached points
    /// at the network.
    private init(lookupCode: Int, host: String, reason: String) {
        switch Int32(truncatingIfNeeded: lookupCode) {
        case EAI_NONAME, Self.eaiNoData, Self.eaiAddrFamily: self = .noSuchHost(host: host)
        case EAI_AGAIN: self = .nameServerUnreachable(host: host)
        default: self = .lookupFailed(host: host, reason: reason)
        }
    }

    private init(errno code: Int32, host: String, port: Int?, connectTimeout: Duration) {
        switch code {
        case ECONNREFUSED: self = .connectionRefused(host: host, port: port)
        case ENETUNREACH, ENETDOWN: self = .networkUnreachable(host: host)
        case EHOSTUNREACH: self = .noRoute(host: host)
        case ETIMEDOUT: self = .connectTimedOut(host: host, after: connectTimeout)
        case ECONNRESET, EPIPE: self = .connectionReset(host: host)
        default: self = .networkError(host: host, reason: String(cString: strerror(code)))
        }
    }

    private init(_ error: NIOSSLError, host: String, port: Int?) {
        switch error {
        case .uncleanShutdown:
            self = .cutShort(host: host)
        case .handshakeFailed(let reason):
            self =
                "\(reason)".contains("CERTIFICATE_VERIFY_FAILED")
                ? .certificateNotTrusted(host: host) : .handshakeFailed(host: host, port: port)
        case .unableToValidateCertificate:
            self = .certificateUnverifiable(host: host)
        default:
            self = .handshakeFailed(host: host, port: port)
        }
    }

    /// Whether `error`, thrown while a body streams in, says the connection closed before the body's end: the
    /// server (or something between) closed it with bytes still announced or a chunk unfinished, or a TLS
    /// connection ended without its closing message.
    ///
    /// AsyncHTTPClient reports these as NIO's parser error for a stream that "ended at an unexpected time", as its
    /// own "remote connection closed", or as NIOSSL's unclean shutdown; none of them is a fact a user can read.
    static func closedBeforeBodyEnd(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPParserError: error == .invalidEOFState
        case let error as HTTPClientError: error == .remoteConnectionClosed
        case let error as NIOSSLError: error == .uncleanShutdown
        default: false
        }
    }

    /// glibc's `EAI_NODATA` and `EAI_ADDRFAMILY` (GNU extensions, not in every C module map).
    private static let eaiNoData: Int32 = -5
    private static let eaiAddrFamily: Int32 = -9
}
