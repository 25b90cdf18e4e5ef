import Foundation
import TestSupport
import Testing

/// End-to-end: text output gives times in the local time zone (`TZ`), JSON in UTC.
struct LocalTimeCommandTests {
    @Test(.timeLimit(.minutes(2)))
    func textSaysTimesInTheLocalZoneAndJSONInUTC() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["TZ"] = "Asia/Kolkata"
        #expect(try await podfresh.run(["add"] + RefreshCommandTests.demoFeeds).status == 0)

        let detail = try await podfresh.run(["list", "1"])
        #expect(detail.status == 0, "\(detail.stderr)")
        let success = try #require(detail.stdoutLines.first { $0.hasPrefix("last success:") })
        #expect(success.hasSuffix("+05:30)"), "\(success)")
        let status = try await podfresh.run(["status"])
        #expect(
            status.stdoutLines.contains { $0.hasPrefix("last run: ") && $0.contains("+05:30, ") }, "\(status.stdout)")
        let nothingDue = try await podfresh.run(["refresh"])
        #expect((nothingDue.stdout + nothingDue.stderr).contains("+05:30 (in "), "\(nothingDue.stdout)")

        let json = try await podfresh.run(["list", "--json"])
        let feeds = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect((feeds.first?["last_success"] as? String)?.hasSuffix("Z") == true, "\(json.stdout)")
    }
}
