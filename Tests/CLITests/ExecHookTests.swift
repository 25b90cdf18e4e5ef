import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `refresh --exec` / `--exec-timeout`, through the built binary.
@Suite(.timeLimit(.minutes(2)))
struct ExecHookTests {
    /// One item, so the hook runs once.
    private static let oneEpisodeFeed = """
        <rss version="2.0"><channel><title>One</title>
        <item><title>Only episode</title><guid>only-1</guid></item>
        </channel></rss>
        """

    private func subscribeToOneEpisode(_ podfresh: Podfresh) async throws {
        let path = podfresh.directory.appendingPathComponent("one.xml").path
        try Self.oneEpisodeFeed.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try await podfresh.run(["add", "--no-fetch", path]).status == 0)
    }

    @Test func execTimeoutStopsTheHookAndItsChildrenAndRefreshReturnsSoonAfter() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await subscribeToOneEpisode(podfresh)
        let pidFile = podfresh.directory.appendingPathComponent("pids").path
        // The sleeps outlast the test's time limit: the refresh can only come back because the timeout struck.
        let hook = "sleep 600 & echo $! >> '\(pidFile)'; echo $$ >> '\(pidFile)'; sleep 600"
        let result = try await podfresh.run(["refresh", "--quiet", "--exec", hook, "--exec-timeout", "1s"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("timed out after 1s"), "\(result.stderr)")
        #expect(result.stderr.contains("(--exec-timeout)"), "the executable names the flag: \(result.stderr)")
        let started = pidsWritten(to: pidFile)
        #expect(started.count == 2)
        let deadline = Date().addingTimeInterval(20)
        while !started.allSatisfy(gone) && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(started.allSatisfy(gone), "still running: \(started.filter { !gone($0) })")
    }

    @Test func theHooksOutputGoesToPodfreshsOwnStreams() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await subscribeToOneEpisode(podfresh)
        let hook = "echo \"hook saw $PODFRESH_EPISODE_TITLE\"; echo 'hook complains' >&2"
        let result = try await podfresh.run(["refresh", "--quiet", "--exec", hook])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.contains("hook saw Only episode"), "\(result.stdout)")
        #expect(result.stderrLines.contains("hook complains"), "\(result.stderr)")
    }

    @Test func withJSONTheHooksOutputStaysOutOfTheJSONLines() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await subscribeToOneEpisode(podfresh)
        let result = try await podfresh.run(["refresh", "--json", "--exec", "echo 'hook says hi'"])
        #expect(result.status == 0, "\(result.stderr)")
        for line in result.stdoutLines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
        }
        #expect(result.stderrLines.contains("hook says hi"), "\(result.stderr)")
    }

    private func pidsWritten(to path: String) -> [pid_t] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
    }

    /// No such process, or a zombie that init has not reaped yet.
    private func gone(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0 { return errno == ESRCH }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
