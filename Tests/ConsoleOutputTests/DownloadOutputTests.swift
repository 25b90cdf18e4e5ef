import ConsoleOutput
import EpisodeDownloads
import FeedParsing
import Foundation
import HTTPTransport
import RefreshEngine
import Testing

/// How each output mode shows downloads: the live terminal's lines per download and total, plain lines, cron's quiet
/// lines, JSON Lines.
struct DownloadOutputTests {
    let feed = FeedTarget(id: 7, url: URL(string: "https://a.example/feed.xml")!, title: "Cast\u{1B}[31m Red")
    let started = Date(timeIntervalSince1970: 1_730_000_000)

    func target(_ key: String, title: String) -> DownloadTarget {
        DownloadTarget(
            feed: feed, episodeKey: key, title: title, url: URL(string: "https://cdn.example/\(key).mp3")!,
            file: "/media/Cast/\(key).mp3")
    }

    func render(_ mode: OutputMode, _ events: [EngineEvent]) -> (out: Buffer, err: Buffer) {
        let out = Buffer()
        let err = Buffer()
        let service = UIUpdateService(notificationCenter: nil)
        // Each redraw is a second after the last, so none is throttled away.
        let clock = Clock()
        // A terminal of 100 columns, whatever runs the tests: every line here fits it whole.
        let renderer = ConsoleRenderer(mode: mode, out: out, err: err, now: { clock.tick() }, width: { 100 })
        renderer.attach(to: service)
        for event in events { service.deliver(event) }
        return (out, err)
    }

    final class Clock: @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var seconds: Double = 0
        func tick() -> Date {
            lock.withLock {
                seconds += 1
                return Date(timeIntervalSince1970: seconds)
            }
        }
    }

    var events: [EngineEvent] {
        let one = target("one", title: "First \u{202E}Episode")
        let two = target("two", title: "Second")
        let progress = DownloadProgressReport(
            target: one, receivedBytes: 3_000_000, expectedBytes: 10_000_000, resumedFrom: 0,
            bytesPerSecond: 1_000_000)
        let done = DownloadOutcome(
            target: one, result: .completed(bytes: 10_000_000, resumedFrom: 0), seconds: 10)
        let failed = DownloadOutcome(
            target: two,
            result: .failed(
                DownloadFailure(
                    .download(
                        DownloadError(
                            .httpStatus(404, reasonPhrase: "Not Found"), url: URL(string: "https://cdn.example/two.mp3")
                        )))),
            seconds: 0.2)
        let removal = DownloadRemoval(feed: feed, episodeKey: "old", file: "/media/Cast/old.mp3", keepNewest: 1)
        return [
            .download(.queued(count: 2)), .download(.started(one)), .download(.started(two)),
            .download(.progressed(progress)),
            .download(.failed(failed)), .download(.completed(done)), .download(.removed(removal)),
            .download(
                .finished(
                    DownloadSummary(
                        outcomes: [failed, done], removed: 1, startedAt: started,
                        endedAt: started.addingTimeInterval(12)))),
        ]
    }

    @Test func theLiveTerminalDrawsALinePerDownloadWithRateAndTimeLeftAndATotal() {
        let (out, err) = render(.tty, Array(events.prefix(4)))
        let screen = out.text
        #expect(screen.contains("↓ Cast Red: First Episode  3 MB of 10 MB  1 MB/s  7s left"), "\(screen)")
        #expect(screen.contains("↓ Cast Red: Second  starting"))
        #expect(screen.contains("downloads [0/2] 3 MB · 1 MB/s"))
        #expect(!screen.contains("\u{1B}[31m") && !screen.contains("\u{202E}"), "feed text cannot drive the terminal")
        #expect(err.text.isEmpty)
        // Three lines drawn (two downloads and the total): the next redraw erases each, from the last up, and never
        // the screen below the cursor (tmux would keep a cleared screen in its scrollback).
        let (after, _) = render(.tty, Array(events.prefix(5)))
        #expect(after.text.contains("\r\u{1B}[2K\u{1B}[1A\u{1B}[2K\u{1B}[1A\u{1B}[2K"), "\(after.text)")
        #expect(!after.text.contains("\u{1B}[J"))
    }

    @Test func theLiveTerminalPrintsFinishedDownloadsAboveAndClearsItsLinesAtTheEnd() {
        let (out, err) = render(.tty, events)
        #expect(out.text.contains("downloaded Cast Red: First Episode → /media/Cast/one.mp3 (10 MB in 10s)\n"))
        #expect(
            out.text.hasSuffix(
                "downloads: 1 downloaded (10 MB), 1 failed, 1 removed (past the newest kept) in 12s\n"))
        #expect(
            err.text == "podfresh: Cast Red: Second: download failed: https://cdn.example/two.mp3: HTTP 404 Not Found\n"
        )
    }

    /// A cause of the kind named, as the downloader reports it.
    static func cause(of kind: String) -> DownloadError.Cause {
        switch kind {
        case "too_slow":
            .transport(
                .transferLimit(
                    .minimumRate, host: "cdn.example", after: .seconds(30), receivedBytes: 10, expectedBytes: nil,
                    minimumRate: 1000))
        case "stalled":
            .transport(
                .transferLimit(
                    .stall, host: "cdn.example", after: .seconds(30), receivedBytes: 10, expectedBytes: 100,
                    minimumRate: nil))
        case "no_response":
            .transport(
                .transferLimit(
                    .firstByte, host: "cdn.example", after: .seconds(15), receivedBytes: 0, expectedBytes: nil,
                    minimumRate: nil))
        default: .fileFailed(.write, path: "/media/two.mp3.part", reason: "No space left on device", diskFull: true)
        }
    }

    @Test(
        "a failure that a limit or the disk caused names the option that changes it; the container is said",
        arguments: [
            ("too_slow", "(the limits are --min-rate and --min-rate-window)"),
            ("stalled", "(the limit is --stall-timeout)"),
            ("no_response", "(the limit is --first-byte-timeout)"),
            ("disk_full", "(free some space, or download elsewhere with --dir or `podfresh set FEED --dir`)"),
        ])
    func failuresNameTheirOption(kind: String, remedy: String) {
        let failed = DownloadOutcome(
            target: target("two", title: "Second"),
            result: .failed(
                DownloadFailure(
                    .download(DownloadError(Self.cause(of: kind), url: URL(string: "https://cdn.example/two.mp3"))))),
            seconds: 1)
        let done = DownloadOutcome(
            target: target("one", title: "First Episode"), result: .completed(bytes: 10_000_000, resumedFrom: 0),
            seconds: 10, container: .id3)
        let (out, err) = render(.plain, [.download(.failed(failed)), .download(.completed(done))])
        #expect(err.text.hasSuffix(" \(remedy)\n"), "\(err.text)")
        #expect(out.text.contains("(10 MB, MP3 (ID3) in 10s)"), "\(out.text)")
    }

    @Test func plainLinesSayEachFileAndTheTotalsAndNoProgress() {
        let (out, err) = render(.plain, events)
        #expect(
            out.lines == [
                "downloaded Cast Red: First Episode → /media/Cast/one.mp3 (10 MB in 10s)",
                "removed    Cast Red: /media/Cast/old.mp3 (keeps the newest 1)",
                "downloads: 1 downloaded (10 MB), 1 failed, 1 removed (past the newest kept) in 12s",
            ])
        #expect(err.lines.count == 1 && err.text.contains("download failed"))
    }

    @Test func cronHearsOfFilesDownloadedAndOfFailuresOnly() {
        let (out, err) = render(.quiet, events)
        #expect(out.lines == ["downloaded Cast Red: First Episode → /media/Cast/one.mp3 (10 MB in 10s)"])
        #expect(err.lines.count == 1)
        let (silent, silentErr) = render(
            .quiet, [.download(.finished(DownloadSummary(startedAt: started, endedAt: started)))])
        #expect(silent.text.isEmpty && silentErr.text.isEmpty, "nothing happened, nothing is said")
    }

    @Test func jsonLinesHaveAnEventPerStepWithItsKeys() throws {
        let (out, err) = render(.json, events)
        #expect(err.text.isEmpty)
        let objects = try out.lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            objects.compactMap { $0["event"] as? String } == [
                "downloads_queued", "download_started", "download_started", "download_progress", "download_failed",
                "download_completed", "download_removed", "downloads_completed",
            ])
        let progress = objects[3]
        #expect(progress["bytes"] as? Int == 3_000_000 && progress["total_bytes"] as? Int == 10_000_000)
        #expect(progress["seconds_left"] as? Double == 7 && progress["id"] as? String == "one")
        #expect(progress["feed_id"] as? Int == 7 && progress["file"] as? String == "/media/Cast/one.mp3")
        let failed = objects[4]
        #expect(failed["kind"] as? String == "http_status" && failed["http_status"] as? Int == 404)
        #expect(failed["part_kept"] as? Bool == false)
        #expect(objects[5]["bytes"] as? Int == 10_000_000)
        #expect(objects[7]["downloaded"] as? Int == 1 && objects[7]["failed"] as? Int == 1)
    }

    /// A broken link's failure, the first time or the same again.
    func brokenLink(repeated: Bool) -> EngineEvent {
        var failure = DownloadFailure(
            .download(
                DownloadError(
                    .httpStatus(404, reasonPhrase: "Not Found"), url: URL(string: "https://cdn.example/two.mp3"))))
        failure.permanent = true
        failure.failures = repeated ? 2 : 1
        failure.retryAfter = started.addingTimeInterval(3600)
        failure.isRepeat = repeated
        return .download(
            .failed(
                DownloadOutcome(target: target("two", title: "Second"), result: .failed(failure), seconds: 0)))
    }

    @Test func cronModeSaysABrokenLinkOnceNotOnEveryRun() {
        let (_, first) = render(.quiet, [brokenLink(repeated: false)])
        #expect(first.text.contains("Second: download failed: https://cdn.example/two.mp3: HTTP 404 Not Found"))
        #expect(
            first.text.contains("a broken link (failed once): next try after 2024-10-27T04:33:20Z"), "\(first.text)")
        #expect(first.text.contains("`podfresh download --retry` tries it now"))
        let (out, again) = render(.quiet, [brokenLink(repeated: true)])
        #expect(again.text.isEmpty && out.text.isEmpty, "the same failure again: \(again.text)")
        let (_, plain) = render(.plain, [brokenLink(repeated: true)])
        #expect(plain.text.contains("(failed 2 times in a row)"), "plain output still says it: \(plain.text)")
    }

    @Test func jsonLinesSayWhetherAFailureIsABrokenLinkAndWhenItIsTriedAgain() throws {
        let (out, _) = render(.json, [brokenLink(repeated: true)])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [String: Any])
        #expect(object["permanent"] as? Bool == true)
        #expect(object["failures"] as? Int == 2)
        #expect(object["retry_after"] as? String == "2024-10-27T04:33:20Z")
        #expect(object["repeated"] as? Bool == true)
    }
}
