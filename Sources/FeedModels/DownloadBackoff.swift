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

    /// The wait after `failures` permanent failures in a row (0 for none).
    public static func wait(afterFailures failures: Int) -> TimeInterval {
        guard failures > 0 else { return 0 }
        // Capped before the power can overflow: 4^10 hours is far past a week already.
        return min(longest, first * pow(factor, Double(min(failures - 1, 10))))
    }
}
