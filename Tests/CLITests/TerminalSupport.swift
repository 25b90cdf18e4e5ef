import Foundation
import TestSupport
import Testing

/// The real-feed corpus (`../shared/corpus/real`) served over HTTP by the test server, and the binary run in a
/// pseudo-terminal of a given width (util-linux `script`, with `stty cols`).
enum TerminalSupport {
    /// `../shared/corpus/real` beside the package, or nil when it is absent.
    static let corpus: URL? = {
        let url = Podfresh.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/real")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    /// Skips a test, saying why, where the corpus is absent.
    static let needsCorpus: ConditionTrait = .enabled(if: corpus != nil, "../shared/corpus/real is absent")

    /// Runs `body` with a fresh `podfresh` subscribed (`add --no-fetch`) to every corpus file, served by a test server.
    static func withSubscribedCorpus(_ body: (Podfresh) async throws -> Void) async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await withTestHTTPServer { server in
            let urls = try serveCorpus(server)
            #expect(try await podfresh.run(["add", "--no-fetch"] + urls).status == 0)
            try await body(podfresh)
        }
    }

    /// The corpus's files (every feed and the three OPML files that are not feeds), by name.
    static func corpusFiles() throws -> [String] {
        guard let corpus else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0 != "MANIFEST.tsv" }.sorted()
    }

    /// Serves every corpus file at `/NAME` (with an ETag) and returns their URLs.
    static func serveCorpus(_ server: TestHTTPServer) throws -> [String] {
        guard let corpus else { return [] }
        return try corpusFiles().map { name in
            let bytes = try [UInt8](Data(contentsOf: corpus.appendingPathComponent(name)))
            // With an ETag, as real servers give one: a second check is answered 304.
            server.serveVersioned("/" + name, bytes, etag: "\"v1-\(name)\"", contentType: "text/xml")
            return server.url("/" + name).absoluteString
        }
    }

    /// `podfresh` started inside a pseudo-terminal `columns` wide (standard output and standard error both the
    /// terminal, `TERM=xterm`): a copy of `podfresh` whose launcher is `script`.
    static func inTerminal(_ podfresh: Podfresh, columns: Int) -> Podfresh {
        var terminal = podfresh
        // bash quotes the binary and its arguments into the one command `script -c` takes.
        terminal.launcher = [
            "/bin/bash", "-c",
            """
            command="stty cols \(columns) rows 50 && exec"
            for argument in "$@"; do command+=" $(printf %q "$argument")"; done
            exec /usr/bin/script -qefc "$command" /dev/null
            """,
            "pty",
        ]
        terminal.environment["TERM"] = "xterm"
        terminal.environment["SHELL"] = "/bin/bash"
        return terminal
    }

    /// The lines as a terminal shows them: escape sequences removed, each carriage return starting the line over
    /// (every stretch drawn is returned, the progress line's too).
    static func screenLines(_ text: String) -> [String] {
        // "\r\n" is one Character to Swift: turned into "\n" first, so that lines split where the terminal's do.
        let plain = text.replacing(/\x{1B}\[[0-9;?]*[A-Za-z]/, with: "").replacingOccurrences(of: "\r\n", with: "\n")
        return plain.split(separator: "\n", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "\r", omittingEmptySubsequences: true).map(String.init)
        }
    }

    /// The columns a terminal draws `text` in, measured here independently of ConsoleOutput: East Asian wide and
    /// fullwidth characters and emoji pictures take two, combining marks alone none.
    static func columns(_ text: String) -> Int {
        text.reduce(0) { total, character in
            let scalars = character.unicodeScalars
            guard let first = scalars.first else { return total }
            if scalars.allSatisfy({ $0.properties.generalCategory == .nonspacingMark }) { return total }
            let value = first.value
            let wide =
                (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
                || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
                || (0xFF00...0xFF60).contains(value) || (0xFFE0...0xFFE6).contains(value)
                || (0x20000...0x3FFFD).contains(value) || first.properties.isEmojiPresentation
                || (scalars.contains { $0.value == 0xFE0F } && first.properties.isEmoji)
            return total + (wide ? 2 : 1)
        }
    }

    /// The lines of `text` wider than `columns`.
    static func tooWide(_ text: String, columns: Int) -> [String] {
        screenLines(text).filter { Self.columns($0) > columns }
    }
}
