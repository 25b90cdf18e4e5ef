public import FeedFetching
import HTTPTransport
import Measures

/// How the cause of a failed feed fetch reads: the one place its sentences are written, from ``FeedFetchError``'s
/// typed facts. Durations and byte counts are in `Measure`'s style.
public enum FetchFailureText {
    /// One line for `error` (without a remedy: ``ErrorText`` adds that).
    public static func line(_ error: FeedFetchError) -> String {
        switch error.cause {
        case .notHTTPURL(let url): return "\(url) is not an http or https URL"
        case .notFileURL(let url): return "\(url) is not a file URL"
        case .schemeNotFetched(let scheme):
            return "\(scheme ?? "a scheme-less") URL: podfresh fetches only http, https and file URLs"
        case .redirectedToScheme(let scheme, _): return "redirected to a \(scheme): URL, which podfresh never follows"
        case .httpStatus(let status, let phrase, let retryAfter):
            let retry = retryAfter.map { " (retry after \(HTTPHeaderValues.string(from: $0)))" } ?? ""
            return "HTTP \(status) \(phrase)" + retry
        case .redirectWithoutLocation(let status, let phrase):
            return "HTTP \(status) \(phrase) without a usable Location"
        case .gone: return "HTTP 410 Gone: the feed was removed"
        case .unaskedNotModified: return "the server answered 304 Not Modified to an unconditional request"
        case .tooManyRedirects(let max): return "more than \(max) redirects"
        case .redirectCycle: return "the redirects go round in a circle"
        case .bodyOverLimit(let limit, let announced):
            return "the feed is larger than the \(Measure.bytes(limit)) limit"
                + (announced.map { ": the server announces \(Measure.bytes($0))" } ?? "")
        case .fileOverLimit(let path, let limit): return "\(path) is larger than the \(Measure.bytes(limit)) limit"
        case .expandsTooMuch(let ratio):
            return "the compressed feed expands more than \(ratio)× (a decompression bomb?)"
        case .corruptBody:
            return "corrupt compressed body: the server said gzip or deflate, but the bytes do not decompress"
        case .transferLimit(let limit, let host, let after, let received, let expected, let rate):
            return transferLimit(
                limit, host: host, after: after, received: received, expected: expected, minimumRate: rate)
        case .timedOut(let after): return "timed out: no complete answer within \(Measure.duration(after))"
        case .unknownHost(let host):
            return "\(host) does not exist (the name server knows no such host): check the feed's URL"
        case .nameServerGaveNoAnswer(let host):
            return "cannot look up \(host): the name server gave no answer for it (a temporary failure, or no network)"
        case .nameServerUnreachable(let host):
            return "cannot look up \(host): the name server did not answer (is the network down?)"
        case .lookupTimedOut(let host, let after):
            return "cannot look up \(host): the name server did not answer within \(Measure.duration(after))"
        case .lookupFailed(let host, let reason): return "cannot look up \(host): \(reason)"
        case .connectionRefused(let host, let port):
            return "connection refused by \(host)\(colon(port)): nothing is listening there (server down, or a wrong "
                + "port?)"
        case .noAddressAnswered(let host, let port):
            return "cannot connect to \(host)\(colon(port)): no address answered"
        case .networkUnreachable(let host): return "cannot reach \(host): the network is unreachable from here"
        case .noRoute(let host): return "cannot reach \(host): no route to the host"
        case .connectTimedOut(let host, let after):
            return "could not connect to \(host) within \(Measure.duration(after)): no answer from the host or the "
                + "network"
        case .connectionReset(let host): return "the connection to \(host) was reset"
        case .closedEarly: return "the server closed the connection before the whole answer arrived"
        case .closedBeforeEnd(let host, let received, let expected):
            return "\(host) closed the connection before the feed's end arrived ("
                + (expected.map { "got \(received) of \($0) bytes" } ?? "got \(received) bytes") + ")"
        case .cutShort(let host): return "the connection to \(host) was cut before the whole answer arrived"
        case .cancelled: return "the request was cancelled"
        case .invalidHTTP: return "the server's answer is not valid HTTP or ended early"
        case .networkError(let host, let reason): return "network error talking to \(host): \(reason)"
        case .httpClientError(let host, let reason): return "HTTP error talking to \(host): \(reason)"
        case .certificateForAnotherName(let host):
            return "the TLS certificate of \(host) is issued for another name: check the feed's URL"
        case .certificateNotTrusted(let host):
            return "the TLS certificate of \(host) is not trusted (self-signed, expired, or from an unknown "
                + "authority): podfresh will not fetch from it"
        case .certificateUnverifiable(let host): return "the TLS certificate of \(host) could not be checked"
        case .handshakeFailed(let host, let port):
            return "the TLS handshake with \(host)\(colon(port)) failed (does the server speak https on this port?)"
        case .noSuchFile(let path): return "cannot read \(path): no such file"
        case .folder(let path): return "\(path) is a folder, not a feed file"
        case .cannotOpen(let path): return "cannot open \(path): permission denied?"
        case .readFailed(let path, let reason): return "cannot read \(path): \(reason)"
        }
    }

    /// A fetch over one of its named limits, the limit and its value named: `example.com stopped sending: no byte
    /// for 30s (stall limit; got 1200 bytes)`.
    static func transferLimit(
        _ limit: TransferLimit, host: String, after: Duration, received: Int64, expected: Int64?, minimumRate: Int?
    ) -> String {
        let got = expected.map { "got \(received) of \($0) bytes" } ?? "got \(received) bytes"
        switch limit {
        case .nameLookup:
            return "cannot look up \(host): the name server did not answer within \(Measure.duration(after))"
        case .connect:
            return "could not connect to \(host) within \(Measure.duration(after)): no answer from the host or the "
                + "network"
        case .firstByte:
            return "\(host) sent no answer within \(Measure.duration(after)) of the request (first-byte limit)"
        case .stall:
            return "\(host) stopped sending: no byte for \(Measure.duration(after)) (stall limit; \(got))"
        case .minimumRate:
            return "\(host) sends too slowly: under \(minimumRate ?? 0) bytes/s over \(Measure.duration(after)) "
                + "(minimum-rate limit; \(got))"
        case .total:
            return "timed out: the whole fetch took longer than \(Measure.duration(after)) (\(got))"
        }
    }

    /// `:8080`, or nothing when the URL gives no port.
    static func colon(_ port: Int?) -> String { port.map { ":\($0)" } ?? "" }
}
