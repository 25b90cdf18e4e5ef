import Foundation
import Synchronization
import TestSupport
import Testing

/// The scoped launcher every end-to-end test uses: what it does with a process when the scope ends, and its input.
struct RunningProcessTests {
    struct Stop: Error {}

    @Test(.timeLimit(.minutes(1)))
    func aProcessStillRunningWhenTheScopeEndsIsTerminatedAndAwaited() async throws {
        let sleeper = try await withRunningProcess("/bin/sleep", arguments: ["60"]) { sleeper in
            #expect(sleeper.status == nil)
            return sleeper
        }
        #expect(sleeper.status == .signaled(SIGTERM), "ended and reaped before the scope returned")
    }

    @Test(.timeLimit(.minutes(1)))
    func aBodyThatThrowsStillEndsItsProcessAndItsErrorComesOut() async throws {
        let pid = Mutex<Int32?>(nil)
        await #expect(throws: Stop.self) {
            try await withRunningProcess("/bin/sleep", arguments: ["60"]) { sleeper in
                pid.withLock { $0 = sleeper.processIdentifier }
                throw Stop()
            }
        }
        let started = try #require(pid.withLock { $0 })
        #expect(kill(started, 0) == -1 && errno == ESRCH, "no process \(started) is left, not even a zombie")
    }

    @Test(.timeLimit(.minutes(1)))
    func aProcessThatIgnoresSIGTERMIsKilledAfterTheGracePeriod() async throws {
        let stubborn = try await withRunningProcess(
            "/bin/sh", arguments: ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"], stopAfter: .seconds(1)
        ) { stubborn in
            #expect(await stubborn.waitForLine(containing: "ready", within: .seconds(10)), "\(stubborn.transcript)")
            return stubborn
        }
        #expect(stubborn.status == .signaled(SIGKILL))
    }

    @Test(.timeLimit(.minutes(1)))
    func itsStandardInputIsWrittenAndClosedByTheBody() async throws {
        try await withRunningProcess("/bin/cat", arguments: [], keepsStandardInputOpen: true) { cat in
            try await cat.write(Array("first line\n".utf8))
            #expect(await cat.waitForLine(containing: "first line", within: .seconds(10)), "\(cat.transcript)")
            #expect(cat.status == nil, "cat waits for more")
            try await cat.write(Array("second line\n".utf8))
            try await cat.closeStandardInput()
            #expect(await cat.exit(within: .seconds(10)) == .exited(0))
            #expect(cat.standardOutput == "first line\nsecond line\n")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aLineIsEndedByANewlineAndTheWaitForOneEndsWithTheProcess() async throws {
        try await withRunningProcess("/bin/sh", arguments: ["-c", "printf 'partial'; exit 3"]) { quick in
            #expect(await !quick.waitForLine(containing: "partial", within: .seconds(30)), "no newline ends it")
            #expect(quick.status == .exited(3))
            #expect(quick.standardOutput == "partial")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func theBuiltBinaryReadsAnOPMLFileFromAPipe() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let opml =
            #"<opml version="2.0"><body><outline text="Piped" xmlUrl="https://piped.example/feed"/></body></opml>"#
        try await podfresh.withRunning(["import", "-"], keepsStandardInputOpen: true) { importing in
            try await importing.write(Array(opml.utf8))
            try await importing.closeStandardInput()
            #expect(await importing.exit(within: .seconds(30)) == .exited(0), "\(importing.standardError)")
        }
        let list = try await podfresh.run(["list"])
        #expect(list.stdout.contains("Piped"), "\(list.stdout)")
    }
}
