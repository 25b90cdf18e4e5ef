import ConsoleOutput
import FeedModels
import FeedParsing
import FeedStorage
import Foundation
import RefreshEngine
import TestSupport
import Testing

/// Counts faults injected, printed as figures for RELIABILITY.md (`reliability-figure:` lines).
enum FaultLedger {
    static func record(_ name: String, _ result: Containment) {
        print(
            "reliability-figure: fault \(name): \(result.hostileRequests) faulty response(s) served, outcome \(result.outcome.result)"
        )
    }
}

/// A good feed for the victim, version 2: one more episode than the stored three.
private let victimV2 = FeedFactory.bytes(FeedFactory.numbered(title: "Victim", prefix: "victim", count: 4))

/// A failing server, through the real refresh engine: each fault ends in a specific outcome naming its cause, nothing
/// hangs, the good feed of the same run is stored and the failing feed's episodes are untouched.
@Suite("Faulty servers through the refresh engine")
struct FaultInjectionTests {
    @Test(.timeLimit(.minutes(1)))
    func aTricklingServerWithinTheTimeoutIsStillRead() async throws {
        let result = try await refreshTurningHostile(
            .ok(body: victimV2, fault: .trickle(bytes: 64, delay: .milliseconds(5))))
        FaultLedger.record("trickle", result)
        #expect(result.outcome.newEpisodes.map(\.key) == ["victim-3"], "\(result.outcome.result)")
    }

    // The total timeout is shared with the good feed of the same run, so it is kept at 6 s (not lower) for loaded
    // machines; the trickle needs ~14 s and the stall never ends.
    @Test(.timeLimit(.minutes(1)))
    func aTrickleSlowerThanTheTotalTimeoutFailsAsATimeout() async throws {
        let result = try await refreshTurningHostile(
            .ok(body: victimV2, fault: .trickle(bytes: 8, delay: .milliseconds(100))),
            fetch: testFetchConfiguration(totalTimeout: .seconds(6)))
        FaultLedger.record("trickle past the timeout", result)
        result.expectFailedUntouched(kind: "timeout")
    }

    @Test(.timeLimit(.minutes(1)))
    func aServerStallingMidBodyFailsAsATimeout() async throws {
        let result = try await refreshTurningHostile(
            .ok(body: victimV2, fault: .stall(afterBytes: 300)),
            fetch: testFetchConfiguration(totalTimeout: .seconds(6)))
        FaultLedger.record("stall mid-body", result)
        result.expectFailedUntouched(kind: "timeout")
    }

    @Test(.timeLimit(.minutes(1)))
    func aConnectionResetMidBodyFailsAsATransportError() async throws {
        let result = try await refreshTurningHostile(.ok(body: victimV2, fault: .reset(afterBytes: 300)))
        FaultLedger.record("reset mid-body", result)
        result.expectFailedUntouched(kind: "transport")
    }

    @Test(.timeLimit(.minutes(1)))
    func aBodyShorterThanItsContentLengthFailsAsATransportError() async throws {
        let result = try await refreshTurningHostile(
            .ok(body: victimV2, fault: .shortBody(afterBytes: victimV2.count - 100)))
        FaultLedger.record("short Content-Length", result)
        result.expectFailedUntouched(kind: "transport")
    }

    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            "SSH-2.0-OpenSSH_9.2\r\n", "HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n<rss/>",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ])
    func anAnswerThatIsNotHTTPFailsAsATransportError(_ answer: String) async throws {
        let result = try await refreshTurningHostile(TestResponse(fault: .raw(Array(answer.utf8))))
        FaultLedger.record("raw answer \(answer.prefix(20).debugDescription)", result)
        result.expectFailedUntouched(kind: "transport")
    }

    @Test(.timeLimit(.minutes(1)))
    func aHandWrittenButValidAnswerIsRead() async throws {
        // The raw fault sends exactly these bytes: a correct response written by hand is read like any other.
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: \(victimV2.count)\r\nConnection: close\r\n\r\n"
        let result = try await refreshTurningHostile(TestResponse(fault: .raw(Array(head.utf8) + victimV2)))
        #expect(result.outcome.newEpisodes.map(\.key) == ["victim-3"], "\(result.outcome.result)")
    }

    @Test(.timeLimit(.minutes(1)))
    func aRedirectLoopFailsAsTooManyRedirects() async throws {
        try await withTestHTTPServer { server in
            server.setRoute("/loop-a", .redirect(status: 302, location: server.url("/loop-b").absoluteString))
            server.setRoute("/loop-b", .redirect(status: 302, location: server.url("/loop-a").absoluteString))
            let result = try await refreshTurningHostile(
                .redirect(status: 302, location: server.url("/loop-a").absoluteString), server: server)
            FaultLedger.record("redirect loop", result)
            result.expectFailedUntouched(kind: "too-many-redirects")
            #expect(result.hostileRequests < 50, "the loop was followed \(result.hostileRequests) times")
        }
    }

    @Test(
        .timeLimit(.minutes(1)),
        arguments: ["file:///etc/passwd", "ftp://127.0.0.1/feed.xml", "javascript:alert(1)", "data:text/xml,<rss/>"])
    func aRedirectToAnotherSchemeIsRefused(_ location: String) async throws {
        let result = try await refreshTurningHostile(.redirect(status: 301, location: location))
        FaultLedger.record("redirect to \(location.prefix(while: { $0 != ":" })):", result)
        result.expectFailedUntouched(kind: "unsupported-scheme")
        #expect(!String(describing: result.after).contains("root:"), "a redirect read a local file")
        #expect(
            result.subscriptionAfter.url == result.subscriptionBefore.url, "a refused redirect must not move the feed")
    }

    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            (503, "-1"), (503, "99999999999999999999"), (503, "Wed, 21 Oct 2015 07:28:00 GMT"), (503, "soon"),
            (429, "0"), (429, "Fri, 31 Dec 9999 23:59:59 GMT"), (429, "1.5"), (500, ""),
        ])
    func anErrorStatusWithAnOddRetryAfterFailsWithTheStatusAndASaneSchedule(
        _ status: Int, _ retryAfter: String
    ) async throws {
        let headers = retryAfter.isEmpty ? [] : [("Retry-After", retryAfter)]
        let result = try await refreshTurningHostile(.status(status, headers: headers, body: Array("busy".utf8)))
        FaultLedger.record("\(status) Retry-After \(retryAfter.debugDescription)", result)
        result.expectFailedUntouched(kind: "http-status")
        #expect(result.outcome.failure?.status == status)
        let words = result.outcome.failure.map(FeedFailureText.line) ?? ""
        #expect(words.contains("\(status)"), "\(words)")
        if let next = result.subscriptionAfter.nextCheckAt {
            #expect(next >= Date().addingTimeInterval(-60), "next check in the past: \(next)")
            #expect(next <= Date().addingTimeInterval(400 * 86_400), "next check absurdly far: \(next)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aBodyOverTheSizeCapFailsAsTooLarge() async throws {
        var body = Array(victimV2.dropLast(20))
        body += [UInt8](repeating: UInt8(ascii: " "), count: 6 << 20)
        let result = try await refreshTurningHostile(
            .ok(body: body), fetch: testFetchConfiguration(maxBodyBytes: 1 << 20))
        FaultLedger.record("huge body", result)
        result.expectFailedUntouched(kind: "too-large", messageContains: "larger than")
    }

    @Test(.timeLimit(.minutes(1)))
    func aGzipBombIsStoppedAtTheSizeCap() async throws {
        let bomb = try await gzippedZeros(level: 1, megabytes: 200)
        #expect(bomb.count < 1 << 20)
        let result = try await refreshTurningHostile(
            .status(200, headers: [("Content-Type", "application/rss+xml"), ("Content-Encoding", "gzip")], body: bomb),
            fetch: testFetchConfiguration(maxBodyBytes: 4 << 20))
        FaultLedger.record("gzip bomb (200 MB of zeros in \(bomb.count) bytes)", result)
        #expect(
            ["too-large", "not-xml", "malformed"].contains(result.outcome.failure?.kind.rawValue ?? ""),
            "\(result.outcome.result)")
        result.expectFailedUntouched(kind: result.outcome.failure?.kind.rawValue ?? "")
    }

    @Test(.timeLimit(.minutes(1)))
    func aFeedWithAWrongContentTypeIsStillRead() async throws {
        let result = try await refreshTurningHostile(.ok(body: victimV2, contentType: "image/png"))
        FaultLedger.record("wrong Content-Type", result)
        #expect(result.outcome.newEpisodes.map(\.key) == ["victim-3"], "\(result.outcome.result)")
    }

    @Test(.timeLimit(.minutes(1)))
    func anHTMLPageInsteadOfAFeedFailsAsNotAFeed() async throws {
        let html =
            "<!DOCTYPE html>\n<html><head><title>Parked domain</title></head><body><p>Buy this domain &nbsp; now</p></body></html>\n"
        let result = try await refreshTurningHostile(
            .ok(body: Array(html.utf8), contentType: "text/html; charset=utf-8"))
        FaultLedger.record("HTML instead of a feed", result)
        #expect(
            ["not-a-feed", "not-xml"].contains(result.outcome.failure?.kind.rawValue ?? ""), "\(result.outcome.result)")
        result.expectFailedUntouched(kind: result.outcome.failure?.kind.rawValue ?? "")
    }

    @Test(.timeLimit(.minutes(1)))
    func anEmpty200FailsAsEmpty() async throws {
        let result = try await refreshTurningHostile(.ok(body: []))
        FaultLedger.record("empty 200", result)
        result.expectFailedUntouched(kind: "empty")
    }

    @Test(.timeLimit(.minutes(1)))
    func invalidUTF8IsRecoveredWithAWarningOrRejected() async throws {
        var body = Array(FeedFactory.numbered(title: "Victim", prefix: "victim", count: 4).utf8)
        // Break the last episode's title with bytes that are never valid UTF-8.
        let marker = Array("Episode 3".utf8)
        if let start = (0...(body.count - marker.count)).first(where: {
            body[$0..<($0 + marker.count)].elementsEqual(marker)
        }) {
            body.replaceSubrange(
                start..<(start + marker.count), with: [0x45, 0xFF, 0xFE, 0xC0, 0x80, 0xED, 0xA0, 0x80])
        }
        let result = try await refreshTurningHostile(.ok(body: body))
        FaultLedger.record("invalid UTF-8", result)
        switch result.outcome.result {
        case .updated:
            #expect(!result.outcome.warnings.isEmpty)
            let titles = result.after.compactMap(\.episode.title)
            #expect(titles.allSatisfy { !$0.unicodeScalars.contains { $0.value == 0xFFFF } })
        case .failed(let failure):
            #expect(failure.kind.rawValue == "malformed")
            result.expectFailedUntouched(kind: "malformed")
        default:
            Issue.record("unexpected \(result.outcome.result)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func a304ToAnUnconditionalRequestChangesNothing() async throws {
        let result = try await refreshTurningHostile(.status(304, headers: [("ETag", "\"x\"")]))
        FaultLedger.record("304 to an unconditional request", result)
        switch result.outcome.result {
        case .failed(let failure):
            #expect(FeedFailureText.line(failure).contains("304"), "\(FeedFailureText.line(failure))")
            result.expectFailedUntouched(kind: failure.kind.rawValue)
        case .notModified:
            result.expectUntouched()
        default:
            Issue.record("unexpected \(result.outcome.result)")
        }
    }
}
