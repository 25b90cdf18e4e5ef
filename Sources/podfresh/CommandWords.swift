import ArgumentParser
import ConsoleOutput
import FeedModels
import Foundation

/// The first words of a command line: a command comes first, or options only (the default `refresh`), or nothing.
///
/// A word in the command's place is a usage error, never a feed's name: `podfresh update` used to refresh the one
/// feed whose title held "Update" and say `1 feed: 1 unchanged`, which a newsboat or gPodder user reads as every feed
/// updated. Options typed before the command (`podfresh --database x.sqlite list`) are read after it, where the
/// command declares them; those it does not take are refused like any unknown option.
enum CommandWords {
    /// How the words given are to be parsed.
    enum Arrangement: Equatable {
        /// As given: a command first, only options (the default `refresh` with them), or nothing (`podfresh`).
        case asGiven([String])
        /// Options came before the command: the command first, then every other word in its order.
        case commandFirst([String], options: [String])
        /// The first word that is not an option is not a command either.
        case notACommand(String)
    }

    /// The commands' names, as typed.
    static var commandNames: [String] {
        RootCommand.configuration.subcommands.map { $0._commandName }
    }

    /// Words other tools use for one of ours (gPodder's `update`, newsboat's `reload`, a shell's `ls`).
    static let synonyms: [String: String] = [
        "update": "refresh", "reload": "refresh", "fetch": "refresh", "pull": "refresh", "check": "refresh",
        "poll": "refresh", "ls": "list", "feeds": "list", "subscriptions": "list", "rm": "remove",
        "delete": "remove", "unsubscribe": "remove", "subscribe": "add", "dl": "download", "get": "download",
        "info": "status", "version": "--version", "show": "episodes", "new": "episodes --new",
    ]

    /// Reads where the command is in `arguments` (after ``RootCommand/rewritingOptionalValues(_:)``).
    static func arrange(_ arguments: [String]) -> Arrangement {
        guard let first = arguments.first else { return .asGiven(arguments) }
        let commands = Set(commandNames + ["help"])
        if commands.contains(first) { return .asGiven(arguments) }
        guard first.hasPrefix("-") else { return .notACommand(first) }
        // Options first: the command is the first command word before a `--` (after which every word is a value).
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        guard let index = arguments[..<end].firstIndex(where: commands.contains) else {
            return .asGiven(arguments)
        }
        let options = Array(arguments[..<index])
        return .commandFirst([arguments[index]] + options + arguments[(index + 1)...], options: options)
    }

    /// The command to suggest for `word`: its synonym, else the command nearest in edit distance (letters added,
    /// removed, changed or swapped), the first listed on a tie.
    static func closest(to word: String) -> String {
        let lowered = word.lowercased()
        if let synonym = synonyms[lowered] { return synonym }
        var best = (name: "refresh", distance: Int.max)
        for name in commandNames {
            let distance = editDistance(lowered, name)
            if distance < best.distance { best = (name, distance) }
        }
        return best.name
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and adjacent transpositions
    /// each cost 1 (`lsit` is 1 from `list`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// The `--database` value among `arguments`, so that a refused word is looked up in the database the user meant.
    static func databaseOption(in arguments: [String]) -> GlobalOptions {
        var values: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { break }
            if argument.hasPrefix("--database=") {
                values = ["--database", String(argument.dropFirst("--database=".count))]
            } else if argument == "--database", index + 1 < arguments.count {
                values = ["--database", arguments[index + 1]]
            }
        }
        return (try? GlobalOptions.parse(values)) ?? (try? GlobalOptions.parse([])) ?? GlobalOptions()
    }

    /// Says that `word` is not a command, names the closest one, and, when the word selects subscriptions, the
    /// command that would check them; then ends the run with a usage error (64).
    ///
    /// The database is only read, and only when it exists: a refused command creates no file.
    static func refuse(_ word: String, arguments: [String]) async -> ExitCode {
        Console.standard.error(CommandWordText.notACommand(word, closest: closest(to: word)))
        let global = databaseOption(in: arguments)
        let subscriptions = try? await withStore(global, access: .reading) { store in
            try await store.repositories.subscriptions()
        }
        let matches = FeedSelector.match(word, in: subscriptions ?? [])
        if !matches.isEmpty {
            Console.standard.error(CommandWordText.matchesFeeds(word, matches))
        }
        return .validationFailure
    }
}
