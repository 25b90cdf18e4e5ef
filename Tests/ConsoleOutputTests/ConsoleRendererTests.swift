import ConsoleOutput
import FeedFetching
import FeedModels
import FeedParsing
import Foundation
import HTTPTransport
import RefreshEngine
import Testing

/// A sink that keeps what was written.
final class Buffer: TextSink, @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var storage = ""
    func write(_ text: String) -> Result<Void, OutputFailure> {
        lock.withLock { storage += text }
        return .success(())
    }
    var text: String { lock.withLock { storage } }
    var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

struct ConsoleRendererTests {
    let feed = FeedTarget(
        id: 4, url: URL(string: "https://a.example/feed.xml")!,
        title: "Show \u{1B}]0;pwned\u{07}\u{1B}[31mRed\u{202E}txt")
    let when = Date(timeIntervalSince1970: 1_730_000_000)

    func episode(_ title: String) -> EpisodeAnnouncement {
        EpisodeAnnouncement(
            feedID: 4,
            episode: ParsedEpisode(
                id: title, title: title, published: when,
                enclosures: [Enclosure(url: URL(string: "https://a.example/\(title).mp3")!, type: "audio/mpeg")]))
    }

    func render(_ mode: OutputMode, _ events: [EngineEvent]) -> (out: Buffer, err: Buffer) {
        let out = Buffer()
        let err = Buffer()
        let service = UIUpdateService(notificationCenter: nil)
        // A terminal of 100 columns, whatever runs the tests.
        let renderer = ConsoleRenderer(
            mode: mode, out: out, err: err, now: { Date(timeIntervalSince1970: 0) }, width: { 100 })
        renderer.attach(to: service)
        for event in events { service.deliver(event) }
        return (out, err)
    }

    func summary(_ outcomes: [RefreshOutcome], offline: Bool = false) -> EngineEvent {
        .fetch(
            .batchCompleted(
                RefreshSummary(
                    outcomes: outcomes, startedAt: when, endedAt: when.addingTimeInterval(1.5), networkOffline: offline)
            ))
    }

    @Test func quietModePrintsNothingWhenNothingHappened() {
        let unchanged = RefreshOutcome(feed: feed, result: .notModified)
        let (out, err) = render(
            .quiet,
            [
                .fetch(.batchStarted(total: 1)), .fetch(.fetchStarted(feed)), .fetch(.fetchCompleted(unchanged)),
                .fetch(.batchProgress(BatchProgress(total: 1, finished: 1))), summary([unchanged]),
            ])
        #expect(out.text.isEmpty)
        #expect(err.text.isEmpty)
    }

    @Test func quietModePrintsOneLinePerNewEpisodeAndErrorsOnStderr() {
        let updated = RefreshOutcome(
            feed: feed, result: .updated(newEpisodes: [episode("one"), episode("two")], updatedCount: 0))
        let other = FeedTarget(id: 5, url: URL(string: "https://b.example/f")!, title: "B")
        let failed = RefreshOutcome(
            feed: other,
            result: .failed(
                RefreshFailure(
                    .fetch(FeedFetchError(.httpStatus(500, reasonPhrase: "Internal Server Error", retryAfter: nil))))))
        let (out, err) = render(
            .quiet,
            [
                .fetch(.batchStarted(total: 2)), .fetch(.fetchCompleted(updated)), .fetch(.fetchFailed(failed)),
                summary([updated, failed]),
            ])
        #expect(out.lines.count == 2)
        #expect(out.lines[0].contains("one") && out.lines[0].contains("https://a.example/one.mp3"))
        #expect(err.lines == ["podfresh: B: HTTP 500 Internal Server Error (https://b.example/f)"])
    }

    @Test func titlesFromFeedsCannotDriveTheTerminal() {
        let updated = RefreshOutcome(
            feed: feed, result: .updated(newEpisodes: [episode("x\u{1B}[2Jy")], updatedCount: 0))
        let (out, _) = render(
            .plain, [.fetch(.batchStarted(total: 1)), .fetch(.fetchCompleted(updated)), summary([updated])])
        #expect(!out.text.contains("\u{1B}"))
        #expect(!out.text.contains("\u{202E}"))
        #expect(!out.text.contains("\u{07}"))
        #expect(out.text.contains("Show Redtxt"))
    }

    @Test func plainModeEndsWithASummary() {
        let updated = RefreshOutcome(feed: feed, result: .updated(newEpisodes: [episode("one")], updatedCount: 2))
        let unchanged = RefreshOutcome(
            feed: FeedTarget(id: 9, url: URL(string: "file:///tmp/x.xml")!, title: "Local"), result: .notModified)
        let (out, _) = render(
            .plain,
            [
                .fetch(.batchStarted(total: 2)), .fetch(.fetchCompleted(updated)), .fetch(.fetchCompleted(unchanged)),
                summary([updated, unchanged]),
            ])
        #expect(out.lines.last == "2 feeds: 1 updated, 1 unchanged; 1 new episode in 1.5s")
        #expect(out.lines.contains { $0.hasPrefix("updated") && $0.contains("1 new, 2 changed") })
        #expect(out.lines.contains("unchanged Local"))
    }

    @Test func jsonModeWritesOneParsableObjectPerLineWithStableKeys() throws {
        let updated = RefreshOutcome(feed: feed, result: .updated(newEpisodes: [episode("one")], updatedCount: 0))
        let (out, err) = render(
            .json,
            [
                .fetch(.batchStarted(total: 1)), .fetch(.fetchStarted(feed)), .fetch(.fetchCompleted(updated)),
                summary([updated]),
            ])
        #expect(err.text.isEmpty)
        var kinds: [String] = []
        for line in out.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            kinds.append(try #require(object["event"] as? String))
        }
        #expect(kinds == ["batch_started", "feed_started", "feed_refreshed", "new_episode", "batch_completed"])
        #expect(out.lines[3].hasPrefix(#"{"event":"new_episode","feed_id":4,"#))
        #expect(out.lines[3].contains(#""published":"2024-10-27T03:33:20Z""#))
    }

    @Test func unreachableFeedsBecomeOneOfflineLineWhenTheNetworkIsDown() {
        let failures = (1...3).map { id in
            RefreshOutcome(
                feed: FeedTarget(id: Int64(id), url: URL(string: "https://h\(id).example/")!, title: "F\(id)"),
                result: .failed(
                    RefreshFailure(
                        .fetch(FeedFetchError(.transport(.noRoute(host: "h\(id).example")))), awaitsNetworkVerdict: true
                    )))
        }
        var events: [EngineEvent] = [.fetch(.batchStarted(total: 3))]
        events += failures.map { .fetch(.fetchFailed($0)) }
        events.append(.fetch(.networkOffline(fetches: 3)))
        events.append(summary(failures, offline: true))
        let (out, err) = render(.quiet, events)
        #expect(
            err.lines == [
                "podfresh: offline: the network is unreachable: none of 3 feed hosts could be resolved or connected to; no feed was counted as failing"
            ])
        #expect(out.text.isEmpty)
    }

    @Test(arguments: [OutputMode.quiet, .plain, .tty])
    func heldFailuresArePrintedOnceConfirmedBeforeTheSummary(mode: OutputMode) {
        let failure = RefreshFailure(
            .fetch(FeedFetchError(.transport(.noRoute(host: "a.example")))), awaitsNetworkVerdict: true)
        let down = RefreshOutcome(feed: feed, result: .failed(failure))
        let fine = RefreshOutcome(
            feed: FeedTarget(id: 2, url: URL(string: "https://b.example/")!, title: "B"), result: .notModified)
        let held = render(
            mode, [.fetch(.batchStarted(total: 2)), .fetch(.fetchFailed(down)), .fetch(.fetchCompleted(fine))])
        #expect(held.err.text.isEmpty, "nothing is said while the network verdict is open")
        let (out, err) = render(
            mode,
            [
                .fetch(.batchStarted(total: 2)), .fetch(.fetchFailed(down)), .fetch(.fetchCompleted(fine)),
                .fetch(.failuresConfirmed([down])),
                summary([down, fine]),
            ])
        // On a terminal a long error wraps (its later lines indented); it is still one error.
        #expect(err.lines.filter { !$0.hasPrefix("  ") }.count == 1)
        #expect(
            err.text.replacingOccurrences(of: "\n  ", with: " ").contains(
                "cannot reach a.example: no route to the host"))
        if mode != .quiet { #expect(out.lines.last?.contains("2 feeds: 1 unchanged") == true) }
    }

    @Test func jsonLinesReportAHeldFailureWhenItHappensAndOnlyOnce() throws {
        let failure = RefreshFailure(
            .fetch(FeedFetchError(.transport(.noRoute(host: "a.example")))), awaitsNetworkVerdict: true)
        let down = RefreshOutcome(feed: feed, result: .failed(failure))
        let (out, _) = render(
            .json,
            [
                .fetch(.batchStarted(total: 1)), .fetch(.fetchFailed(down)), .fetch(.failuresConfirmed([down])),
                summary([down]),
            ])
        let events = try out.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["event"] as? String
        }
        #expect(events == ["batch_started", "feed_failed", "batch_completed"])
        #expect(out.lines[1].contains(#""kind":"unreachable""#))
    }
}

// MARK: - What a new user reads

extension ConsoleRendererTests {
    @Test func aFeedsWarningsAreShownUnderItsLine() {
        var outcome = RefreshOutcome(feed: feed, result: .updated(newEpisodes: [], updatedCount: 0))
        outcome.warnings = (0...4).map {
            ParseWarning(line: $0 * 10, .xml(libxml2Message: "Entity 'nbsp' not defined"))
        }
        let (out, _) = render(.plain, [.fetch(.fetchCompleted(outcome))])
        // Merged without a change: unchanged, with its warnings counted.
        #expect(out.lines.first?.hasPrefix("unchanged ") == true, "\(out.lines)")
        #expect(out.lines.first?.hasSuffix(" (5 warnings)") == true, "\(out.lines)")
        #expect(
            Array(out.lines.dropFirst()) == [
                "  warning: Entity 'nbsp' not defined",
                "  warning: line 10: Entity 'nbsp' not defined",
                "  warning: line 20: Entity 'nbsp' not defined",
                "  … and 2 more warnings (`podfresh parse https://a.example/feed.xml` shows them all)",
            ])
    }

    @Test(arguments: [OutputMode.plain, .tty])
    func aRunWithNothingDueSaysWhenTheNextFeedIs(mode: OutputMode) {
        var summary = RefreshSummary(outcomes: [], startedAt: when, endedAt: when)
        summary.nothingDue = .nextAt(when.addingTimeInterval(2 * 3600 + 300))
        let (out, _) = render(mode, [.fetch(.batchStarted(total: 0)), .fetch(.batchCompleted(summary))])
        // On a terminal the line wraps to its width: read it as one.
        let text = out.lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(
            text.hasSuffix(
                "nothing due: the next feed is due at 2024-10-27T05:38:20Z (in 2h 5m); to check anyway: "
                    + "`podfresh refresh --all`, or name a feed: `podfresh refresh FEED`"), "\(out.text)")
        summary.nothingDue = .never
        let (never, _) = render(mode, [.fetch(.batchCompleted(summary))])
        #expect(
            never.lines.joined(separator: " ").split(separator: " ").joined(separator: " ").hasSuffix(
                "nothing due: every feed is gone or complete; `podfresh refresh FEED` checks one anyway"),
            "\(never.text)")
    }

    @Test func watchWaitingOnlyForCompleteFeedsSaysSoInsteadOfAYearFarAway() {
        let (out, _) = render(.plain, [.idle(nextCheck: .distantFuture)])
        #expect(out.lines == ["nothing to check: every feed is gone or complete"])
        let (soon, _) = render(.plain, [.idle(nextCheck: Date(timeIntervalSince1970: 90))])
        #expect(soon.lines == ["next check at 1970-01-01T00:01:30Z (in 1m 30s)"])
    }

    @Test func aFailureSaysWhatToDoInTheOptionsWords() {
        let tooLarge = RefreshFailure(.fetch(FeedFetchError(.bodyOverLimit(limit: 50_000_000, announced: nil))))
        let list = RefreshFailure(
            .parse(
                FeedParseError(.subscriptionList)))
        let other = FeedTarget(id: 5, url: URL(string: "https://b.example/list.opml")!)
        let (_, err) = render(
            .plain,
            [
                .fetch(.fetchFailed(RefreshOutcome(feed: other, result: .failed(tooLarge)))),
                .fetch(.fetchFailed(RefreshOutcome(feed: other, result: .failed(list)))),
            ])
        #expect(
            err.lines == [
                "podfresh: https://b.example/list.opml: the feed is larger than the 50 MB limit (--max-feed-size)",
                "podfresh: https://b.example/list.opml: not a usable feed: the document is an OPML subscription list, not a feed (use `podfresh import`)",
            ])
    }

    @Test func aHookThatRanTooLongNamesItsOptionAndItsLimitInTheOneDurationStyle() throws {
        let timedOut = HookFailure(
            episode: "One",
            result: HookResult(
                exitStatus: 137, timedOut: true, stderrTail: "", launchFailure: nil, timeout: .seconds(90))
        )
        let exited = HookFailure(
            episode: "Two",
            result: HookResult(exitStatus: 3, timedOut: false, stderrTail: "first\nno space left\n", launchFailure: nil)
        )
        let (_, err) = render(.plain, [.hookFailed(feed, timedOut), .hookFailed(feed, exited)])
        #expect(err.lines.count == 2)
        #expect(
            err.lines.first?.hasSuffix(
                "hook for \"One\": timed out after 1m 30s and was stopped with the processes it started (--exec-timeout)"
            )
                == true, "\(err.lines)")
        #expect(err.lines.last?.hasSuffix("hook for \"Two\": exited with status 3: no space left") == true)
        let (json, _) = render(.json, [.hookFailed(feed, exited)])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "hook for \"Two\": exited with status 3: no space left")
    }

    @Test func aHookThatCouldNotStartSaysWhy() {
        let failure = HookLaunchFailure(shell: "/bin/sh", step: .spawn, errno: EAGAIN)
        let hook = HookFailure(
            episode: "One", result: HookResult(exitStatus: -1, timedOut: false, stderrTail: "", launchFailure: failure))
        let (_, err) = render(.plain, [.hookFailed(feed, hook)])
        #expect(
            err.lines.first?.hasSuffix(
                "hook for \"One\": could not run: /bin/sh could not be started: Resource temporarily unavailable")
                == true, "\(err.lines)")
    }
}

struct ErrorTextTests {
    @Test func storeProblemsEndWithTheirRemedyInTheOptionsWords() {
        #expect(
            StoreErrorText.line(StoreError(.folderNotFile(path: "/tmp")))
                == "/tmp is a folder, not a database file; give a file path with --database")
        #expect(
            StoreErrorText.line(StoreError(.notPodfreshDatabase(path: "x")))
                == "x is not a podfresh database (an SQLite file of another program, left untouched); use another --database path"
        )
        #expect(StoreErrorText.line(StoreError(.noSubscription(id: 4))) == "no subscription with id 4")
    }

    @Test func aDatabaseValueIsNamedByWhereItCameFromAndNeverRepeated() {
        let error = DatabaseLocationError(problem: .unknownScheme("mysql"), source: .environment)
        let line = StoreMessages.location(error)
        #expect(line.hasPrefix("PODFRESH_DATABASE: unknown database scheme \"mysql://\""))
        #expect(!line.contains("secret"))
        #expect(
            StoreMessages.location(DatabaseLocationError(problem: .fileURLOnAnotherHost, source: .explicit))
                .hasPrefix("--database: a file:// URL must name a file on this machine"))
    }

    @Test func aHeldRunLockNamesWhatItsLockFileSaysAndWhatToDo() {
        #expect(
            StoreMessages.runLockHeld(
                pid: 41, since: Date(timeIntervalSince1970: 0), command: "podfresh watch")
                == "another podfresh (podfresh watch) with PID 41 started 1970-01-01T00:00:00Z is using this database; "
                + "try again later, or pass --wait to wait for it")
        #expect(
            StoreMessages.runLockHeld(pid: nil, since: nil, command: nil)
                == "another podfresh is using this database; try again later, or pass --wait to wait for it")
    }

    @Test func watchSaysWhyItStopped() {
        let error = StoreError(.postgresUnreachable(host: "db", port: 5432, cause: .connectionRefused))
        #expect(
            WatchMessages.failed(error)
                == "watch stopped: cannot reach PostgreSQL at db:5432: connection refused (nothing listens on that port); check that the server runs and the URL"
        )
    }

    @Test func errorsReadAsTheirMessagesWithRemediesNeverAsRawDumps() {
        #expect(
            ErrorText.line(FeedFetchError(.bodyOverLimit(limit: 1000, announced: nil)))
                == "the feed is larger than the 1 kB limit (--max-feed-size)")
        #expect(
            ErrorText.line(FeedParseError(.subscriptionList))
                == "the document is an OPML subscription list, not a feed (use `podfresh import`)")
        struct Odd: Error { var secret = "internal state" }
        let odd = ErrorText.line(Odd())
        #expect(odd.hasPrefix("unexpected error (") && !odd.contains("internal state"), "\(odd)")
    }
}

struct TerminalTextTests {
    @Test(arguments: [
        ("plain title", "plain title"),
        ("tab\tand\nnewline", "tab and newline"),
        ("\u{1B}[1;31mred\u{1B}[0m", "red"),
        ("osc \u{1B}]8;;https://evil\u{07}link\u{1B}]8;;\u{07}", "osc link"),
        ("bidi \u{202E}gnp.exe", "bidi gnp.exe"),
        ("c1 \u{9B}31m", "c1 31m"),
        ("nul\u{0}byte", "nulbyte"),
        ("  spaced   out  ", "spaced out"),
    ])
    func sanitizeRemovesControlSequences(input: String, expected: String) {
        #expect(TerminalText.sanitize(input) == expected)
    }
}

struct JSONValueTests {
    @Test func controlCharactersAreEscaped() throws {
        let text = JSONValue.object([("t", .string("a\u{1B}b\u{0}c\"\\\n"))]).serialized()
        #expect(text == #"{"t":"a\u001bb\u0000c\"\\\n"}"#)
        let back = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(back["t"] == "a\u{1B}b\u{0}c\"\\\n")
    }

    @Test func wholeNumbersPrintWithoutAFraction() {
        #expect(JSONValue.number(3130).serialized() == "3130")
        #expect(JSONValue.number(1014.5).serialized() == "1014.5")
        #expect(JSONValue.number(nil).serialized() == "null")
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"), (951_782_400, "2000-02-29T00:00:00Z"), (1_730_000_000, "2024-10-27T03:33:20Z"),
        (-86_400, "1969-12-31T00:00:00Z"),
    ])
    func rfc3339IsUTC(seconds: Double, expected: String) {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: seconds)) == expected)
    }
}
