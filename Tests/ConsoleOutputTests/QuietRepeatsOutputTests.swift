import ConsoleOutput
import FeedFetching
import FeedModels
import FeedParsing
import Foundation
import RefreshEngine
import Testing

/// `watch` and cron mode say a feed's failure once, and again only when it changes; its recovery once.
struct QuietRepeatsOutputTests {
    let when = Date(timeIntervalSince1970: 1_730_000_000)
    let feed = FeedTarget(id: 7, url: URL(string: "https://a.example/list.opml")!, title: "Not A Feed")
    let other = FeedTarget(id: 8, url: URL(string: "https://b.example/feed.xml")!, title: "Other")

    func render(
        _ mode: OutputMode, quietRepeats: Bool, width: Int = 80, wide: Bool = false, _ events: [EngineEvent]
    ) -> (out: Buffer, err: Buffer) {
        let out = Buffer()
        let err = Buffer()
        let service = UIUpdateService(notificationCenter: nil)
        let renderer = ConsoleRenderer(
            mode: mode, out: out, err: err, now: { Date(timeIntervalSince1970: 0) }, quietRepeats: quietRepeats,
            wide: wide, width: { width })
        renderer.attach(to: service)
        for event in events { service.deliver(event) }
        return (out, err)
    }

    func failed(_ target: FeedTarget, status: Int, repeated: Bool) -> RefreshOutcome {
        var failure = RefreshFailure(
            .fetch(FeedFetchError(.httpStatus(status, reasonPhrase: "Trouble", retryAfter: nil))))
        failure.isRepeat = repeated
        return RefreshOutcome(feed: target, result: .failed(failure))
    }

    func batch(_ outcomes: [RefreshOutcome]) -> [EngineEvent] {
        var events: [EngineEvent] = [.fetch(.batchStarted(total: outcomes.count))]
        for outcome in outcomes {
            events.append(.fetch(outcome.isFailure ? .fetchFailed(outcome) : .fetchCompleted(outcome)))
        }
        events.append(
            .fetch(
                .batchCompleted(
                    RefreshSummary(outcomes: outcomes, startedAt: when, endedAt: when, networkOffline: false))))
        return events
    }

    @Test func cronModeLeavesARepeatedFailureOutAndSaysNothingWhenNothingElseHappened() {
        let (out, err) = render(.quiet, quietRepeats: true, batch([failed(feed, status: 404, repeated: true)]))
        #expect(out.text.isEmpty)
        #expect(err.text.isEmpty)
    }

    @Test func cronModeSaysANewOrChangedFailureAndCountsTheRepeatsUnderIt() {
        let (out, err) = render(
            .quiet, quietRepeats: true,
            batch([failed(feed, status: 404, repeated: true), failed(other, status: 500, repeated: false)]))
        #expect(out.text.isEmpty)
        #expect(err.lines.count == 2, "\(err.text)")
        #expect(err.lines[0].contains("Other: HTTP 500"))
        #expect(err.lines[1].contains("1 feed still failing as before") && err.lines[1].contains("podfresh status"))
        #expect(!err.text.contains("HTTP 404"))
    }

    @Test(arguments: [OutputMode.plain, .tty])
    func watchLeavesRepeatsOutAndCountsThemEveryCycle(mode: OutputMode) {
        let (_, err) = render(mode, quietRepeats: true, batch([failed(feed, status: 404, repeated: true)]))
        #expect(!err.text.contains("HTTP 404"))
        #expect(err.text.contains("1 feed still failing as before"), "\(err.text)")
    }

    @Test(arguments: [OutputMode.plain, .tty, .quiet])
    func aRecoveryIsSaidOnce(mode: OutputMode) {
        var recovered = RefreshOutcome(feed: feed, result: .notModified)
        recovered.recovered = .init(
            failures: 3, lastErrorKind: "http-status",
            lastError: RefreshFailure(.fetch(FeedFetchError(.httpStatus(503, reasonPhrase: "Busy", retryAfter: nil))))
                .storedCause)
        let (out, _) = render(mode, quietRepeats: true, batch([recovered]))
        #expect(out.lines.filter { $0.contains("recovered Not A Feed") }.count == 1, "\(out.text)")
        #expect(out.text.contains("after 3 failed checks (last: HTTP 503"), "\(out.text)")
    }

    @Test func withoutQuietRepeatsEveryFailureIsPrintedAsBefore() {
        var recovered = RefreshOutcome(feed: other, result: .notModified)
        recovered.recovered = .init(failures: 1, lastErrorKind: nil, lastError: nil)
        let (out, err) = render(
            .plain, quietRepeats: false, batch([failed(feed, status: 404, repeated: true), recovered]))
        #expect(err.text.contains("Not A Feed: HTTP 404"))
        #expect(!err.text.contains("still failing"))
        #expect(!out.text.contains("recovered"))
    }

    // MARK: - The live terminal's width

    func episode(_ title: String) -> EpisodeAnnouncement {
        EpisodeAnnouncement(
            feedID: 8,
            episode: ParsedEpisode(
                id: title, title: title, published: when,
                enclosures: [
                    Enclosure(
                        url: URL(
                            string:
                                "https://dts.podtrac.com/redirect.mp3/chrt.fm/track/ABC123/pdst.fm/e/rss.art19.com/episodes/\(title).mp3"
                        )!, type: "audio/mpeg")
                ]))
    }

    @Test(arguments: [40, 80, 120])
    func onATerminalEveryLineFitsAndAnEpisodeShowsFeedTitleAndDateWithoutItsURL(width: Int) {
        let long = "一二三四五六七八九十 A Remarkably Long Episode Title That Goes On 🎙️ and On and On and On"
        let updated = RefreshOutcome(
            feed: other, result: .updated(newEpisodes: [episode(long)], updatedCount: 0))
        let (out, err) = render(
            .tty, quietRepeats: false, width: width, batch([updated, failed(feed, status: 404, repeated: false)]))
        let lines = (out.text + err.text).split(separator: "\n").flatMap { $0.split(separator: "\r") }
            .map { $0.replacing(/\x{1B}\[[0-9;]*[A-Za-z]/, with: "") }
        #expect(lines.allSatisfy { TerminalWidth.of($0) <= width }, "\(lines)")
        let episodeLine = out.lines.first { $0.contains("+ Other: ") }
        #expect(episodeLine?.contains("(2024-10-27)") == true, "\(out.text)")
        #expect(!out.text.contains("podtrac"), "no media URL on a terminal")
        #expect(err.text.contains("HTTP 404"), "an error wraps; it is not cut")
    }

    @Test func wideOnATerminalPrintsTheEpisodeWholeWithItsURL() {
        let updated = RefreshOutcome(
            feed: other, result: .updated(newEpisodes: [episode("Title")], updatedCount: 0))
        let (out, _) = render(.tty, quietRepeats: false, width: 40, wide: true, batch([updated]))
        #expect(out.text.contains("+ Other: Title (2024-10-27) https://dts.podtrac.com/redirect.mp3/"), "\(out.text)")
    }
}
