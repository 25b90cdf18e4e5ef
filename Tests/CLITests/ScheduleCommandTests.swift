import Foundation
import Testing

/// The built binary schedules a feed's next check at the time its next episode is expected, and says so.
@Suite(.serialized)
struct ScheduleCommandTests {
    /// A weekly show whose `weeks` episodes all came at the same minute of the week, the next of them due at `slot`.
    static func weeklyFeed(nextAt slot: Date, weeks: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let items = (1...weeks).map { week in
            let date = slot.addingTimeInterval(-Double(week) * 7 * 86_400)
            return
                "<item><guid>w\(week)</guid><title>Week \(week)</title><pubDate>\(formatter.string(from: date))</pubDate></item>"
        }
        return "<rss version=\"2.0\"><channel><title>Weekly Show</title>\(items.joined())</channel></rss>"
    }

    @Test(.timeLimit(.minutes(2)))
    func aWeeklyShowsNextCheckIsAMinuteAfterItsSlotAndListSaysWhy() async throws {
        var podfresh = try Podfresh()
        podfresh.environment["TZ"] = "UTC"
        defer { podfresh.cleanUp() }
        // Two hours ahead, on the minute: nearer than the longest interval, so the slot sets the next check.
        let slot = Date(timeIntervalSince1970: ((Date().timeIntervalSince1970 + 2 * 3600) / 60).rounded(.down) * 60)
        let path = podfresh.directory.appendingPathComponent("weekly.xml")
        try Data(Self.weeklyFeed(nextAt: slot, weeks: 12).utf8).write(to: path)
        let add = try await podfresh.run(["add", path.path])
        #expect(add.status == 0, "\(add.stderr)")

        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(try await podfresh.run(["list", "--json"]).stdout.utf8))
                as? [[String: Any]])
        let feed = try #require(list.first)
        let expected = try #require(feed["next_check_expected"] as? [String: Any], "\(feed)")
        let iso = ISO8601DateFormatter()
        #expect(expected["at"] as? String == iso.string(from: slot))
        #expect(expected["rhythm"] as? String == "weekly")
        #expect(expected["on_time"] as? Int == 12 && expected["of_last"] as? Int == 12, "\(expected)")
        #expect(expected["late"] as? Bool == false)
        let next = try #require((feed["next_check"] as? String).flatMap(iso.date(from:)))
        #expect(next >= slot.addingTimeInterval(60) && next <= slot.addingTimeInterval(91), "\(next) for \(slot)")

        let text = try await podfresh.run(["list", "1"])
        #expect(text.stdout.contains("(weekly, 12 of the last 12 on time)"), "\(text.stdout)")
    }
}
