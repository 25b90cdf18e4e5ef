import AsyncHTTPClient
import Foundation
import HTTPTransport
import Measures
import NIOCore
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

// MARK: - Sorting transport errors into kinds people can act on

extension HTTPFeedSource {
    /// Turns an error from AsyncHTTPClient, NIO or NIOSSL into a ``FeedFetchError`` whose kind says whether it is
    /// final (refused, unknown host, TLS, corrupt body), transient (reset, timeout) or a sign that the local network
    /// is down (``FeedFetchError/Kind/unreachable``), and whose cause names no library type.
    func classify(_ error: any Error, url: URL) -> FeedFetchError {
        let host = url.host ?? "the server"
        let port = url.port
        switch error {
        case let error as NameLookupError:
            return classify(error)
        case let error as HTTPClientError:
            return classify(error, host: host)
        case let error as NIOConnectionError:
            // Happy Eyeballs: DNS errors first (no address was tried), else the errors of the addresses tried.
            if let dns = error.dnsAError ?? error.dnsAAAAError {
                return classify(dns, url: url)
            }
            let causes = error.connectionErrors.map { classify($0.error, url: url) }
            // One refused address among several unreachable ones still means the host answered.
            return causes.first { $0.kind != .unreachable } ?? causes.first
                ?? FeedFetchError(.noAddressAnswered(host: host, port: port))
        case let error as SocketAddressError.UnknownHost:
            return classifyLookup(errorCode: error.errorCode, host: host, reason: error.errorDescription)
        case let error as IOError:
            return classify(errno: error.errnoCode, host: host, port: port)
        case ChannelError.connectTimeout:
            return connectTimeout(host: host)
        case let error as NIOHTTPDecompression.DecompressionError:
            if error == .limit {
                return FeedFetchError(.expandsTooMuch(ratio: configuration.decompressionRatioLimit))
            }
            return FeedFetchError(.corruptBody)
        case is NIOHTTPDecompression.ExtraDecompressionError:
            return FeedFetchError(.corruptBody)
        case let error as NIOSSLError:
            return classify(error, host: host, port: port)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return FeedFetchError(.certificateForAnotherName(host: host))
        case is NIOSSLExtraError, is BoringSSLError:
            return FeedFetchError(.handshakeFailed(host: host, port: port))
        default:
            if String(reflecting: type(of: error)).contains("HTTPParserError") {
                return FeedFetchError(.invalidHTTP)
            }
            return FeedFetchError(.networkError(host: host, reason: ErrorWords.describe(error)))
        }
    }

    private func classify(_ error: HTTPClientError, host: String) -> FeedFetchError {
        switch error {
        case .connectTimeout:
            return connectTimeout(host: host)
        case .readTimeout, .deadlineExceeded:
            return FeedFetchError(.timedOut(after: configuration.totalTimeout))
        case .remoteConnectionClosed:
            return FeedFetchError(.closedEarly)
        case .cancelled:
            return FeedFetchError(.cancelled)
        default:
            return FeedFetchError(.httpClientError(host: host, reason: ErrorWords.describe(error)))
        }
    }

    /// A fetch that went over one of its limits, with the limit named.
    func limitError(_ exceeded: TransferLimitExceeded, url: URL) -> FeedFetchError {
        let host = url.host ?? "the server"
        switch exceeded.limit {
        case .nameLookup:
            return classify(NameLookupError(kind: .timedOut(exceeded.duration), host: host))
        case .connect:
            return connectTimeout(host: host)
        case .firstByte, .stall, .minimumRate, .total:
            return FeedFetchError(
                .transferLimit(
                    exceeded.limit, host: host, after: exceeded.duration, receivedBytes: exceeded.receivedBytes,
                    expectedBytes: exceeded.expectedBytes,
                    minimumRate: exceeded.limit == .minimumRate ? exceeded.limits.minimumRate?.bytesPerSecond ?? 0 : nil
                ))
        }
    }

    /// A failed lookup of our own resolver: "no such name" is final; a name server that does not answer points at
    /// the network.
    private func classify(_ error: NameLookupError) -> FeedFetchError {
        let host = error.host
        switch error.kind {
        case .noSuchHost: return FeedFetchError(.unknownHost(host: host))
        case .nameServerUnavailable: return FeedFetchError(.nameServerGaveNoAnswer(host: host))
        case .timedOut(let limit): return FeedFetchError(.lookupTimedOut(host: host, after: limit))
        case .failed(let reason): return FeedFetchError(.lookupFailed(host: host, reason: reason))
        }
    }

    /// A `getaddrinfo` failure: "no such name" is final; a resolver that cannot be reached points at the network.
    private func classifyLookup(errorCode: Int, host: String, reason: String) -> FeedFetchError {
        switch Int32(truncatingIfNeeded: errorCode) {
        case EAI_NONAME, Self.eaiNoData, Self.eaiAddrFamily: return FeedFetchError(.unknownHost(host: host))
        case EAI_AGAIN: return FeedFetchError(.nameServerUnreachable(host: host))
        default: return FeedFetchError(.lookupFailed(host: host, reason: reason))
        }
    }

    private func classify(errno code: Int32, host: String, port: Int?) -> FeedFetchError {
        switch code {
        case ECONNREFUSED: return FeedFetchError(.connectionRefused(host: host, port: port))
        case ENETUNREACH, ENETDOWN: return FeedFetchError(.networkUnreachable(host: host))
        case EHOSTUNREACH: return FeedFetchError(.noRoute(host: host))
        case ETIMEDOUT: return connectTimeout(host: host)
        case ECONNRESET, EPIPE: return FeedFetchError(.connectionReset(host: host))
        default: return FeedFetchError(.networkError(host: host, reason: String(cString: strerror(code))))
        }
    }

    private func classify(_ error: NIOSSLError, host: String, port: Int?) -> FeedFetchError {
        switch error {
        case .uncleanShutdown:
            return FeedFetchError(.cutShort(host: host))
        case .handshakeFailed(let reason):
            if "\(reason)".contains("CERTIFICATE_VERIFY_FAILED") {
                return FeedFetchError(.certificateNotTrusted(host: host))
            }
            return FeedFetchError(.handshakeFailed(host: host, port: port))
        case .unableToValidateCertificate:
            return FeedFetchError(.certificateUnverifiable(host: host))
        default:
            return FeedFetchError(.handshakeFailed(host: host, port: port))
        }
    }

    private func connectTimeout(host: String) -> FeedFetchError {
        FeedFetchError(.connectTimedOut(host: host, after: configuration.connectTimeout))
    }

    /// glibc's `EAI_NODATA` and `EAI_ADDRFAMILY` (GNU extensions, not in every C module map).
    private static let eaiNoData: Int32 = -5
    private static let eaiAddrFamily: Int32 = -9
}
