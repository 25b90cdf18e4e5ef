import Foundation
import Synchronization
import TestSupport
import Testing

/// `watch` and cron mode (`--quiet`) say a feed's failure once, and again only when it changes; a recovery once; the
/// exit status still says a feed failed (issue #37).
@Suite(.serialized)
struct QuietRepeatsCommandTests {
    /// What the test server answers for the one feed, changed by the test between runs.
    final class Answer: Sendable {
        let current = Mutex(TestResponse(status: 404))
        func set(_ response: TestResponse) { current.withLock { $0 = response } }
        func get() -> TestResponse { current.withLock { $0 } }
    }

    static let feed = TestResponse(
        status: 200, headers: [("Content-Type", "application/rss+xml")],
        text:
            "<rss version=\"2.0\"><channel><title>Flaky</title><item><title>One</title><guid>one</guid></item></channel></rss>"
    )

    @Test(.timeLimit(.minutes(5)), TerminalSupport.needsCorpus)
    func twoQuietRefreshesOfTheCorpusSayTheOPMLFailuresOnceAndBothExitOne() async throws {
        try await TerminalSupport.withSubscribedCorpus { podfresh in
            let first = try await podfresh.run(["refresh", "--quiet"], timeout: 240)
            #expect(first.status == 1)
            for name in TerminalWidthCommandTests.opmlNames {
                #expect(first.stderrLines.filter { $0.contains(name) }.count == 1, "\(first.stderr)")
            }
            let second = try await podfresh.run(["refresh", "--quiet", "--all"], timeout: 240)
            #expect(second.status == 1, "a failing feed still fails the run")
            #expect(second.stderr.isEmpty, "the same failures are not said again: \(second.stderr)")
            #expect(second.stdout.isEmpty, "\(second.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func cronSaysAChangedCauseOnceAndARecoveryOnce() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            let answer = Answer()
            server.setRoute("/flaky.xml") { _ in answer.get() }
            #expect(try await podfresh.run(["add", "--no-fetch", server.url("/flaky.xml").absoluteString]).status == 0)
            func cron() async throws -> ProcessResult { try await podfresh.run(["refresh", "--quiet", "--all"]) }

            let first = try await cron()
            #expect(first.status == 1 && first.stderrLines.count == 1 && first.stderr.contains("404"), "\(first)")
            let again = try await cron()
            #expect(again.status == 1 && again.stderr.isEmpty && again.stdout.isEmpty, "\(again)")

            answer.set(TestResponse(status: 500))
            let changed = try await cron()
            #expect(
                changed.status == 1 && changed.stderrLines.count == 1 && changed.stderr.contains("500"), "\(changed)")
            let changedAgain = try await cron()
            #expect(changedAgain.status == 1 && changedAgain.stderr.isEmpty, "\(changedAgain)")

            answer.set(Self.feed)
            let recovered = try await cron()
            #expect(recovered.status == 0, "\(recovered)")
            #expect(recovered.stdoutLines.filter { $0.hasPrefix("recovered ") }.count == 1, "\(recovered.stdout)")
            #expect(recovered.stdout.contains("after 4 failed checks (last: HTTP 500"), "\(recovered.stdout)")
            let later = try await cron()
            #expect(later.status == 0 && later.stdout.isEmpty && later.stderr.isEmpty, "\(later)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func watchSaysAFailureOnceAChangeOnceAndARecoveryOnceOverItsCycles() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            let answer = Answer()
            server.setRoute("/flaky.xml") { _ in answer.get() }
            #expect(try await podfresh.run(["add", "--no-fetch", server.url("/flaky.xml").absoluteString]).status == 0)
            try await podfresh.withRunning(["watch", "--interval", "1s"]) { watch in
                func count(_ text: String, in stream: RunningProcess.Stream) -> Int {
                    watch.text(stream).components(separatedBy: text).count - 1
                }
                /// Waits until `text` has been said `times` times on `stream`.
                func waitFor(_ text: String, _ times: Int, in stream: RunningProcess.Stream) async -> Bool {
                    await watch.wait(for: stream, within: .seconds(60)) {
                        $0.components(separatedBy: text).count - 1 >= times
                    }
                }
                // "HTTP 404", not "404": the test server's port may hold those digits.
                let stillFailing = "1 feed still failing as before"
                #expect(await waitFor(stillFailing, 2, in: .standardError), "\(watch.transcript)")
                #expect(count("HTTP 404", in: .standardError) == 1, "\(watch.transcript)")

                answer.set(TestResponse(status: 500))
                #expect(await waitFor("HTTP 500", 1, in: .standardError), "\(watch.transcript)")
                let counted = count(stillFailing, in: .standardError)
                #expect(await waitFor(stillFailing, counted + 2, in: .standardError), "\(watch.transcript)")
                #expect(count("HTTP 500", in: .standardError) == 1, "\(watch.transcript)")

                answer.set(Self.feed)
                #expect(await waitFor("recovered Flaky", 1, in: .standardOutput), "\(watch.transcript)")
                let cycles = count("next check at", in: .standardOutput)
                #expect(await waitFor("next check at", cycles + 2, in: .standardOutput), "\(watch.transcript)")
                #expect(count("recovered ", in: .standardOutput) == 1, "\(watch.transcript)")
                #expect(count("HTTP 404", in: .standardError) == 1 && count("HTTP 500", in: .standardError) == 1)
                watch.terminate()
                #expect(await watch.exit(within: .seconds(20)) == .exited(0), "\(watch.transcript)")
            }
        }
    }

    @Test func versionNamesTheCommitOfTheGitCheckout() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let version = try await podfresh.run(["--version"])
        #expect(version.status == 0)
        guard FileManager.default.fileExists(atPath: Podfresh.packageRoot.appendingPathComponent(".git").path) else {
            print("skipping the commit check: the package is not a git checkout")
            return
        }
        #expect(
            version.stdout.contains(/^0\.[0-9.]+ \(commit [0-9a-f]{12}(-dirty)?\)$/.anchorsMatchLineEndings()),
            "\(version.stdout)")
    }
}
