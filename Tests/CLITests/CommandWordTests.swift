import ArgumentParser
import Foundation
import Testing

@testable import podfresh

/// Only commands are commands: a first word that is not one is a usage error naming the closest, never a feed.
@Suite(.serialized)
struct CommandWordTests {
    static let demoFeeds = RefreshCommandTests.demoFeeds

    // MARK: - Reading the words (in this process)

    @Test func aWordInTheCommandsPlaceIsNotACommandAndOptionsFirstMoveAfterTheCommand() {
        #expect(CommandWords.arrange([]) == .asGiven([]))
        #expect(CommandWords.arrange(["list", "--json"]) == .asGiven(["list", "--json"]))
        #expect(CommandWords.arrange(["--all", "--quiet"]) == .asGiven(["--all", "--quiet"]))
        #expect(CommandWords.arrange(["update"]) == .notACommand("update"))
        #expect(CommandWords.arrange(["Night Shift", "--all"]) == .notACommand("Night Shift"))
        #expect(
            CommandWords.arrange(["--database", "x.sqlite", "list", "3"])
                == .commandFirst(["list", "--database", "x.sqlite", "3"], options: ["--database", "x.sqlite"]))
        // After `--` every word is a value, never a command.
        #expect(CommandWords.arrange(["--quiet", "--", "list"]) == .asGiven(["--quiet", "--", "list"]))
    }

    @Test(arguments: [
        ("lsit", "list"), ("update", "refresh"), ("version", "--version"), ("statsu", "status"),
        ("epsiodes", "episodes"), ("downlod", "download"), ("reload", "refresh"), ("ls", "list"),
    ])
    func theClosestCommandIsNamed(word: String, expected: String) {
        #expect(CommandWords.closest(to: word) == expected)
    }

    @Test func editDistanceCountsASwapOnce() {
        #expect(CommandWords.editDistance("lsit", "list") == 1)
        #expect(CommandWords.editDistance("", "add") == 3)
        #expect(CommandWords.editDistance("watch", "watch") == 0)
    }

    // MARK: - The built binary

    /// The files in the test's folder: a refused command leaves none.
    func files(_ podfresh: Podfresh) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: podfresh.directory.path).sorted()
    }

    @Test(
        .timeLimit(.minutes(2)),
        arguments: [["update"], ["lsit"], ["version"], ["--quiet", "lsit"], ["--all", "update"]])
    func aWordThatIsNotACommandExits64NamingTheClosestAndCreatesNothing(arguments: [String]) async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let result = try await podfresh.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stdout) \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("is not a podfresh command; did you mean `podfresh "), "\(result.stderr)")
        #expect(try files(podfresh).isEmpty, "no database, no lock file")
    }

    @Test(.timeLimit(.minutes(2)))
    func aWordThatMatchesAFeedShowsTheCommandThatChecksIt() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch"] + Self.demoFeeds).status == 0)
        #expect(try await podfresh.run(["refresh", "--quiet"]).status == 0)
        let result = try await podfresh.run(["night"])
        #expect(result.status == 64, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("\"night\" is not a podfresh command"), "\(result.stderr)")
        #expect(
            result.stderr.contains("to check the feed \"Night Shift Radio\" now: podfresh refresh \"night\""),
            "\(result.stderr)")
        // Nothing was refreshed: the feed was checked once, by the refresh above.
        let list = try await podfresh.run(["list", "--json"])
        #expect(list.status == 0)
        #expect(!list.stdout.contains("\"night\""))
        // `podfresh` alone still refreshes what is due, as documented.
        let alone = try await podfresh.run(["--quiet"])
        #expect(alone.status == 0, "\(alone.stderr)")
    }

    @Test(.timeLimit(.minutes(2)))
    func optionsBeforeTheCommandWorkAsAfterItOrAreRefused() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch"] + Self.demoFeeds).status == 0)
        let other = podfresh.directory.appendingPathComponent("other.sqlite").path
        // --database before `list` names the database `list` reads (it only reads: nothing is created).
        let list = try await podfresh.run(["--database", other, "list"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!FileManager.default.fileExists(atPath: other))
        #expect(!FileManager.default.fileExists(atPath: other + ".lock"))
        let mine = try await podfresh.run(["--database", podfresh.databasePath, "list", "--json"])
        #expect(mine.status == 0, "\(mine.stderr)")
        #expect(mine.stdout.contains("night-shift-radio.xml"), "\(mine.stdout)")
        // An option `list` does not take is refused before anything is opened.
        let quiet = try await podfresh.run(["--quiet", "--database", other, "list"])
        #expect(quiet.status == 64, "\(quiet.stdout) \(quiet.stderr)")
        #expect(quiet.stderr.contains("Unknown option '--quiet'"), "\(quiet.stderr)")
        #expect(quiet.stderr.contains("read after it: `podfresh list --quiet --database "), "\(quiet.stderr)")
        #expect(!FileManager.default.fileExists(atPath: other))
        // Help before the command is that command's help.
        let help = try await podfresh.run(["--help", "list"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("podfresh list"), "\(help.stdout)")
    }
}
