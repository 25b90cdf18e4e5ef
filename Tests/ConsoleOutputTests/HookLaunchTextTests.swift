import ConsoleOutput
import Foundation
import RefreshEngine
import Testing

/// A hook that could not start carries facts (the shell, the step, errno); ConsoleOutput alone words them. These pin
/// the wording of every step.
struct HookLaunchTextTests {
    static let wordings: [(HookLaunchFailure, String)] = [
        (
            HookLaunchFailure(shell: "/bin/sh", step: .shellNotFound, errno: ENOENT),
            "/bin/sh cannot be executed: No such file or directory"
        ),
        (
            HookLaunchFailure(shell: "/bin/sh", step: .shellNotFound, errno: EACCES),
            "/bin/sh cannot be executed: Permission denied"
        ),
        (
            HookLaunchFailure(shell: "/bin/sh", step: .shellNotFound, errno: nil),
            "/bin/sh was not found or cannot be executed"
        ),
        (
            HookLaunchFailure(shell: "/bin/sh", step: .spawn, errno: EAGAIN),
            "/bin/sh could not be started: Resource temporarily unavailable"
        ),
        (HookLaunchFailure(shell: "/bin/sh", step: .spawn, errno: nil), "/bin/sh could not be started"),
        (
            HookLaunchFailure(shell: "/bin/sh", step: .monitor, errno: ECHILD),
            "podfresh could not watch /bin/sh for its exit: No child processes"
        ),
        (
            HookLaunchFailure(shell: "/bin/sh", step: .output, errno: EBADF),
            "podfresh could not read the output of /bin/sh: Bad file descriptor"
        ),
        (
            HookLaunchFailure(shell: "/bin/sh", step: .other("unexpected error (X.Y)"), errno: nil),
            "unexpected error (X.Y)"
        ),
    ]

    @Test(arguments: wordings)
    func eachStepIsWordedOnce(failure: HookLaunchFailure, line: String) {
        #expect(HookLaunchText.line(failure) == line)
    }
}
