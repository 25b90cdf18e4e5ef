/// What `refresh`, `watch` and `download` say on standard error when a signal stops them.
///
/// Each function returns the line without a newline and without the "podfresh: " that ``ConsoleRenderer/error(_:)``
/// adds.
public enum StopMessages {
    /// `refresh`: the first signal (named, e.g. `SIGINT`, when known) was heard.
    public static func refreshStopping(signal: String?) -> String {
        "stopping\(signal.map { " on \($0)" } ?? ""): no new fetches; feeds in flight finish and are stored "
            + "(signal again to quit now)"
    }

    /// `refresh`: it ended early because of `signal`; `checked` of `total` feeds were checked.
    public static func refreshStopped(signal: String, checked: Int, total: Int) -> String {
        "stopped by \(signal): \(checked) of \(total) feeds checked (every fetch in flight finished and was stored), "
            + "\(total - checked) not checked; run `podfresh refresh` again to check them"
    }

    /// `watch`: the first signal was heard.
    public static let watchStopping = "stopping: letting feeds in flight finish (signal again to quit now)"

    /// `download`: the first signal was heard.
    public static let downloadStopping =
        "stopping: downloads in flight stop and keep their .part to resume (signal again to quit now)"
}
