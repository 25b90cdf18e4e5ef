import ArgumentParser
import ConsoleOutput
import Foundation

@main
struct RootCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podfresh",
        abstract: "Keep podcast subscriptions fresh: fetch every feed, store new episodes, say what is new.",
        discussion: """
            Exit status: 0 every feed refreshed or unchanged; 1 one or more feeds failed (the others were \
            still stored), a download failed (the others are on disk), the sync with the gPodder server failed (the refresh went on with the local list), or a command's input was refused (a feed already subscribed, or not a feed; a migrate target \
            that already holds subscriptions, without --merge); 64 usage \
            error (including a first word that is not a command, and a feed name that matches no subscription or several); 70 internal or database error, in \
            every command (a database that cannot be opened, read or written, is damaged or full, belongs to \
            another program, or whose lock file cannot be opened); 75 another refresh or watch holds the database's \
            lock; 130/143 a refresh stopped by SIGINT/SIGTERM (feeds in flight were stored, the rest not checked; downloads in \
            flight keep their .part to resume); 141 standard output is a pipe nobody reads any more (head, a pager \
            quit early) and 74 standard output cannot be written (a full disk, an I/O error): every command stops \
            writing, and refresh, watch and download stop as on SIGTERM (merges in flight are stored; run again to \
            check the rest).
            """,
        version: PodfreshVersion.versionLine,
        subcommands: [
            Refresh.self, Watch.self, Download.self, Add.self, Remove.self, Move.self, SetSettings.self, List.self,
            Status.self,
            Episodes.self, Mark.self,
            ImportOPML.self, ExportOPML.self, Parse.self, Migrate.self, Sync.self, ReplaySchedule.self,
        ],
        defaultSubcommand: Refresh.self
    )

    /// Parses, runs, and maps whatever error escapes a command to its exit status in one place
    /// (``ExitStatus/mapping(_:)``): every database error exits 70, whichever command met it; output that could not
    /// be written ends every command with its own status (``ExitStatus/forBrokenOutput()``).
    static func main() async {
        StandardDescriptors.openClosedOnDevNull()
        // A reader that leaves is a failed write (EPIPE), handled as such, not a signal that kills the process
        // mid-merge. Hooks start with every signal's default (swift-subprocess resets them).
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try await parseCommand(rewritingOptionalValues(CommandLine.arguments.dropFirst()))
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let mapped = ExitStatus.mapping(error)
            ExitStatus.forBrokenOutput()
            exit(withError: mapped)
        }
        ExitStatus.forBrokenOutput()
    }

    /// Parses `arguments` into the command to run, reading options typed before the command after it, and refusing
    /// (exit 64, before anything opens or creates a database) a first word that is not a command
    /// (``CommandWords``).
    static func parseCommand(_ arguments: [String]) async throws -> any ParsableCommand {
        switch CommandWords.arrange(arguments) {
        case .notACommand(let word):
            throw await CommandWords.refuse(word, arguments: arguments)
        case .asGiven(let words):
            let command = try parseAsRoot(words)
            // Only options, and words after them: the default `refresh` took those words as feeds.
            if let refresh = command as? Refresh, words.first != "refresh", let word = refresh.feeds.first {
                throw await CommandWords.refuse(word, arguments: words)
            }
            return command
        case .commandFirst(let words, let options):
            do {
                return try parseAsRoot(words)
            } catch {
                // ArgumentParser names what the command does not take; this says how the line was read.
                if exitCode(for: error) == .validationFailure, !options.isEmpty {
                    Console.standard.error(CommandWordText.readCommandFirst(words))
                }
                throw error
            }
        }
    }

    /// `--wait` may stand alone (wait as long as it takes) or carry a duration (`--wait=5m`, `--wait 5m`);
    /// ArgumentParser options always take a value, so a bare `--wait` becomes `--wait=forever`. A following argument
    /// is taken as the duration when it has a unit (`2s`, `5m`, `forever`); a bare number after `--wait` stays a feed
    /// id (`refresh --wait 12` checks feed 12), so plain seconds are written `--wait=30`.
    static func rewritingOptionalValues<Arguments: Collection<String>>(_ arguments: Arguments) -> [String] {
        var result: [String] = []
        var passThrough = false
        var iterator = arguments.makeIterator()
        var pending = iterator.next()
        while let argument = pending {
            pending = iterator.next()
            if argument == "--" { passThrough = true }
            guard !passThrough, argument == "--wait" else {
                result.append(argument)
                continue
            }
            if let next = pending, Double(next) == nil, DurationArgument(argument: next) != nil {
                result.append("--wait=" + next)
                pending = iterator.next()
            } else {
                result.append("--wait=forever")
            }
        }
        return result
    }
}

enum PodfreshVersion: BuildStamped {
    static let current = "0.1.0"
    static let userAgent = "podfresh/\(current) (+https://github.com/podfresh/podfresh)"
    /// What `--version` prints: the version and the commit built from, `0.1.0 (commit 3afec98c1d2e)`: the one
    /// `Scripts/package.sh` stamped, else the git checkout's the build came from (`GitCheckout`, written before each
    /// build by the GitCommitStamp plugin, `-dirty` when tracked files had changed), else `0.1.0 (commit unknown)`
    /// (a build from a tarball). `Scripts/package.sh` reads the version from here.
    static var versionLine: String { "\(current) (commit \(stampedCommit ?? GitCheckout.commit ?? "unknown"))" }
}

/// The commit a binary was built from, when its build was stamped.
///
/// `Scripts/package.sh` writes `Sources/podfresh/BuildStamp.generated.swift` (git-ignored) before its release build
/// and removes it after: `extension PodfreshVersion { static var stampedCommit: String? { "3afec98c1d2e" } }`. A
/// member declared on the type itself is chosen over this protocol extension's default, so with the file the stamp is
/// used, and without it (a plain `swift build`) the commit is `nil` and the git checkout's is used, when there is
/// one. Only this module is recompiled when the stamp changes.
protocol BuildStamped {}

extension BuildStamped {
    static var stampedCommit: String? { nil }
}
