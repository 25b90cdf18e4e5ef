public import FeedFetching
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
        case .transport(let failure): return TransportFailureText.line(failure, of: .feed)
        case .noSuchFile(let path): return "cannot read \(path): no such file"
        case .folder(let path): return "\(path) is a folder, not a feed file"
        case .cannotOpen(let path): return "cannot open \(path): permission denied?"
        case .readFailed(let path, let reason): return "cannot read \(path): \(reason)"
        }
    }

}
