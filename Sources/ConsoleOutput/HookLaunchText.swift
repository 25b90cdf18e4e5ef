import Measures
public import RefreshEngine

/// How a hook that could not be started reads: the one place a ``HookLaunchFailure`` is worded.
public enum HookLaunchText {
    /// The step that failed and the system's reason: `/bin/sh could not be started: Resource temporarily unavailable`.
    public static func line(_ failure: HookLaunchFailure) -> String {
        let step: String
        switch failure.step {
        case .shellNotFound where failure.errno != nil: step = "\(failure.shell) cannot be executed"
        case .shellNotFound: step = "\(failure.shell) was not found or cannot be executed"
        case .spawn: step = "\(failure.shell) could not be started"
        case .monitor: step = "podfresh could not watch \(failure.shell) for its exit"
        case .output: step = "podfresh could not read the output of \(failure.shell)"
        case .other(let words): return words
        }
        return step + (failure.errno.map { ": " + ErrorWords.system(errno: $0) } ?? "")
    }
}
