import ArgumentParser

/// The exit statuses podfresh documents (README, `--help`).
enum ExitStatus {
    /// One or more feeds failed; the others were stored.
    static let feedsFailed = ExitCode(1)
    /// An internal or database error (`EX_SOFTWARE`).
    static let internalError = ExitCode(70)
    /// Another refresh or watch holds the database's run lock (`EX_TEMPFAIL`).
    static let locked = ExitCode(75)
}
