import Foundation

/// The three standard descriptors as podfresh starts.
public enum StandardDescriptors {
    /// Opens each of standard input, output and error that was closed when the process started on `/dev/null`, as
    /// daemons do.
    ///
    /// Called first thing, before podfresh opens any file: a closed descriptor 0–2 would otherwise be the number the
    /// next `open` gets (the lock, the database, a download's `.part`, a hook's pipe), and that file would receive
    /// the output meant for the terminal. With `/dev/null` there, a command whose standard output was closed
    /// (`podfresh refresh >&-`) runs as usual and its output goes nowhere.
    public static func openClosedOnDevNull() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
        where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // open returns the lowest free number, which is this one: the lower ones are open by now.
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened >= 0 && opened != descriptor { close(opened) }
        }
    }
}
