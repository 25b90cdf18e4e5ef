import ConsoleOutput
import FeedModels
import FeedParsing
import Foundation
import Testing

struct StatusReportTests {
    let now = Date(timeIntervalSince1970: 1_730_000_000)

    func subscription(
        _ id: Int64, title: String? = nil, _ change: (inout Subscription) -> Void = { _ in }
    ) -> Subscription {
        var subscription = Subscription(
            id: id, url: URL(string: "https://a.example/\(id).xml")!, title: title, addedAt: now)
        change(&subscription)
        return subscription
    }

    var mixed: [Subscription] {
        [
            subscription(1, title: "Fine"),
            subscription(2, title: "Broken \u{1B}[31mred") {
                $0.failureCount = 3
                $0.lastError = "HTTP 503\u{07}"
            },
            // Gone and failing: counted as gone only.
            subscription(3, title: "Dead") {
                $0.isGone = true
                $0.failureCount = 1
                $0.lastError = "HTTP 410"
            },
            subscription(4, title: "Moved") { $0.movedFrom = URL(string: "https://old.example/4.xml")! },
        ]
    }

    @Test func theFirstLineCountsEachKindOfSubscription() {
        let lines = StatusReport(subscriptions: mixed, dueCount: 2, lastRun: nil).lines()
        let counts = lines[0].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        #expect(counts == "subscriptions: 4 due now: 2 failing: 1 gone: 1 moved: 1")
    }

    @Test func eachSubscriptionNeedingAttentionHasALineSayingWhatToDo() {
        let lines = StatusReport(subscriptions: mixed, dueCount: 0, lastRun: nil).lines()
        #expect(lines.count == 6)
        #expect(lines[1].hasPrefix("  failing  2 ") && lines[1].hasSuffix("(×3)"))
        #expect(lines[2].hasPrefix("  gone     3 Dead") && lines[2].contains("`podfresh refresh 3`"))
        #expect(lines[3].hasPrefix("  moved    4 https://old.example/4.xml → https://a.example/4.xml"))
        #expect(lines[3].contains("`podfresh move 4 --undo`"))
        #expect(
            lines.allSatisfy { line in !line.unicodeScalars.contains { $0.value < 0x20 } },
            "titles and errors are sanitised")
    }

    @Test func onATerminalAFeedsLineWrapsUnderTheFeedWhateverItsLabel() throws {
        let subscriptions = [
            subscription(7, title: "A Show Whose Title Is Rather Long") {
                $0.failureCount = 2
                $0.lastError = "HTTP 503 from the server, which said it was down for maintenance until tomorrow"
            },
            subscription(14, title: "Reuters: Most Read Articles") { $0.endedEarly = true },
        ]
        let lines = StatusReport(subscriptions: subscriptions, dueCount: 0, lastRun: nil).lines(width: 80)
        let failing = try #require(lines.firstIndex { $0.hasPrefix("  failing  7 ") }, "\(lines)")
        #expect(
            lines[failing + 1].hasPrefix(String(repeating: " ", count: 11))
                && lines[failing + 1].dropFirst(11).first != " ")
        let ended = try #require(lines.firstIndex { $0.hasPrefix("  ended early  14 ") }, "\(lines)")
        #expect(
            lines[ended + 1].hasPrefix(String(repeating: " ", count: 15))
                && lines[ended + 1].dropFirst(15).first != " ",
            "under the feed's id, past the two-word label: \(lines[ended + 1])")
        #expect(lines.allSatisfy { $0.count <= 80 })
    }

    @Test func withoutARunTheLastRunIsNever() {
        let report = StatusReport(subscriptions: [], dueCount: 0, lastRun: nil)
        #expect(
            report.lines() == [
                "subscriptions: 0   due now: 0   failing: 0   gone: 0   moved: 0", "last run: never",
                "downloads on disk: 0 files, 0 B",
            ])
        #expect(report.conditionalHitRate == nil)
    }

    @Test func theLastRunSaysWhatConditionalGETSaved() throws {
        let run = RefreshRun(
            id: 1, startedAt: now, endedAt: now, feedsChecked: 4, feedsFailed: 1, feedsNotModified: 3, newEpisodes: 2,
            bytesDownloaded: 2_621_440, bytesSaved: 1536)
        let report = StatusReport(subscriptions: [], dueCount: 0, lastRun: run)
        let last = try #require(report.lines().first { $0.hasPrefix("last run: ") })
        #expect(last.hasPrefix("last run: \(RFC3339.string(from: now)), 4 checked, 1 failed, 2 new episodes"))
        #expect(last.hasSuffix("; conditional GET: 75% not modified, 1.5 kB saved, 2.6 MB downloaded"))
        #expect(report.conditionalHitRate == 0.75)
    }

    @Test func aRunThatCheckedNothingHasNoHitRate() throws {
        let report = StatusReport(subscriptions: [], dueCount: 0, lastRun: RefreshRun(id: 1, startedAt: now))
        let last = try #require(report.lines().first { $0.hasPrefix("last run: ") })
        #expect(last.hasPrefix("last run: "))
        #expect(!last.contains("conditional GET"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        #expect(json["conditional_hit_rate"] is NSNull)
    }

    @Test func bytesOnDiskComeLastInTextAndJSON() throws {
        let report = StatusReport(
            subscriptions: [], dueCount: 0, lastRun: nil, downloads: DownloadUsage(files: 3, bytes: 3_145_728))
        #expect(report.lines().last == "downloads on disk: 3 files, 3.1 MB")
        let one = StatusReport(
            subscriptions: [], dueCount: 0, lastRun: nil, downloads: DownloadUsage(files: 1, bytes: 5))
        #expect(one.lines().last == "downloads on disk: 1 file, 5 B")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        let disk = try #require(json["downloads_on_disk"] as? [String: Any])
        #expect(disk["files"] as? Int == 3)
        #expect(disk["bytes"] as? Int == 3_145_728)
    }

    @Test func podpingIsSaidOnceUsedWithTheChainsCursor() throws {
        var report = StatusReport(subscriptions: mixed, dueCount: 2, lastRun: nil)
        #expect(!report.lines().contains { $0.hasPrefix("podping") }, "never used: nothing said")
        // Feeds that declare podping, with no chain read and no ping: still never used.
        report.podping = [1: PodpingFeedState(subscriptionID: 1, usesPodping: true)]
        #expect(!report.lines().contains { $0.hasPrefix("podping") }, "declared only: \(report.lines())")
        report.podping = [
            1: PodpingFeedState(subscriptionID: 1, usesPodping: true),
            2: PodpingFeedState(subscriptionID: 2, lastPingAt: now, lastPingBlock: 9, pingCount: 1),
            3: PodpingFeedState(subscriptionID: 3, usesPodping: false, lastPingAt: now.addingTimeInterval(-60)),
        ]
        report.podpingCursor = PodpingCursor(block: 90_000_123, updatedAt: now)
        #expect(
            report.lines().last
                == "podping: 2 feeds' hosts ping, last ping \(RFC3339.string(from: now)); chain read to block 90000123 at \(RFC3339.string(from: now))"
        )
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        let podping = try #require(json["podping"] as? [String: Any])
        #expect(podping["feeds_pinging"] as? Int == 2)
        #expect(podping["cursor_block"] as? Int == 90_000_123)
    }

    @Test func jsonKeysAreTheDocumentedOnesInOrder() throws {
        let run = RefreshRun(id: 1, startedAt: now, feedsChecked: 3, feedsNotModified: 1)
        let report = StatusReport(subscriptions: mixed, dueCount: 2, lastRun: run)
        guard case .object(let pairs) = report.jsonValue else {
            Issue.record("not an object")
            return
        }
        #expect(
            pairs.map(\.0) == [
                "subscriptions", "due_now", "failing", "gone", "moved", "ended_early", "last_run",
                "conditional_hit_rate",
                "downloads_on_disk", "broken_links", "podping", "sync", "new_feed_settings",
            ])
        let text = report.json()
        #expect(!text.contains("\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["subscriptions"] as? Int == 4)
        #expect(json["due_now"] as? Int == 2)
        #expect((json["failing"] as? [[String: Any]])?.map { $0["id"] as? Int } == [2])
        #expect((json["gone"] as? [[String: Any]])?.map { $0["id"] as? Int } == [3])
        let moved = try #require((json["moved"] as? [[String: Any]])?.first)
        #expect(moved["from"] as? String == "https://old.example/4.xml")
        #expect(moved["to"] as? String == "https://a.example/4.xml")
        #expect((json["last_run"] as? [String: Any])?["feeds_checked"] as? Int == 3)
        #expect(json["conditional_hit_rate"] as? Double == 0.333)
    }

    @Test func withoutARunTheJSONLastRunIsNull() throws {
        let text = StatusReport(subscriptions: [], dueCount: 0, lastRun: nil).json()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["last_run"] is NSNull)
    }

    @Test func brokenLinksThatWaitAreListedWithTheirNextTryAndHowToTryNow() throws {
        let waiting = DownloadRecord(
            subscriptionID: 4, episodeKey: "ep-1", state: .inProgress, lastError: "x.mp3: HTTP 404",
            permanentFailures: 2, retryAfter: now.addingTimeInterval(4 * 3600), permanentError: "x.mp3: HTTP 404")
        let due = DownloadRecord(
            subscriptionID: 4, episodeKey: "ep-2", state: .inProgress, permanentFailures: 1,
            retryAfter: now.addingTimeInterval(-10), permanentError: "y.mp3: HTTP 410")
        let report = StatusReport(
            subscriptions: [subscription(4, title: "Show")], dueCount: 0, lastRun: nil, records: [waiting, due],
            now: now)
        let lines = report.lines()
        #expect(
            lines.contains(
                "broken links: 1 waiting, next try after \(RFC3339.string(from: now.addingTimeInterval(4 * 3600))) (in 4h); `podfresh download --retry` tries them now"
            ), "\(lines)")
        #expect(lines.contains("  Show: ep-1: failed 2 times: x.mp3: HTTP 404"), "\(lines)")
        #expect(!lines.contains { $0.contains("ep-2") }, "one whose wait is over is not waiting")

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        let links = try #require(json["broken_links"] as? [[String: Any]])
        #expect(links.count == 1)
        #expect(links.first?["id"] as? String == "ep-1" && links.first?["failures"] as? Int == 2)
        #expect(links.first?["retry_after"] as? String == RFC3339.string(from: now.addingTimeInterval(4 * 3600)))

        let none = StatusReport(subscriptions: [], dueCount: 0, lastRun: nil, records: [due], now: now)
        #expect(!none.lines().contains { $0.hasPrefix("broken links") }, "said only when one waits")
    }
}
