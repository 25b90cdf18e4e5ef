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
    /// is down (``FeedFetchError/Kind/unreachable``), and whose message names no library type.
    func classify(_ error: any Error, url: URL) -> FeedFetchError {
        let host = url.host ?? "the server"
        let port = url.port.map { ":\($0)" } ?? ""
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
                ?? FeedFetchError(kind: .unreachable, message: "cannot connect to \(host)\(port): no address answered")
        case let error as SocketAddressError.UnknownHost:
            return classifyLookup(errorCode: error.errorCode, host: host, reason: error.errorDescription)
        case let error as IOError:
            return classify(errno: error.errnoCode, host: host, port: port)
        case ChannelError.connectTimeout:
            return connectTimeout(host: host)
        case let error as NIOHTTPDecompression.DecompressionError:
            if error == .limit {
                return FeedFetchError(
                    kind: .tooLarge,
                    message: "the compressed feed expands more than \(configuration.decompressionRatioLimit)× "
                        + "(a decompression bomb?)"
                )
            }
            return corruptBody()
        case is NIOHTTPDecompression.ExtraDecompressionError:
            return corruptBody()
        case let error as NIOSSLError:
            return classify(error, host: host, port: port)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return FeedFetchError(
                kind: .tls,
                message: "the TLS certificate of \(host) is issued for another name: check the feed's URL"
            )
        case is NIOSSLExtraError, is BoringSSLError:
            return tlsFailed(host: host, port: port)
        default:
            if String(reflecting: type(of: error)).contains("HTTPParserError") {
                return FeedFetchError(kind: .transport, message: "the server's answer is not valid HTTP or ended early")
            }
            return FeedFetchError(
                kind: .transport, message: "network error talking to \(host): \(ErrorWords.describe(error))")
        }
    }

    private func classify(_ error: HTTPClientError, host: String) -> FeedFetchError {
        switch error {
        case .connectTimeout:
            return connectTimeout(host: host)
        case .readTimeout, .deadlineExceeded:
            return FeedFetchError(
                kind: .timeout,
                message: "timed out: no complete answer within \(Measure.duration(configuration.totalTimeout))"
            )
        case .remoteConnectionClosed:
            return FeedFetchError(
                kind: .transport,
                message: "the server closed the connection before the whole answer arrived"
            )
        case .cancelled:
            return FeedFetchError(kind: .transport, message: "the request was cancelled")
        default:
            return FeedFetchError(
                kind: .transport, message: "HTTP error talking to \(host): \(ErrorWords.describe(error))")
        }
    }

    /// A fetch that went over one of its limits, with the limit named.
    func limitError(_ exceeded: TransferLimitExceeded, url: URL) -> FeedFetchError {
        let host = url.host ?? "the server"
        let got =
            exceeded.expectedBytes.map { "got \(exceeded.receivedBytes) of \($0) bytes" }
            ?? "got \(exceeded.receivedBytes) bytes"
        let message: String
        switch exceeded.limit {
        case .nameLookup:
            return classify(NameLookupError(kind: .timedOut(exceeded.duration), host: host))
        case .connect:
            return connectTimeout(host: host)
        case .firstByte:
            message =
                "\(host) sent no answer within \(Measure.duration(exceeded.duration)) of the request (first-byte limit)"
        case .stall:
            message =
                "\(host) stopped sending: no byte for \(Measure.duration(exceeded.duration)) (stall limit; \(got))"
        case .minimumRate:
            let rate = exceeded.limits.minimumRate?.bytesPerSecond ?? 0
            message =
                "\(host) sends too slowly: under \(rate) bytes/s over \(Measure.duration(exceeded.duration)) "
                + "(minimum-rate limit; \(got))"
        case .total:
            message = "timed out: the whole fetch took longer than \(Measure.duration(exceeded.duration)) (\(got))"
        }
        return FeedFetchError(kind: .timeout, message: message, limit: exceeded.limit)
    }

    /// A failed lookup of our own resolver: "no such name" is final; a name server that does not answer points at
    /// the network.
    private func classify(_ error: NameLookupError) -> FeedFetchError {
        let host = error.host
        switch error.kind {
        case .noSuchHost:
            return FeedFetchError(
                kind: .unknownHost,
                message: "\(host) does not exist (the name server knows no such host): check the feed's URL")
        case .nameServerUnavailable:
            return FeedFetchError(
                kind: .unreachable,
                message: "cannot look up \(host): the name server gave no answer for it (a temporary failure, or no "
                    + "network)")
        case .timedOut(let limit):
            return FeedFetchError(
                kind: .unreachable,
                message: "cannot look up \(host): the name server did not answer within \(Measure.duration(limit))",
                limit: .nameLookup)
        case .failed(let reason):
            return FeedFetchError(kind: .unreachable, message: "cannot look up \(host): \(reason)")
        }
    }

    /// A `getaddrinfo` failure: "no such name" is final; a resolver that cannot be reached points at the network.
    private func classifyLookup(errorCode: Int, host: String, reason: String) -> FeedFetchError {
        switch Int32(truncatingIfNeeded: errorCode) {
        case EAI_NONAME, Self.eaiNoData, Self.eaiAddrFamily:
            return FeedFetchError(
                kind: .unknownHost,
                message: "\(host) does not exist (the name server knows no such host): check the feed's URL"
            )
        case EAI_AGAIN:
            return FeedFetchError(
                kind: .unreachable,
                message: "cannot look up \(host): the name server did not answer (is the network down?)"
            )
        default:
            return FeedFetchError(kind: .unreachable, message: "cannot look up \(host): \(reason)")
        }
    }

    private func classify(errno code: Int32, host: String, port: String) -> FeedFetchError {
        switch code {
        case ECONNREFUSED:
            return FeedFetchError(
                kind: .connectionRefused,
                message:
                    "connection refused by \(host)\(port): nothing is listening there (server down, or a wrong port?)"
            )
        case ENETUNREACH, ENETDOWN:
            return FeedFetchError(
                kind: .unreachable,
                message: "cannot reach \(host): the network is unreachable from here"
            )
        case EHOSTUNREACH:
            return FeedFetchError(kind: .unreachable, message: "cannot reach \(host): no route to the host")
        case ETIMEDOUT:
            return connectTimeout(host: host)
        case ECONNRESET, EPIPE:
            return FeedFetchError(kind: .transport, message: "the connection to \(host) was reset")
        default:
            return FeedFetchError(
                kind: .transport,
                message: "network error talking to \(host): \(String(cString: strerror(code)))"
            )
        }
    }

    private func classify(_ error: NIOSSLError, host: String, port: String) -> FeedFetchError {
        switch error {
        case .uncleanShutdown:
            return FeedFetchError(
                kind: .transport,
                message: "the connection to \(host) was cut before the whole answer arrived"
            )
        case .handshakeFailed(let reason):
            if "\(reason)".contains("CERTIFICATE_VERIFY_FAILED") {
                return FeedFetchError(
                    kind: .tls,
                    message: "the TLS certificate of \(host) is not trusted (self-signed, expired, or from an unknown "
                        + "authority): podfresh will not fetch from it"
                )
            }
            return tlsFailed(host: host, port: port)
        case .unableToValidateCertificate:
            return FeedFetchError(kind: .tls, message: "the TLS certificate of \(host) could not be checked")
        default:
            return tlsFailed(host: host, port: port)
        }
    }

    private func tlsFailed(host: String, port: String) -> FeedFetchError {
        FeedFetchError(
            kind: .tls,
            message: "the TLS handshake with \(host)\(port) failed (does the server speak https on this port?)"
        )
    }

    private func connectTimeout(host: String) -> FeedFetchError {
        FeedFetchError(
            kind: .unreachable,
            message: "could not connect to \(host) within \(Measure.duration(configuration.connectTimeout)): "
                + "no answer from the host or the network",
            limit: .connect
        )
    }

    private func corruptBody() -> FeedFetchError {
        FeedFetchError(
            kind: .corruptBody,
            message: "corrupt compressed body: the server said gzip or deflate, but the bytes do not decompress"
        )
    }

    /// glibc's `EAI_NODATA` and `EAI_ADDRFAMILY` (GNU extensions, not in every C module map).
    private static let eaiNoData: Int32 = -5
    private static let eaiAddrFamily: Int32 = -9
}
