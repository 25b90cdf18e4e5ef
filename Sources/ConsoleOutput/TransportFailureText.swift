public import HTTPTransport
import Measures

/// How a failed transfer reads: the one place each ``TransportFailure`` is worded, for feed fetches and media
/// downloads alike. Durations and byte counts are in `Measure`'s style.
public enum TransportFailureText {
    /// What was being transferred, named where a sentence names it.
    public enum Subject: Sendable, Hashable {
        /// A feed fetch.
        case feed
        /// A media download.
        case media

        /// Whose URL to check: `the feed's`.
        var owner: String {
            switch self {
            case .feed: "the feed's"
            case .media: "the episode's"
            }
        }

        /// What a body is: `feed`.
        var body: String {
            switch self {
            case .feed: "feed"
            case .media: "media"
            }
        }

        /// The transfer as a whole: `fetch`.
        var transfer: String {
            switch self {
            case .feed: "fetch"
            case .media: "download"
            }
        }
    }

    /// One line for `failure`: `connection refused by example.com:8080: nothing is listening there (…)`.
    public static func line(_ failure: TransportFailure, of subject: Subject) -> String {
        switch failure {
        case .noSuchHost(let host):
            "\(host) does not exist (the name server knows no such host): check \(subject.owner) URL"
        case .nameServerGaveNoAnswer(let host):
            "cannot look up \(host): the name server gave no answer for it (a temporary failure, or no network)"
        case .nameServerUnreachable(let host):
            "cannot look up \(host): the name server did not answer (is the network down?)"
        case .lookupTimedOut(let host, let after):
            "cannot look up \(host): the name server did not answer within \(Measure.duration(after))"
        case .lookupFailed(let host, let reason): "cannot look up \(host): \(reason)"
        case .connectionRefused(let host, let port):
            "connection refused by \(host)\(colon(port)): nothing is listening there (server down, or a wrong port?)"
        case .noAddressAnswered(let host, let port): "cannot connect to \(host)\(colon(port)): no address answered"
        case .networkUnreachable(let host): "cannot reach \(host): the network is unreachable from here"
        case .noRoute(let host): "cannot reach \(host): no route to the host"
        case .connectTimedOut(let host, let after):
            "could not connect to \(host) within \(Measure.duration(after)): no answer from the host or the network"
        case .connectionReset(let host): "the connection to \(host) was reset"
        case .closedEarly: "the server closed the connection before the whole answer arrived"
        case .closedBeforeEnd(let host, let received, let expected):
            "\(host) closed the connection before \(subject.owner) end arrived (\(got(received, expected)))"
        case .cutShort(let host): "the connection to \(host) was cut before the whole answer arrived"
        case .streamReset(let host, let code):
            "\(host) reset the HTTP/2 stream of this \(subject.transfer) (\(streamError(code)))"
        case .certificateForAnotherName(let host):
            "the TLS certificate of \(host) is issued for another name: check \(subject.owner) URL"
        case .certificateNotTrusted(let host):
            "the TLS certificate of \(host) is not trusted (self-signed, expired, or from an unknown authority): "
                + "podfresh will not fetch from it"
        case .certificateUnverifiable(let host): "the TLS certificate of \(host) could not be checked"
        case .handshakeFailed(let host, let port):
            "the TLS handshake with \(host)\(colon(port)) failed (does the server speak https on this port?)"
        case .invalidHTTP: "the server's answer is not valid HTTP or ended early"
        case .corruptBody: "corrupt compressed body: the server said gzip or deflate, but the bytes do not decompress"
        case .expandsTooMuch(let ratio):
            "the compressed \(subject.body) expands more than \(ratio)× (a decompression bomb?)"
        case .compressedBodyCutShort: "the compressed body ended before its end"
        case .transferLimit(let limit, let host, let after, let received, let expected, let rate):
            transferLimit(
                limit, host: host, after: after, received: received, expected: expected, minimumRate: rate,
                of: subject)
        case .timedOut(let after): "timed out: no complete answer within \(Measure.duration(after))"
        case .cancelled: "the request was cancelled"
        case .networkError(let host, let reason): "network error talking to \(host): \(reason)"
        case .httpClientError(let host, let reason): "HTTP error talking to \(host): \(reason)"
        }
    }

    /// A transfer over one of its named limits, the limit and its value named: `example.com stopped sending: no byte
    /// for 30s (stall limit; got 1200 bytes)`.
    static func transferLimit(
        _ limit: TransferLimit, host: String, after: Duration, received: Int64, expected: Int64?, minimumRate: Int?,
        of subject: Subject
    ) -> String {
        switch limit {
        case .nameLookup:
            line(.lookupTimedOut(host: host, after: after), of: subject)
        case .connect:
            line(.connectTimedOut(host: host, after: after), of: subject)
        case .firstByte:
            "\(host) sent no answer within \(Measure.duration(after)) of the request (first-byte limit)"
        case .stall:
            "\(host) stopped sending: no byte for \(Measure.duration(after)) (stall limit; \(got(received, expected)))"
        case .minimumRate:
            "\(host) sends too slowly: under \(Measure.rate(bytesPerSecond: Double(minimumRate ?? 0))) over \(Measure.duration(after)) "
                + "(minimum-rate limit; \(got(received, expected)))"
        case .total:
            "timed out: the whole \(subject.transfer) took longer than \(Measure.duration(after)) (\(got(received, expected)))"
        }
    }

    /// An HTTP/2 error code's name (RFC 9113, section 7) with a word on what it means: `REFUSED_STREAM: the server
    /// took on no more requests`.
    static func streamError(_ code: Int) -> String {
        switch code {
        case 0x0: "NO_ERROR"
        case 0x1: "PROTOCOL_ERROR: the server found an error in the request"
        case 0x2: "INTERNAL_ERROR: the server failed"
        case 0x3: "FLOW_CONTROL_ERROR"
        case 0x5: "STREAM_CLOSED"
        case 0x6: "FRAME_SIZE_ERROR"
        case 0x7: "REFUSED_STREAM: the server took on no more requests; try again later"
        case 0x8: "CANCEL: the server stopped sending"
        case 0x9: "COMPRESSION_ERROR"
        case 0xa: "CONNECT_ERROR"
        case 0xb: "ENHANCE_YOUR_CALM: the server asks for fewer requests at once (try a lower --per-host)"
        case 0xc: "INADEQUATE_SECURITY"
        case 0xd: "HTTP_1_1_REQUIRED"
        default: "error code \(code)"
        }
    }

    /// "got 10 of 20 bytes", or "got 10 bytes" without a length.
    static func got(_ received: Int64, _ expected: Int64?) -> String {
        expected.map { "got \(received) of \($0) bytes" } ?? "got \(received) bytes"
    }

    /// `:8080`, or nothing when the URL gives no port.
    static func colon(_ port: Int?) -> String { port.map { ":\($0)" } ?? "" }
}
