import ArgumentParser
import ConsoleOutput
import FeedModels
import Foundation
import RefreshEngine

/// The exit statuses podfresh documents (README, `--help`).
enum ExitStatus {
    /// One or more feeds failed; the others were stored.
    static let feedsFailed = ExitCode(1)
    /// An internal or database error (`EX_SOFTWARE`).
    static let internalError = ExitCode(70)
    /// Another refresh or watch holds the database's run lock (`EX_TEMPFAIL`).
    static let locked = ExitCode(75)

    /// The one place where an error that escaped a command becomes an exit status, for every command.
    ///
    /// A ``StoreError`` (the database could not be opened, read or written, is damaged, full, or another program's
    /// file; the lock file cannot be opened) is printed as one line naming the file and the cause, and exits 70; so
    /// is a ``WatchStopped``.
    /// Everything else keeps ArgumentParser's handling (usage errors 64, ``ExitCode``s as thrown).
    ///
    /// - Returns: the error for `exit(withError:)`; a message, if any, was already printed.
    static func mapping(_ error: any Error) -> any Error {
        if let error = error as? StoreError {
            Console.standard.error(StoreErrorText.line(error))
            return internalError
        }
        if let error = error as? WatchStopped {
            Console.standard.error(WatchMessages.failed(error.cause))
            return internalError
        }
        return error
    }

    /// Exits with the status of broken output when standard output (or a closed standard error) could not be
    /// written while the command ran: 141 for a closed pipe, 74 for a full disk or an I/O error, whatever the command
    /// would have returned (its report is incomplete). For the latter it says why in one line on standard error,
    /// when that still can be written. Returns when the output is intact.
    static func forBrokenOutput() {
        guard let failure = StandardOutputHealth.shared.failure else { return }
        StandardOutputHealth.shared.sayWhyBroken()
        exit(failure.exitStatus)
    }

    /// 70 when a feed's refresh failed because the database did (damaged, full, unwritable): that is no fault of the
    /// feed, and every command exits 70 on a database error. The feed's line already named the file and the cause.
    static func forDatabaseFailures(in summary: RefreshSummary) -> ExitCode? {
        let failed = summary.outcomes.contains { $0.failure?.kind == .store(.database) }
        return failed ? internalError : nil
    }
}
