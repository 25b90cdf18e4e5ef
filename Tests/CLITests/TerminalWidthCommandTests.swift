import Foundation
import TestSupport
import Testing

/// On a terminal, `refresh`, `list`, `status`, `episodes` and `watch` fit its width (issue #37): the built binary in
/// a pseudo-terminal of 80 and 120 columns, on the real-feed corpus served over HTTP.
@Suite(.serialized)
struct TerminalWidthCommandTests {
    /// The OPML files of the corpus: subscribed like feeds, they fail (they are not feeds).
    static let opmlNames = [
        "feeder__antennapod-feeds.opml", "gnome-podcasts__export_test.opml", "picofeed__subscriptionList.opml",
    ]

    @Test(.timeLimit(.minutes(5)), TerminalSupport.needsCorpus, arguments: [80, 120])
    func everyLineFitsTheTerminal(columns: Int) async throws {
        try await TerminalSupport.withSubscribedCorpus { podfresh in
            let terminal = TerminalSupport.inTerminal(podfresh, columns: columns)

            let refresh = try await terminal.run(["refresh"], timeout: 240)
            #expect(refresh.status == 1, "the OPML files fail: \(refresh.stdout)")
            #expect(TerminalSupport.tooWide(refresh.stdout, columns: columns).isEmpty, "\(refresh.stdout)")
            let screen = TerminalSupport.screenLines(refresh.stdout)
            #expect(screen.contains { $0.hasPrefix("  + ") }, "new episodes are announced: \(refresh.stdout)")
            #expect(
                !screen.contains { $0.hasPrefix("  + ") && $0.contains("http") },
                "an episode's line leaves its media URL out: \(refresh.stdout)")
            #expect(refresh.stdout.contains("OPML"), "a failure's cause is printed whole, wrapped")

            for command in [["list"], ["status"], ["episodes", "--limit", "300"], ["list", "1"]] {
                let result = try await terminal.run(command)
                #expect(result.status == 0, "\(command): \(result.stdout)")
                #expect(
                    TerminalSupport.tooWide(result.stdout, columns: columns).isEmpty,
                    "\(command) at \(columns) columns:\n\(result.stdout)")
            }
            let list = TerminalSupport.screenLines(try await terminal.run(["list"]).stdout)
            #expect(list.filter { $0.contains("failing ×1") }.count == 3, "\(list.joined(separator: "\n"))")
            #expect(!list.contains { $0.contains("OPML") }, "the cause is in `status` and `list FEED`")
            let status = try await terminal.run(["status"]).stdout
            #expect(status.contains("OPML"), "status gives the cause: \(status)")

            // --wide on a terminal, and a pipe: every column whole, wider than the terminal.
            let wide = try await terminal.run(["list", "--wide"]).stdout
            #expect(!TerminalSupport.tooWide(wide, columns: columns).isEmpty, "\(wide)")
            #expect(wide.contains("OPML"))
            let piped = try await podfresh.run(["list"]).stdout
            #expect(piped.contains("OPML") && piped.contains("(every "), "a pipe gets causes and reasons")
        }
    }

    @Test(.timeLimit(.minutes(5)), TerminalSupport.needsCorpus)
    func watchFitsTheTerminalAndSaysEachFailureOnce() async throws {
        try await TerminalSupport.withSubscribedCorpus { podfresh in
            let terminal = TerminalSupport.inTerminal(podfresh, columns: 80)
            try await terminal.withRunning(["watch", "--interval", "2s"]) { watch in
                // The second and third cycles end with the count of the failures they did not repeat.
                let counted = await watch.wait(within: .seconds(240)) { text in
                    text.components(separatedBy: "3 feeds still failing as before").count >= 3
                }
                #expect(counted, "\(watch.standardOutput)")
                watch.terminate()
                _ = await watch.exit(within: .seconds(20))
                let output = watch.standardOutput
                #expect(TerminalSupport.tooWide(output, columns: 80).isEmpty, "\(output)")
                let screen = TerminalSupport.screenLines(output)
                for name in Self.opmlNames {
                    let said = screen.filter { $0.hasPrefix("podfresh: ") && $0.contains(name) }
                    #expect(said.count == 1, "\(name) is said once over the cycles: \(said)")
                }
            }
        }
    }
}
