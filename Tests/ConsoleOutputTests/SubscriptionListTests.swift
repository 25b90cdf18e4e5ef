import ConsoleOutput
import FeedModels
import FeedParsing
import Foundation
import Testing

struct SubscriptionListTests {
    let now = Date(timeIntervalSince1970: 1_730_000_000)
    let hostile = "Show \u{1B}]0;pwned\u{07}\u{1B}[31mRed\u{202E}txt\nnext"

    func subscription(
        _ id: Int64, title: String? = nil, _ change: (inout Subscription) -> Void = { _ in }
    ) -> Subscription {
        var subscription = Subscription(
            id: id, url: URL(string: "https://a.example/\(id).xml")!, title: title,
            addedAt: now.addingTimeInterval(-86_400))
        change(&subscription)
        return subscription
    }

    func list(_ subscriptions: [Subscription], counts: [Int64: Int] = [:]) -> SubscriptionList {
        SubscriptionList(subscriptions: subscriptions, episodeCounts: counts, now: now)
    }

    // MARK: - Table

    @Test func withNoSubscriptionsItSaysHowToAddOne() {
        let text = list([]).text(width: nil)
        #expect(text == SubscriptionList.noSubscriptions)
        #expect(!text.contains("\n"))
        #expect(text.contains("podfresh add URL") && text.contains("podfresh import FILE.opml"))
    }

    @Test func theTableHasOneLineUnderTheHeadersPerSubscription() {
        let text = list([subscription(1, title: "One"), subscription(2, title: "Two")], counts: [1: 7]).text(width: nil)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let headers = lines[0].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        #expect(headers == "ID TITLE EPISODES LAST SUCCESS STATUS NEXT CHECK DL")
        // Every cell starts under its header.
        func cell(_ line: String, under header: String) -> Substring {
            let offset = lines[0].distance(from: lines[0].startIndex, to: lines[0].range(of: header)!.lowerBound)
            return line.dropFirst(offset)
        }
        #expect(cell(lines[1], under: "ID").hasPrefix("1 "))
        #expect(cell(lines[1], under: "TITLE").hasPrefix("One "))
        #expect(cell(lines[1], under: "EPISODES").hasPrefix("7 "))
        #expect(cell(lines[2], under: "TITLE").hasPrefix("Two "))
        #expect(cell(lines[2], under: "EPISODES").hasPrefix("0 "))
        #expect(cell(lines[2], under: "NEXT CHECK").hasPrefix("now (never checked) "))
        #expect(cell(lines[2], under: "DL") == "off")
    }

    @Test func eachRowHasTheColumnsInHeaderOrder() throws {
        let row = try #require(list([subscription(3, title: "Three")], counts: [3: 12]).rows().first)
        #expect(row.count == SubscriptionList.headers.count)
        #expect(row[0] == "3")
        #expect(row[1] == "Three")
        #expect(row[2] == "12")
        #expect(row[3] == "never")
        #expect(row[4] == "new")
        #expect(row[5] == "now (never checked)")
        #expect(row[6] == "off")
    }

    @Test func theDownloadsColumnSaysOnOrOffThenWhatIsSetCompactly() {
        #expect(SubscriptionList.downloads(of: subscription(1)) == "off")
        #expect(SubscriptionList.downloads(of: subscription(1) { $0.downloadsEnabled = true }) == "on")
        #expect(
            SubscriptionList.downloads(
                of: subscription(1) {
                    $0.downloadsEnabled = true
                    $0.keepNewest = 5
                    $0.downloadDirectory = "/srv/podcasts"
                    $0.fileNameTemplate = "{title}.{ext}"
                }) == "on, keep 5, dir, template")
        #expect(SubscriptionList.downloads(of: subscription(1) { $0.keepNewest = 2 }) == "off, keep 2")
    }

    @Test func anUncountedSubscriptionHasNoEpisodesAndAnUntitledOneShowsItsURL() throws {
        let row = try #require(list([subscription(4)]).rows().first)
        #expect(row[1] == "https://a.example/4.xml")
        #expect(row[2] == "0")
    }

    @Test func cellsFromTheFeedAreSafeToPrint() throws {
        let row = try #require(
            list([
                subscription(5, title: hostile) {
                    $0.failureCount = 1
                    $0.lastError = "HTTP 500 \u{1B}[2J"
                    $0.nextCheckAt = self.now.addingTimeInterval(600)
                    $0.nextCheckReason = .stored("backoff\u{1B}[31m")
                }
            ]).rows().first)
        for cell in row {
            #expect(
                !cell.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E },
                "\(cell.debugDescription)")
        }
        #expect(row[1].contains("Show") && row[1].contains("Red"))
        #expect(row[4].hasPrefix("failing ×1: HTTP 500"))
    }

    @Test func lastSuccessSaysHowLongAgo() throws {
        let rows = list([
            subscription(1) { $0.lastSuccessAt = self.now.addingTimeInterval(-30) },
            subscription(2) { $0.lastSuccessAt = self.now.addingTimeInterval(-2 * 3600) },
            subscription(3) { $0.lastSuccessAt = self.now.addingTimeInterval(-3 * 86_400) },
        ]).rows()
        #expect(rows.map { $0[3] } == ["just now", "2h ago", "3d ago"])
    }

    @Test func aNarrowTerminalCutsTitlesButNeverIdsOrCounts() {
        let long = String(repeating: "Very Long Title ", count: 8)
        let text = list([subscription(123, title: long)], counts: [123: 4567]).text(width: 70)
        let lines = text.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 70 }, "\(text)")
        #expect(lines[1].hasPrefix("123  "))
        #expect(lines[1].contains("  4567  "))
        #expect(lines[1].contains("…"))
        #expect(list([subscription(123, title: long)]).text(width: nil).contains(long), "a pipe gets every title whole")
    }

    // MARK: - Status and next check

    @Test func statusSaysGoneFailingNewOkCompleteAndMoved() {
        let checked = now.addingTimeInterval(-60)
        #expect(SubscriptionList.status(of: subscription(1) { $0.isGone = true }).hasPrefix("gone: HTTP 410; "))
        #expect(SubscriptionList.status(of: subscription(1) { $0.isGone = true }).contains("`podfresh refresh 1`"))
        #expect(
            SubscriptionList.status(
                of: subscription(2) {
                    $0.failureCount = 3
                    $0.lastError = "timed out"
                }) == "failing ×3: timed out")
        #expect(SubscriptionList.status(of: subscription(3)) == "new")
        #expect(SubscriptionList.status(of: subscription(4) { $0.lastCheckedAt = checked }) == "ok")
        #expect(
            SubscriptionList.status(
                of: subscription(5) {
                    $0.lastCheckedAt = checked
                    $0.isComplete = true
                }) == "complete")
        let moved = subscription(6) {
            $0.lastCheckedAt = checked
            $0.movedFrom = URL(string: "https://old.example/feed")!
        }
        #expect(SubscriptionList.status(of: moved) == "ok (moved from https://old.example/feed)")
    }

    @Test func nextCheckIsRelativeToNowAndGivesTheReason() {
        func next(_ change: (inout Subscription) -> Void) -> String {
            SubscriptionList.nextCheck(of: subscription(1, change), now: now)
        }
        #expect(next { $0.isGone = true } == "never (gone)")
        #expect(next { _ in } == "now (never checked)")
        #expect(
            next {
                $0.nextCheckAt = self.now.addingTimeInterval(-5)
                $0.nextCheckReason = .cadence(interval: .seconds(86_400), basis: .noRhythmYet)
            } == "now (every 1d (no publishing rhythm yet))")
        #expect(next { $0.nextCheckAt = self.now.addingTimeInterval(2 * 3600) } == "in 2h")
        #expect(
            next {
                $0.nextCheckAt = self.now.addingTimeInterval(90 * 60)
                $0.nextCheckReason = .backoff(failures: 2)
            } == "in 1h 30m (backoff after 2 failures)")
        #expect(next { $0.nextCheckAt = .distantFuture } == "never (complete)")
        #expect(
            next {
                $0.nextCheckAt = .distantFuture
                $0.nextCheckReason = .complete
            } == "never (complete (itunes:complete))")
        #expect(
            next {
                $0.nextCheckAt = self.now.addingTimeInterval(60)
                $0.nextCheckReason = .stored("cadence 1d")
            } == "in 1m (cadence 1d)", "a sentence an older podfresh stored reads as it was written")
        #expect(
            !next {
                $0.nextCheckAt = .distantFuture
                $0.nextCheckReason = .stored("\u{1B}[31mred")
            }.contains("\u{1B}"))
        #expect(
            !next {
                $0.nextCheckAt = self.now
                $0.nextCheckReason = .stored("\u{1B}[31mred")
            }.contains("\u{1B}"))
    }

    // MARK: - JSON

    static let documentedKeys = [
        "id", "url", "title", "link", "episodes", "added", "last_checked", "last_success", "last_status", "failures",
        "last_error", "last_error_kind", "gone", "complete", "ended_early", "moved_from", "next_check",
        "next_check_reason", "next_check_expected", "downloads", "keep", "download_dir", "name_template",
        "delete_played", "filters", "extras", "downloads_since", "download_backlog", "tags",
    ]

    @Test func jsonKeysAreTheDocumentedOnesInOrder() throws {
        guard case .object(let pairs) = SubscriptionList.json(subscription(1, title: "One"), episodes: 3, now: now)
        else {
            Issue.record("not an object")
            return
        }
        #expect(pairs.map(\.0) == Self.documentedKeys)
    }

    @Test func jsonIsOneArrayWithAnObjectPerSubscription() throws {
        let subscriptions = [
            subscription(1, title: hostile) {
                $0.nextCheckAt = .distantFuture
                $0.isComplete = true
                $0.nextCheckReason = .complete
            },
            subscription(2) {
                $0.failureCount = 2
                $0.lastError = "HTTP 503"
                $0.nextCheckAt = self.now.addingTimeInterval(60)
                $0.nextCheckReason = .retryAfter
            },
        ]
        let text = list(subscriptions, counts: [1: 9]).json()
        #expect(!text.contains("\n"))
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(array.count == 2)
        #expect(array[0]["id"] as? Int == 1)
        #expect(array[0]["title"] as? String == hostile, "JSON carries the title as it is, escaped")
        #expect(array[0]["episodes"] as? Int == 9)
        #expect(array[0]["complete"] as? Bool == true)
        #expect(array[0]["next_check"] is NSNull, "a complete feed's far-future check is null")
        #expect(array[1]["episodes"] as? Int == 0)
        #expect(array[1]["title"] is NSNull)
        #expect(array[1]["failures"] as? Int == 2)
        #expect(array[1]["next_check"] as? String == RFC3339.string(from: now.addingTimeInterval(60)))
        #expect(array[0]["next_check_reason"] as? String == "complete (itunes:complete)", "the reason as worded")
        #expect(array[1]["next_check_reason"] as? String == "Retry-After")
    }

    @Test func noSubscriptionsIsAnEmptyJSONArray() {
        #expect(list([]).json() == "[]")
    }

    // MARK: - On a terminal

    @Test(arguments: [80, 120])
    func onATerminalStatusesAreShortNextChecksCompactAndWideTitlesFit(width: Int) {
        let failing = subscription(1, title: "日本語のポッドキャスト・とても長いタイトルです 🎙️ 🇯🇵") {
            $0.lastCheckedAt = self.now
            $0.failureCount = 3
            $0.lastError = "not a usable feed: the document is an OPML subscription list, not a feed"
            $0.nextCheckAt = self.now.addingTimeInterval(23 * 3600 + 19 * 60)
            $0.nextCheckReason = .backoff(failures: 3)
        }
        let moved = subscription(2, title: "Moved") {
            $0.lastCheckedAt = self.now
            $0.lastSuccessAt = self.now.addingTimeInterval(-(2 * 3600 + 30 * 60))
            $0.movedFrom = URL(string: "https://old.example/a-very-long-address-of-the-old-feed/rss.xml")!
        }
        let gone = subscription(3, title: "Gone") { $0.isGone = true }
        let text = list([failing, moved, gone], counts: [1: 12]).text(width: width)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { TerminalWidth.of($0) <= width }, "\(text)")
        #expect(lines[1].contains("failing ×3") && !lines[1].contains("OPML"), "\(text)")
        #expect(lines[1].contains("in 23h") && !lines[1].contains("19m"), "\(text)")
        #expect(lines[2].contains("moved") && !lines[2].contains("old.example"), "\(text)")
        #expect(lines[2].contains("2h ago"), "\(text)")
        #expect(lines[3].contains("gone") && lines[3].contains("never"), "\(text)")
        // A pipe, a file or --wide: every column whole, as before.
        let whole = list([failing, moved, gone], counts: [1: 12]).text(width: nil)
        #expect(whole.contains("failing ×3: not a usable feed") && whole.contains("moved from https://old.example"))
    }

    @Test func listFeedGivesTheCauseAndTheReasonWrappedUnderThemselves() {
        let failing = subscription(7, title: "Failing") {
            $0.lastCheckedAt = self.now
            $0.failureCount = 2
            $0.lastError = "HTTP 503 Service Unavailable, and a long explanation that goes on past any terminal's width"
            $0.nextCheckAt = self.now.addingTimeInterval(3600)
            $0.nextCheckReason = .backoff(failures: 2)
        }
        let lines = list([failing]).detail(of: failing, width: 60)
        #expect(lines.allSatisfy { TerminalWidth.of($0) <= 60 }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("status:") && $0.contains("failing ×2: HTTP 503") })
        #expect(lines.contains { $0.hasPrefix("next check:") && $0.contains("(") }, "the reason: \(lines)")
        let whole = list([failing]).detail(of: failing, width: nil)
        #expect(whole.contains { $0.hasSuffix("past any terminal's width") })
    }
}
