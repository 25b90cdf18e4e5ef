public import Foundation

/// How long a download waits after failing permanently (a broken link: 404, 410, a document instead of media) before
/// it is tried again: an hour after the first failure, four times longer after each next one, at most a week. A broken
/// link is then fetched a handful of times a week instead of on every run; `download --retry` tries it at once.
public enum DownloadBackoff {
    /// The wait after the first permanent failure.
    public static let first: TimeInterval = 3600
    /// How much longer each next wait is.
    public static let factor: Double = 4
    /// The longest wait.
    public static let longest: TimeInterval = 7 * 24 * 3600

    /// The wait after the first transient failure (a host that does not resolve or answer, a cut connection, a
    /// 5xx): as a failing feed's first backoff step.
    public static let firstTransient: TimeInterval = 15 * 60
    /// The longest wait after transient failures: as a failing feed's longest interval.
    public static let longestTransient: TimeInterval = 4 * 3600

    /// The wait after `failures` failures in a row, the last one transient (0 for none): 15 minutes, doubling with
    /// each next one, at most 4 hours, as a feed that fails is checked.
    public static func transientWait(afterFailures failures: Int) -> TimeInterval {
        guard failures > 0 else { return 0 }
        return min(longestTransient, firstTransient * pow(2, Double(min(failures - 1, 10))))
    }

    /// The wait after `failures` permanent failures in a row (0 for none).
    public static func wait(afterFailures failures: Int) -> TimeInterval {
        guard failures > 0 else { return 0 }
        // Capped before the power can overflow: 4^10 hours is far past a week already.
        return min(longest, first * pow(factor, Double(min(failures - 1, 10))))
    }
}
