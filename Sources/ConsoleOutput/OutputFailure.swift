import Foundation
import Measures

/// Why standard output or standard error could not be written.
public enum OutputFailure: Error, Sendable, Equatable {
    /// Nobody reads any more (EPIPE): the consumer of a pipe, such as `head`, a pager or a log pipe, went away.
    case closed
    /// The stream cannot take the text: a full disk (ENOSPC, EDQUOT), an I/O error (EIO), a descriptor that is not
    /// open for writing (EBADF), or another `errno`.
    case unwritable(errno: Int32)

    /// The failure a write's `errno` means.
    public init(errno code: Int32) {
        self = code == EPIPE ? .closed : .unwritable(errno: code)
    }

    /// The exit status it ends a command with: 141 for a closed pipe, as a shell reports a process ended by SIGPIPE;
    /// 74 (`EX_IOERR`) for everything else.
    public var exitStatus: Int32 {
        switch self {
        case .closed: 128 + SIGPIPE
        case .unwritable: 74
        }
    }

    /// The one line said about it on standard error when podfresh ends, if any: nothing for a closed pipe (a reader
    /// that left asked for nothing more, as with any command in a pipeline), the cause for the rest.
    public var farewell: String? {
        switch self {
        case .closed: nil
        case .unwritable(let code): "cannot write standard output: " + ErrorWords.system(errno: code)
        }
    }
}
