import ArgumentParser
import FeedModels
import FeedStorage
import Foundation
import TestSupport
import Testing

@testable import podfresh

#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: how every command opens the database, and the exit status when it cannot.
@Suite(.serialized)
struct StoreCommandTests {
    static let demoFeeds = RefreshCommandTests.demoFeeds

    func write(_ text: String, to name: String, in podfresh: Podfresh) throws -> String {
        let path = podfresh.directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func sqlite(_ path: String, _ sql: String) async throws -> String {
        let sqlite3 = try await runProcess("/usr/bin/sqlite3", arguments: [path, sql])
        #expect(sqlite3.status == .exited(0), "sqlite3 \(sql): \(sqlite3.standardError)")
        return sqlite3.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A podfresh database with the demo feeds refreshed (3 feeds, 7 episodes).
    func demoDatabase() async throws -> Podfresh {
        let podfresh = try Podfresh()
        #expect(try await podfresh.run(["add", "--no-fetch", "--backlog", "100"] + Self.demoFeeds).status == 0)
        #expect(try await podfresh.run(["refresh", "--quiet"]).status == 0)
        return podfresh
    }

    /// Runs the binary as user `nobody` when the tests run as root (root ignores file permissions).
    func unprivileged(_ podfresh: Podfresh) -> Podfresh {
        var other = podfresh
        if getuid() == 0 { other.launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] }
        return other
    }

    // MARK: - Exit 70 for every database error

    @Test(.timeLimit(.minutes(3)))
    func everyCommandExitsWith70OnADamagedDatabase() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        // Given a database whose episode table's pages were overwritten (page 1, with the schema, is intact) …
        let page = try #require(
            Int(try await sqlite(podfresh.databasePath, "SELECT rootpage FROM sqlite_master WHERE name = 'episode'")))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: podfresh.databasePath))
        try handle.seek(toOffset: UInt64((page - 1) * 4096))
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        // … every command that touches episodes says so and exits 70 (before: `episodes` and `remove` exited 1). A
        // refresh merges only with `--full`: a body identical to the last one is not parsed, and its episodes not read.
        for arguments in [["episodes"], ["episodes", "--json"], ["remove", "1"], ["refresh", "--force", "--full"]] {
            let result = try await podfresh.run(arguments)
            #expect(
                result.status == 70, "podfresh \(arguments.joined(separator: " ")): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(podfresh.databasePath), "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("damaged") || result.stderr.contains("malformed"),
                "\(arguments): \(result.stderr)")
        }
    }

    /// True when this process may mount a tmpfs in a private mount namespace (`unshare -m`), as root in CI.
    static let canMountTmpfs: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = [
            "-m", "sh", "-c",
            "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\" && umount \"$d\" && rmdir \"$d\"",
        ]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    @Test(.timeLimit(.minutes(2)), .enabled(if: Self.canMountTmpfs, "needs unshare -m and mount (root)"))
    func aFullDiskExits70AndNamesTheCause() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch", Self.demoFeeds[0]]).status == 0)
        let outlines = (0..<200).map {
            #"<outline text="Feed \#($0) \#(String(repeating: "x", count: 2000))" xmlUrl="https://f\#($0).example/feed"/>"#
        }
        let opml = try write(
            "<opml version=\"2.0\"><body>\(outlines.joined())</body></opml>", to: "many.opml", in: podfresh)
        // The database on a 160 KB file system of its own (a private mount namespace: nothing outside sees it).
        let tiny = podfresh.directory.appendingPathComponent("tiny").path
        try FileManager.default.createDirectory(atPath: tiny, withIntermediateDirectories: true)
        let script = """
            mount -t tmpfs -o size=160k tmpfs '\(tiny)' && cp '\(podfresh.databasePath)' '\(tiny)/' && \
            exec '\(Podfresh.binary.path)' import '\(opml)' --database '\(tiny)/podfresh.sqlite'
            """
        var full = podfresh
        // The script runs the binary itself; what the launcher appends (the binary's path) is left in $1, unused.
        full.launcher = ["/usr/bin/unshare", "-m", "sh", "-c", script, "sh"]
        let result = try await full.run([])
        #expect(result.status == 70, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("the disk holding \(tiny)/podfresh.sqlite is full"), "\(result.stderr)")
    }

    @Test(.timeLimit(.minutes(2)))
    func aLockFileThatCannotBeOpenedExits70Not75() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        // The parent of the database is a file.
        let file = try write("x", to: "a-file", in: podfresh)
        let result = try await podfresh.run(["refresh", "--database", file + "/podfresh.sqlite"])
        #expect(result.status == 70, "\(result.stderr)")
        #expect(result.stderr.contains("lock file"), "\(result.stderr)")
        // A read-only folder (as an unprivileged user).
        let folder = podfresh.directory.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: podfresh.directory.path)
        let readOnly = try await unprivileged(podfresh).run(["refresh", "--database", folder.path + "/podfresh.sqlite"])
        #expect(readOnly.status == 70, "\(readOnly.stderr)")
        #expect(readOnly.stderr.contains("Permission denied"), "\(readOnly.stderr)")
    }

    @Test(.timeLimit(.minutes(3)))
    func anotherProgramsSQLiteFileIsRefusedByEveryCommandAndLeftByteIdentical() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        _ = try await sqlite(
            podfresh.databasePath,
            "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note (body) VALUES ('mine');")
        let before = try Data(contentsOf: URL(fileURLWithPath: podfresh.databasePath))
        let opml = try write(
            #"<opml version="2.0"><body><outline text="A" xmlUrl="https://a.example/feed"/></body></opml>"#,
            to: "a.opml", in: podfresh)
        for arguments in [
            ["add", "--no-fetch", Self.demoFeeds[0]], ["import", opml], ["refresh"], ["list"], ["episodes"], ["status"],
            ["export"], ["remove", "1"],
        ] {
            let result = try await podfresh.run(arguments)
            #expect(
                result.status == 70, "podfresh \(arguments.joined(separator: " ")): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("not a podfresh database"), "\(arguments): \(result.stderr)")
        }
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: podfresh.databasePath)) == before,
            "the other program's file is unchanged")
        #expect(
            try await sqlite(podfresh.databasePath, "SELECT name FROM sqlite_master WHERE type = 'table'") == "note")
        #expect(
            !FileManager.default.fileExists(atPath: podfresh.databasePath + ".lock"), "no lock file beside it either")
    }

    // MARK: - Readers

    @Test(.timeLimit(.minutes(3)))
    func readersWorkOnAReadOnlyDatabaseInAReadOnlyFolder() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        #expect(try await sqlite(podfresh.databasePath, "PRAGMA journal_mode") == "wal")
        let before = try Data(contentsOf: URL(fileURLWithPath: podfresh.databasePath))
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: podfresh.directory.path).sorted()
        #expect(!filesBefore.contains("podfresh.sqlite-wal"))
        // Given a read-only file in a read-only folder, where no -wal or -shm file can be created …
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: podfresh.databasePath)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: podfresh.directory.path)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: podfresh.directory.path)
        }
        let reader = unprivileged(podfresh)
        // … every reader works, and nothing is created or changed.
        let list = try await reader.run(["list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any])?.count == 3)
        let episodes = try await reader.run(["episodes", "--limit", "100"])
        #expect(episodes.status == 0, "\(episodes.stderr)")
        #expect(episodes.stdoutLines.count == 7)
        #expect(try await reader.run(["status"]).status == 0)
        let export = try await reader.run(["export"])
        #expect(export.status == 0 && export.stdout.contains("xmlUrl"), "\(export.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: podfresh.directory.path).sorted() == filesBefore)
        #expect(try Data(contentsOf: URL(fileURLWithPath: podfresh.databasePath)) == before)
    }

    @Test(.timeLimit(.minutes(3)))
    func readersLeaveNoFilesBehindAndTheDatabaseByteIdentical() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        let path = podfresh.databasePath
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let files = try FileManager.default.contentsOfDirectory(atPath: podfresh.directory.path).sorted()
        #expect(!files.contains("podfresh.sqlite-wal") && !files.contains("podfresh.sqlite-shm"))
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: podfresh.directory.path)
        // The owner reading; then another user reading the owner's read-only file in a folder it may write to.
        for (reader, mode) in [(podfresh, 0o644), (unprivileged(podfresh), 0o444)] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            for arguments in [["list"], ["episodes"], ["status"], ["export"]] {
                let result = try await reader.run(arguments)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: podfresh.directory.path).sorted() == files,
                    "\(arguments)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(arguments)")
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func readersWorkOnAReadOnlyFileBesideAWriterThatKeepsItsWALOpen() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        // A writer process keeps the database open (so its -wal and -shm exist, owned by the writer) with a
        // transaction in progress; the reader is another user who may only read.
        try await withHeldWriteTransaction(path: podfresh.databasePath, sql: "DELETE FROM episode") { held in
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: podfresh.directory.path)
            defer {
                try? FileManager.default.setAttributes(
                    [.posixPermissions: 0o755], ofItemAtPath: podfresh.directory.path)
            }
            let episodes = try await unprivileged(podfresh).run(["episodes", "--limit", "100"], timeout: 20)
            #expect(episodes.status == 0, "\(episodes.stderr)")
            #expect(episodes.stdoutLines.count == 7, "the uncommitted delete is not seen")
            #expect(held.status == nil, "the writer still holds its transaction")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func readersDoNotWaitForAnotherProcesssWriteTransaction() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        // Given another process holding a write transaction (BEGIN IMMEDIATE, rows changed, not committed) …
        try await withHeldWriteTransaction(
            path: podfresh.databasePath,
            sql:
                "UPDATE subscription SET title = 'uncommitted'; DELETE FROM episode; INSERT INTO refreshRun (startedAt) VALUES (0)"
        ) { held in
            // … every reader finishes (the busy timeout is 30 s; 20 s is the generous bound) and shows the committed
            // state, while the writer still holds its transaction.
            for arguments in [
                ["list"], ["episodes", "--limit", "100"], ["episodes", "--new"], ["status", "--json"], ["export"],
            ] {
                let result = try await podfresh.run(arguments, timeout: 20)
                #expect(result.status == 0, "podfresh \(arguments.joined(separator: " ")): \(result.stderr)")
                #expect(!result.stdout.contains("uncommitted"))
            }
            #expect(try await podfresh.run(["episodes", "--limit", "100"], timeout: 20).stdoutLines.count == 7)
            #expect(held.status == nil, "the writer still holds its transaction")
        }
    }

    // MARK: - Arguments

    @Test func waitTakesADurationAsItsNextArgument() throws {
        func refresh(_ arguments: [String]) throws -> RootCommand.Refresh {
            try #require(
                try RootCommand.parseAsRoot(RootCommand.rewritingOptionalValues(arguments)) as? RootCommand.Refresh)
        }
        let spaced = try refresh(["refresh", "--wait", "2s"])
        #expect(spaced.lock.wait?.seconds == 2)
        #expect(spaced.feeds.isEmpty, "2s is not a feed")
        #expect(try refresh(["refresh", "--wait=5m", "news"]).lock.wait?.seconds == 300)
        let bare = try refresh(["refresh", "--wait", "news"])
        #expect(bare.lock.wait?.seconds == .infinity)
        #expect(bare.feeds == ["news"])
        let id = try refresh(["refresh", "--wait", "12"])
        #expect(id.lock.wait?.seconds == .infinity && id.feeds == ["12"], "a bare number stays a feed id")
        #expect(try refresh(["refresh", "--", "--wait"]).feeds == ["--wait"])
        let watch = try #require(
            try RootCommand.parseAsRoot(RootCommand.rewritingOptionalValues(["watch", "--wait", "1h"]))
                as? RootCommand.Watch)
        #expect(watch.lock.wait?.seconds == 3600)
    }

    @Test func anEmptyDatabasePathIsAUsageError() async throws {
        #expect(throws: (any Error).self) { _ = try RootCommand.parseAsRoot(["list", "--database", ""]) }
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        for arguments in [
            ["list", "--database", ""], ["refresh", "--database", ""], ["add", "--database", " ", Self.demoFeeds[0]],
        ] {
            let result = try await podfresh.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--database"))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func helpShowsEveryDurationDefaultAsTyped() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let refresh = try await podfresh.run(["refresh", "--help"])
        let help = refresh.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        #expect(
            help.contains(
                "--timeout <timeout> Give up on one feed after this long in all (e.g. 60s, 2m). (default: 60s)"),
            "\(refresh.stdout)")
        #expect(help.contains("(default: 10s)"), "--connect-timeout")
        #expect(help.contains("(default: 30s)"), "--first-byte-timeout")
        #expect(help.contains("(default: 5m)"))
        #expect(help.contains("(default: 4h)"))
        #expect(help.contains("(default: 24h)"))
        #expect(!help.contains(".0s"), "no 900.0s")
        let watch = try await podfresh.run(["watch", "--help"])
        #expect(watch.stdout.contains("(default: 5m)"))
        #expect(DurationArgument(seconds: 900).description == "15m")
        #expect(DurationArgument(seconds: 90).description == "90s")
        #expect(DurationArgument(argument: "1.5h")?.description == "1.5h")
    }

    // MARK: - Import from a pipe

    @Test(.timeLimit(.minutes(2)))
    func importReadsStandardInputAndDevStdin() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let opml = Data(
            #"""
            <opml version="2.0"><body>
              <outline text="Alpha" title="alpha (old title)" xmlUrl="https://alpha.example/feed"/>
              <outline text="Beta" xmlUrl="https://beta.example/feed"/>
            </body></opml>
            """#.utf8)
        let dash = try await podfresh.run(["import", "-"], input: opml)
        #expect(dash.status == 0, "\(dash.stderr)")
        #expect(dash.stdout.contains("imported 2 feeds"), "\(dash.stdout)")
        let devStdin = try await podfresh.run(["import", "/dev/stdin"], input: opml)
        #expect(devStdin.status == 0, "\(devStdin.stderr)")
        #expect(devStdin.stdout.contains("imported 0 feeds, skipped 2 already subscribed"), "\(devStdin.stdout)")
        let list = try await podfresh.run(["list", "--json"])
        let feeds = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(feeds.compactMap { $0["title"] as? String } == ["Alpha", "Beta"], "OPML text is the name")
    }

    // MARK: - Subscriptions

    @Test(.timeLimit(.minutes(2)))
    func urlsDifferingInSchemeHostCaseOrFragmentAreOneSubscription() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch", "HTTPS://Example.COM/Feed.xml#latest"]).status == 0)
        let again = try await podfresh.run(["add", "--no-fetch", "https://example.com/Feed.xml"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already subscribed"), "\(again.stderr)")
        let opml = try write(
            #"<opml version="2.0"><body><outline text="X" xmlUrl="https://EXAMPLE.com/Feed.xml#x"/></body></opml>"#,
            to: "x.opml", in: podfresh)
        #expect(
            try await podfresh.run(["import", opml]).stdout.contains("imported 0 feeds, skipped 1 already subscribed"))
        let list = try await podfresh.run(["list", "--json"])
        let feeds = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(feeds.compactMap { $0["url"] as? String } == ["https://example.com/Feed.xml"])
        let removed = try await podfresh.run(["remove", "https://Example.com/Feed.xml#other"])
        #expect(removed.status == 0, "a selector URL is compared normalised: \(removed.stderr)")
    }

    @Test(.timeLimit(.minutes(2)))
    func anAmbiguousSelectorListsEveryMatchAndRemovesNothing() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let names = ["Alpha", "Beta", "Gamma", "Delta", "Kappa", "Lambda", "Zeta"]
        let outlines = names.map { #"<outline text="\#($0)" xmlUrl="https://\#($0.lowercased()).example/feed"/>"# }
            .joined()
        let opml = try write("<opml version=\"2.0\"><body>\(outlines)</body></opml>", to: "many.opml", in: podfresh)
        #expect(try await podfresh.run(["import", opml]).status == 0)
        let result = try await podfresh.run(["remove", "a"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("matches 7 subscriptions"), "\(result.stderr)")
        for (index, name) in names.enumerated() {
            #expect(
                result.stderr.contains("\(index + 1)  \(name)  https://\(name.lowercased()).example/feed"),
                "\(name): \(result.stderr)")
        }
        #expect(result.stdout.isEmpty)
        let list = try await podfresh.run(["list", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any])?.count == 7)
    }

    // MARK: - Listings

    @Test(.timeLimit(.minutes(2)))
    func listDoesNotCutTitlesInAPipeAndFitsATerminal() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        let title = "A Remarkably Long Podcast Title That Goes On Well Past Forty Characters"
        let opml = try write(
            #"<opml version="2.0"><body><outline text="\#(title)" xmlUrl="https://long.example/feed"/></body></opml>"#,
            to: "l.opml", in: podfresh)
        #expect(try await podfresh.run(["import", opml]).status == 0)
        let piped = try await podfresh.run(["list"])
        #expect(piped.stdout.contains(title), "\(piped.stdout)")

        // On a 60-column terminal (a pseudo-terminal from script(1)) every line fits.
        let command = "stty cols 60; PODFRESH_DATABASE='\(podfresh.databasePath)' '\(Podfresh.binary.path)' list"
        // Bounded and awaited without holding a thread: a blocking read of script's output once hung a whole run.
        let script = try await runProcess(
            "/usr/bin/script", arguments: ["-q", "-e", "-c", command, "/dev/null"], within: .seconds(30))
        #expect(script.status == .exited(0), "script: \(script.status.map(String.init(describing:)) ?? "hung")")
        let lines = script.standardOutput.split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.allSatisfy { $0.count <= 60 }, "\(lines)")
        #expect(lines.last?.contains("A Rem") == true && lines.last?.contains("…") == true, "\(lines)")
    }

    @Test(.timeLimit(.minutes(2)))
    func aRefreshThatCheckedNothingDoesNotEmptyEpisodesNew() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["episodes", "--new"]).stdoutLines.count == 7)
        // Nothing is due now: this run checks no feed.
        let idle = try await podfresh.run(["refresh", "--quiet"])
        #expect(idle.status == 0 && idle.stdout.isEmpty, "\(idle.stdout)")
        let after = try await podfresh.run(["episodes", "--new"])
        #expect(after.stdoutLines.count == 7, "\(after.stdout)")
        // A run that checked feeds and found nothing new does empty it.
        #expect(try await podfresh.run(["refresh", "--all", "--quiet"]).status == 0)
        #expect(try await podfresh.run(["episodes", "--new"]).stdout.contains("no episodes match"))
    }

    @Test(.timeLimit(.minutes(2)))
    func episodesJSONCarriesShowNotesAndEveryStoredField() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        let result = try await podfresh.run(["episodes", "--json", "--feed", "1", "--limit", "100"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try result.stdoutLines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let keeper = try #require(rows.first { $0["title"] as? String == "The Lighthouse Keeper" })
        for key in [
            "feed_id", "feed_title", "id", "guid", "title", "link", "published", "duration", "enclosure_url",
            "enclosure_type",
            "description", "summary", "enclosures", "episode", "season", "episode_type", "explicit", "image",
            "transcripts",
            "chapters", "persons", "guid_is_permalink", "alternate_enclosures", "first_seen", "last_seen",
            "first_seen_run",
        ] {
            #expect(keeper.keys.contains(key), "missing \(key)")
        }
        #expect(
            (keeper["description"] as? String)?.contains("<em>ships</em>") == true,
            "show notes: \(keeper["description"] ?? "nil")")
        #expect(
            (keeper["transcripts"] as? [[String: Any]])?.first?["url"] as? String
                == "https://night-shift.example.org/audio/003.vtt")
        #expect((keeper["persons"] as? [[String: Any]])?.first?["name"] as? String == "Ada Morrow")
    }

    @Test(.timeLimit(.minutes(2)))
    func episodesSaysWhenItStopsAtItsLimit() async throws {
        let podfresh = try await demoDatabase()
        defer { podfresh.cleanUp() }
        let limited = try await podfresh.run(["episodes", "--limit", "3"])
        #expect(limited.stdoutLines.count == 3)
        #expect(limited.stderr.contains("showing 3 of 7 episodes; use --limit 7"), "\(limited.stderr)")
        let json = try await podfresh.run(["episodes", "--json", "--limit", "3"])
        #expect(json.stdoutLines.count == 3 && json.stderr.contains("showing 3 of 7"))
        let all = try await podfresh.run(["episodes", "--limit", "7"])
        #expect(all.stdoutLines.count == 7 && all.stderr.isEmpty, "\(all.stderr)")
    }
}
