import Foundation
import TestSupport
import Testing

/// The binary run in a real terminal emulator, tmux, of a given size, and the screen as tmux draws it: what a user
/// sees after the escape sequences (progress lines redrawn in place, cleared areas) were applied.
enum TmuxScreen {
    /// tmux, where it is installed.
    static let path: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Skips a test, saying why, where tmux is missing.
    static let needsTmux: ConditionTrait = .enabled(if: path != nil, "tmux is not installed (apt install tmux)")

    /// The end marker the session prints after the command, with its exit status.
    private static let marker = "__podfresh_exit_status"

    /// Runs `podfresh arguments` in a detached tmux session `columns`×`rows` of its own (a server on a socket in the
    /// test's folder, ended before returning), waits for it to end, and returns the screen's lines (the scrollback
    /// included, lines tmux wrapped joined again, trailing blanks trimmed) and the command's exit status.
    static func run(
        _ podfresh: Podfresh, _ arguments: [String], columns: Int = 80, rows: Int = 40
    ) async throws -> (lines: [String], status: Int?) {
        let tmux = try #require(path)
        let socket = podfresh.directory.appendingPathComponent("tmux-\(UUID().uuidString.prefix(8)).sock").path
        var environment = ["PODFRESH_DATABASE": podfresh.databasePath, "HOME": podfresh.directory.path]
        for (name, value) in podfresh.environment { environment[name] = value }
        let assignments = environment.sorted { $0.key < $1.key }.map { quoted("\($0.key)=\($0.value)") }
        let command =
            "cd \(quoted(Podfresh.packageRoot.path)) && env \(assignments.joined(separator: " ")) "
            + ([Podfresh.binary.path] + arguments).map(quoted).joined(separator: " ")
            + "; printf '\\n\(marker) %s\\n' $?; sleep 600"
        let start = try await runProcess(
            tmux,
            arguments: [
                "-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "-s", "t",
                "/bin/sh", "-c", command,
            ], environment: ["TMUX": nil, "TERM": "xterm-256color"])
        #expect(start.status == .exited(0), "tmux new-session: \(start.standardError)")
        // The server this test started, ended by its own socket: its session's `sleep` goes with it.
        let result: (lines: [String], status: Int?)
        do {
            result = try await screen(tmux, socket: socket)
        } catch {
            _ = try? await runProcess(tmux, arguments: ["-S", socket, "kill-server"], environment: ["TMUX": nil])
            throw error
        }
        _ = try? await runProcess(tmux, arguments: ["-S", socket, "kill-server"], environment: ["TMUX": nil])
        return result
    }

    /// The screen of session `t` once its command ended (up to 120 s), and the command's exit status.
    private static func screen(_ tmux: String, socket: String) async throws -> (lines: [String], status: Int?) {
        let deadline = ContinuousClock.now + .seconds(120)
        var screen: [String] = []
        while ContinuousClock.now < deadline {
            let capture = try await runProcess(
                tmux, arguments: ["-S", socket, "capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", "t"],
                environment: ["TMUX": nil])
            screen = capture.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map {
                String($0.reversed().drop { $0 == " " }.reversed())
            }
            if let end = screen.lastIndex(where: { $0.hasPrefix(marker) }) {
                let status = Int(screen[end].dropFirst(marker.count + 1))
                var lines = Array(screen[..<end])
                while lines.last?.isEmpty == true { lines.removeLast() }
                return (lines, status)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the command did not end within 120 s: \(screen.joined(separator: "\n"))")
        return (screen, nil)
    }

    /// `text` quoted for `sh`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
