public import Foundation

/// How refresh progress is shown.
public enum OutputMode: String, Sendable, Hashable, CaseIterable {
    /// A live progress line redrawn in place, new episodes and errors printed above it.
    case tty
    /// One plain line per finished feed, then a summary.
    case plain
    /// JSON Lines: one object per event and one per new episode (see README for the keys).
    case json
    /// Cron mode: new episodes only, one line each; errors on stderr; nothing at all when nothing happened.
    case quiet

    /// The mode for the current process: `json`/`quiet` when asked, else the redrawing line on a capable terminal.
    public static func detect(
        json: Bool, quiet: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> OutputMode {
        if json { return .json }
        if quiet { return .quiet }
        let term = environment["TERM"] ?? ""
        return isatty(STDOUT_FILENO) == 1 && term != "dumb" && !term.isEmpty ? .tty : .plain
    }
}
