import Measures

/// The lines `watch` says about itself (not about feeds), for standard error.
///
/// Each function returns the line without a newline and without the "podfresh: " that ``ConsoleRenderer/error(_:)``
/// adds.
public enum WatchMessages {
    /// `watch --metrics`: where Prometheus can scrape, with the port actually bound.
    ///
    /// - Parameter url: e.g. `http://127.0.0.1:9464/metrics`.
    public static func servingMetrics(at url: String) -> String {
        "serving metrics at \(url)"
    }

    /// `watch --metrics`: the address could not be bound; `watch` does not start.
    ///
    /// - Parameter problem: The server's own description, naming the address and the cause.
    public static func metricsUnavailable(_ problem: String) -> String {
        "\(problem); watch did not start"
    }

    /// `watch --interval` shorter than `--min-interval`: the fixed cycle fetches every feed that often all the same.
    ///
    /// - Parameters:
    ///   - interval: The `--interval`, as typed (`10s`).
    ///   - minimum: The `--min-interval`, as typed (`15m`).
    public static func intervalBelowMinimum(_ interval: String, minimum: String) -> String {
        "--interval \(interval) is shorter than --min-interval \(minimum): every feed is fetched every \(interval) "
            + "all the same; give a longer --interval, or --min-interval \(interval) to say you mean it"
    }

    /// A cycle failed as a whole with an error that is not the store's own: what happened, as the line that ends
    /// `watch` with 70 says it.
    ///
    /// - Parameter error: Why the cycle failed.
    public static func failed(_ error: any Error) -> String {
        "watch stopped: \(ErrorText.line(error))"
    }
}
