import Foundation
import TestSupport
import Testing

/// End-to-end: `podfresh set` and the download fields of `list`, `episodes --json` and `status`.
@Suite(.serialized)
struct DownloadSettingsCommandTests {
    /// A database with the demo feeds refreshed.
    func demoDatabase(_ podfresh: Podfresh) async throws {
        #expect(
            try await podfresh.run(["add", "--no-fetch", "--backlog", "100"] + RefreshCommandTests.demoFeeds).status
                == 0)
        #expect(try await podfresh.run(["refresh", "--quiet"]).status == 0)
    }

    func listed(_ podfresh: Podfresh) async throws -> [[String: Any]] {
        let list = try await podfresh.run(["list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
    }

    @Test(.timeLimit(.minutes(2)))
    func setChangesOnlyWhatItIsGivenAndListShowsIt() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await demoDatabase(podfresh)

        let set = try await podfresh.run(["set", "Night Shift", "--download", "on", "--keep", "5"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            set.stdout.hasPrefix(
                "set 1 Night Shift Radio: downloads on, keep newest 5, directory (default), name template (default), delete played off, filters none, extras off, tags off, downloading the episodes since "
            ) && set.stdout.hasSuffix(" and the newest 1 before\n"), "\(set.stdout)")

        let folder = podfresh.directory.appendingPathComponent("media").path
        let more = try await podfresh.run(["set", "1", "--dir", folder, "--name-template", "{date} {title}.{ext}"])
        #expect(more.status == 0, "\(more.stderr)")
        #expect(
            more.stdout.contains("downloads on, keep newest 5, directory \(folder), name template {date} {title}.{ext}")
        )

        var feeds = try await listed(podfresh)
        #expect(feeds[0]["downloads"] as? Bool == true)
        #expect(feeds[0]["keep"] as? Int == 5)
        #expect(feeds[0]["download_dir"] as? String == folder)
        #expect(feeds[0]["name_template"] as? String == "{date} {title}.{ext}")
        #expect(feeds[1]["downloads"] as? Bool == false)
        #expect(feeds[1]["keep"] is NSNull && feeds[1]["download_dir"] is NSNull && feeds[1]["name_template"] is NSNull)

        let table = try await podfresh.run(["list"])
        #expect(table.stdoutLines.first?.hasSuffix("  DL") == true, "\(table.stdout)")
        #expect(table.stdoutLines[1].hasSuffix("on, keep 5, dir, template"), "\(table.stdout)")
        #expect(table.stdoutLines[2].hasSuffix("off"), "\(table.stdout)")

        // Resets: all files, the default folder and template; downloads off.
        let reset = try await podfresh.run([
            "set", "1", "--keep", "all", "--dir", "", "--name-template", "", "--download", "off",
        ])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout.contains("downloads off, keep all, directory (default), name template (default)"))
        feeds = try await listed(podfresh)
        #expect(feeds[0]["downloads"] as? Bool == false && feeds[0]["keep"] is NSNull)
        #expect(feeds[0]["download_dir"] is NSNull)

        // Without options it says what is set and changes nothing.
        let shown = try await podfresh.run(["set", "1"])
        #expect(shown.status == 0)
        #expect(shown.stdout.hasPrefix("settings of 1 Night Shift Radio: downloads off, keep all"))

        // A relative folder is stored absolute.
        var inFolder = podfresh
        inFolder.workingDirectory = podfresh.directory
        #expect(try await inFolder.run(["set", "1", "--dir", "media/night"]).status == 0)
        feeds = try await listed(podfresh)
        #expect((feeds[0]["download_dir"] as? String)?.hasSuffix("/media/night") == true)
        #expect((feeds[0]["download_dir"] as? String)?.hasPrefix("/") == true)
    }

    @Test(
        .timeLimit(.minutes(2)),
        arguments: [
            (["--keep", "0"], "--keep"), (["--keep", "few"], "\"few\""), (["--download", "maybe"], "maybe"),
            (["--name-template", "{feed}/{nope}.{ext}"], "{nope}"), (["--name-template", "{title"], "unmatched"),
        ])
    func badValuesAreUsageErrorsNamingTheValue(arguments: [String], named: String) async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        #expect(try await podfresh.run(["add", "--no-fetch", "https://example.com/feed.xml"]).status == 0)
        let result = try await podfresh.run(["set", "1"] + arguments)
        #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(named), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let unknown = try await podfresh.run(["set", "no such feed", "--download", "on"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no subscription matches \"no such feed\""))
    }

    @Test(.timeLimit(.minutes(2)))
    func episodesJSONHasNoFileBeforeAnyDownloadAndStatusCountsBytesOnDisk() async throws {
        let podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        try await demoDatabase(podfresh)

        let episodes = try await podfresh.run(["episodes", "--json", "--limit", "100"])
        #expect(episodes.status == 0, "\(episodes.stderr)")
        let objects = try episodes.stdoutLines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 7)
        #expect(objects.allSatisfy { $0["file"] is NSNull && $0["downloaded_at"] is NSNull })
        #expect(
            episodes.stdoutLines.allSatisfy {
                $0.hasSuffix(
                    ",\"file\":null,\"downloaded_at\":null,\"download_failures\":0,\"download_retry_after\":null,\"download_error\":null}"
                )
            })

        let status = try await podfresh.run(["status"])
        #expect(status.status == 0)
        #expect(status.stdoutLines.last == "downloads on disk: 0 files, 0 B", "\(status.stdout)")
        let json = try await podfresh.run(["status", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let disk = try #require(object["downloads_on_disk"] as? [String: Any])
        #expect(disk["files"] as? Int == 0 && disk["bytes"] as? Int == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func setAndListWorkOnPostgreSQL() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_DATABASE"] = try await TestPostgres.shared().makeDatabase(prefix: "dlset")
        #expect(try await podfresh.run(["add", "--no-fetch", "https://example.com/feed.xml"]).status == 0)
        let set = try await podfresh.run(["set", "1", "--download", "on", "--keep", "3"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("downloads on, keep newest 3"))
        let feeds = try await listed(podfresh)
        #expect(feeds.first?["downloads"] as? Bool == true && feeds.first?["keep"] as? Int == 3)
        let status = try await podfresh.run(["status"])
        #expect(status.stdoutLines.last == "downloads on disk: 0 files, 0 B", "\(status.stderr)")
        let episodes = try await podfresh.run(["episodes", "--json"])
        #expect(episodes.status == 0 && episodes.stdout.isEmpty)
    }
}
