public import Foundation
public import HTTPTransport
public import Measures

/// Limits and identity for fetching feeds, pinned explicitly rather than inherited from a client's defaults.
public struct FetchConfiguration: Sendable {
    /// How long connecting may take (per address tried), and looking a host name up.
    public var connectTimeout: Duration
    /// How long one whole fetch (lookup, connect, headers, body) may take.
    public var totalTimeout: Duration
    /// How long a server may take to answer a request (connecting included) before the first byte of its answer.
    public var firstByteTimeout: Duration = .seconds(30)
    /// How long the body may go without a byte.
    public var stallTimeout: Duration = .seconds(20)
    /// The body's slowest average rate over a window; nil for none.
    public var minimumRate: MinimumRate? = MinimumRate(bytesPerSecond: 1_000, window: .seconds(15))
    /// How long a connection waits unused before it is closed. A host's next feed follows its last at once, so
    /// a connection idle this long belongs to a host the run is done with; keeping hundreds of those open (with
    /// their buffers) would cost more memory than the feeds in flight. Five seconds, like Apache's keep-alive.
    public var idleConnectionTimeout: Duration = .seconds(5)
    /// How long resolved names (and failed lookups) are kept: a run reuses them; `watch` reuses them across cycles.
    public var keepAnswers: Duration = .seconds(300)
    /// The largest body accepted, counted as it streams (after decompression).
    public var maxBodyBytes: Int
    /// Redirects followed at most.
    public var maxRedirects: Int
    /// The largest decompressed/compressed size ratio accepted (a gzip bomb stops here).
    public var decompressionRatioLimit: Int
    /// Sent as `User-Agent`.
    public var userAgent: String
    /// The clock for `Retry-After` and `Expires`.
    public var now: @Sendable () -> Date
    /// The clock the transfer limits are measured on, and retries wait on (a manual one in tests).
    public var clock: AppClock = .system
    /// Whether feeds are asked over HTTP/2 where the server offers it (ALPN); false: HTTP/1.1 only (`--http1`).
    public var allowsHTTP2 = true

    /// The limits a fetch runs under, each named in the error it causes.
    public var limits: TransferLimits {
        TransferLimits(
            nameLookup: connectTimeout, connect: connectTimeout, firstByte: firstByteTimeout, stall: stallTimeout,
            minimumRate: minimumRate, total: totalTimeout)
    }

    /// How the resolver of a feed network waits and remembers.
    public var resolverPolicy: HostResolver.Policy {
        HostResolver.Policy(
            lookupTimeout: connectTimeout, keepAnswers: keepAnswers, keepFailures: min(keepAnswers, .seconds(60)))
    }

    public init(
        connectTimeout: Duration = .seconds(10),
        totalTimeout: Duration = .seconds(60),
        maxBodyBytes: Int = 75_000_000,
        maxRedirects: Int = 10,
        decompressionRatioLimit: Int = 1000,
        userAgent: String = "podfresh",
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
        self.decompressionRatioLimit = decompressionRatioLimit
        self.userAgent = userAgent
        self.now = now
    }
}

/// Parsing the HTTP headers a feed fetch cares about.
public enum HTTPHeaderValues {
    /// An HTTP-date (IMF-fixdate, RFC 850 or asctime), or nil.
    public static func date(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for format in [
            "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
            "EEE, dd MMM yyyy HH:mm:ss Z",
        ] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    /// Formats a date as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    public static func string(from date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// `Retry-After` as a date: delta seconds or an HTTP-date. Negative or unreadable values are nil; values beyond
    /// a week are cut to a week (a server asking for longer is more likely wrong than right).
    public static func retryAfter(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let week: TimeInterval = 7 * 86_400
        if let seconds = Double(trimmed), seconds.isFinite {
            guard seconds >= 0 else { return nil }
            return now.addingTimeInterval(min(seconds, week))
        }
        guard let date = date(trimmed) else { return nil }
        return min(max(date, now), now.addingTimeInterval(week))
    }

    /// `max-age` from `Cache-Control`, unless `no-store`/`no-cache` say not to rely on it.
    public static func maxAge(_ cacheControl: String) -> Int? {
        var result: Int?
        for directive in cacheControl.lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts[0] == "no-store" || parts[0] == "no-cache" { return nil }
            if parts[0] == "max-age", parts.count == 2, let value = Int(parts[1].trimmingCharacters(in: ["\""])),
                value >= 0
            {
                result = value
            }
        }
        return result
    }

    /// The lower-cased `charset` parameter of a `Content-Type`.
    public static func charset(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "charset" {
                let value = parts[1].trimmingCharacters(in: ["\"", "'"]).lowercased()
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }
}
