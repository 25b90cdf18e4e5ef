import ArgumentParser
import EpisodeDownloads
import HTTPTransport
import RefreshEngine
import Testing

@testable import podfresh

/// Usage errors are found by parsing alone, in this process: no binary is started. Each must exit 64.
struct ArgumentParsingTests {
    @Test(arguments: [
        ["refresh", "--jobs", "0"],
        ["refresh", "--jobs", "257"],
        ["refresh", "--per-host", "0"],
        ["refresh", "--all", "--force"],
        ["refresh", "--quiet", "--json"],
        ["refresh", "--offline", "--exec", "true"],
        ["refresh", "--exec-timeout", "0"],
        ["refresh", "--min-interval", "2h", "--max-interval", "1h"],
        ["watch", "--interval", "0s"],
        ["refresh", "--podping-node", "https://api.hive.blog"],
        ["refresh", "--podping", "--podping-node", "ftp://api.hive.blog"],
        ["refresh", "--podping", "--offline"],
        ["watch", "--podping", "--podping-catch-up", "1s"],
        ["watch", "--podping-sender", "podping.aaa"],
        ["add", "javascript:alert(1)"],
        ["add", "--backlog", "-1", "https://example.com/feed.xml"],
        ["move", "1"],
        ["move", "1", "https://example.com/feed.xml", "--undo"],
        ["move", "1", "ftp://example.com/feed.xml"],
        ["list", "--database", ""],
        ["refresh", "--exec", "true", "--exec-timeout", "0"],
        ["refresh", "--exec", "true", "--exec-timeout", "soon"],
        ["watch", "--exec", "true", "--exec-timeout", "0s"],
        ["download", "--jobs", "0"],
        ["download", "--latest", "0"],
        ["refresh", "--offline", "--download"],
        ["download", "--min-rate", "fast"],
        ["download", "--min-rate-window", "0s"],
        ["download", "--first-byte-timeout", "0"],
    ])
    func aUsageErrorIsFoundWithoutRunningAndExits64(arguments: [String]) {
        do {
            _ = try RootCommand.parseAsRoot(RootCommand.rewritingOptionalValues(arguments[...]))
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(RootCommand.exitCode(for: error) == .validationFailure, "\(arguments): \(error)")
        }
    }

    @Test func theOptionsAUserTypesParseToWhatTheyMean() throws {
        let refresh = try #require(
            try RootCommand.parseAsRoot(["refresh", "--force", "--jobs", "8", "--exec-timeout", "2m", "3"])
                as? RootCommand.Refresh)
        #expect(refresh.force)
        #expect(refresh.fetch.jobs == 8)
        #expect(refresh.hookTimeout.execTimeout.seconds == 120)
        #expect(refresh.feeds == ["3"])
        let add = try #require(try RootCommand.parseAsRoot(["add", "--backlog", "0", "feed.xml"]) as? RootCommand.Add)
        #expect(add.backlog == 0)
        let move = try #require(try RootCommand.parseAsRoot(["move", "2", "--undo"]) as? RootCommand.Move)
        #expect(move.undo && move.url == nil && move.feed == "2")
        let download = try #require(
            try RootCommand.parseAsRoot([
                "download", "--min-rate", "1.5KB/s", "--min-rate-window", "2m", "--first-byte-timeout", "10s",
            ]) as? RootCommand.Download)
        let limits = download.place.settings(jobs: 1, perHost: 1, firstByte: .seconds(10)).downloader.limits
        #expect(limits.minimumRate?.bytesPerSecond == 1_500)
        #expect(limits.minimumRate?.window == .seconds(120))
        #expect(limits.firstByte == .seconds(10))
        let off = try #require(try RootCommand.parseAsRoot(["download", "--min-rate", "0"]) as? RootCommand.Download)
        #expect(off.place.settings(jobs: 1, perHost: 1, firstByte: .seconds(30)).downloader.minimumRate == nil)
    }

    @Test(arguments: ["9464", "127.0.0.1", "127.0.0.1:70000", "127.0.0.1:http", "::1:9464"])
    func aMetricsValueThatIsNotHostAndPortIsAUsageErrorNamingIt(value: String) {
        do {
            _ = try RootCommand.parseAsRoot(["watch", "--metrics", value])
            Issue.record("--metrics \(value) parsed")
        } catch {
            #expect(RootCommand.exitCode(for: error) == .validationFailure)
            #expect(RootCommand.message(for: error).contains("--metrics \"\(value)\" is not HOST:PORT"))
        }
    }
}
