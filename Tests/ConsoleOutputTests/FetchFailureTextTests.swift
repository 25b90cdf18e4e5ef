import ConsoleOutput
import FeedFetching
import FeedModels
import FeedParsing
import Foundation
import HTTPTransport
import RefreshEngine
import Testing

/// A fetch failure carries facts (the host, the limit and its value, byte counts); ConsoleOutput alone words them.
struct FetchFailureTextTests {
    @Test func aStallNamesTheLimitItsValueAndTheBytesSoFar() {
        let error = FeedFetchError(
            .transport(
                .transferLimit(
                    .stall, host: "slow.example", after: .seconds(30), receivedBytes: 1200, expectedBytes: 5000,
                    minimumRate: nil)))
        #expect(error.limit == .stall)
        #expect(
            FetchFailureText.line(error)
                == "slow.example stopped sending: no byte for 30s (stall limit; got 1200 of 5000 bytes)")
    }

    @Test func eachNamedLimitIsWordedWithItsValueInTheOneDurationStyle() {
        func line(_ limit: TransferLimit, after: Duration, rate: Int? = nil) -> String {
            FetchFailureText.line(
                FeedFetchError(
                    .transport(
                        .transferLimit(
                            limit, host: "h.example", after: after, receivedBytes: 10, expectedBytes: nil,
                            minimumRate: rate))))
        }
        #expect(
            line(.firstByte, after: .seconds(90))
                == "h.example sent no answer within 1m 30s of the request (first-byte limit)")
        #expect(
            line(.minimumRate, after: .seconds(20), rate: 1000)
                == "h.example sends too slowly: under 1 kB/s over 20s (minimum-rate limit; got 10 bytes)")
        #expect(
            line(.total, after: .seconds(3900)) == "timed out: the whole fetch took longer than 1h 5m (got 10 bytes)")
        #expect(
            FetchFailureText.line(FeedFetchError(.transport(.connectTimedOut(host: "h.example", after: .seconds(10)))))
                == "could not connect to h.example within 10s: no answer from the host or the network")
    }

    @Test func anHTTP2StreamResetNamesTheHostAndTheServersErrorCodeInWords() {
        func line(_ code: Int) -> String {
            FetchFailureText.line(FeedFetchError(.transport(.streamReset(host: "h.example", code: code))))
        }
        #expect(line(2) == "h.example reset the HTTP/2 stream of this fetch (INTERNAL_ERROR: the server failed)")
        #expect(
            line(7)
                == "h.example reset the HTTP/2 stream of this fetch "
                + "(REFUSED_STREAM: the server took on no more requests; try again later)")
        #expect(line(0x42) == "h.example reset the HTTP/2 stream of this fetch (error code 66)")
    }

    @Test func aBodyOverTheLimitNamesTheLimitInBytesAndTheOptionThatRaisesIt() {
        let error = FeedFetchError(.bodyOverLimit(limit: 1_000_000, announced: 5_000_000_000))
        #expect(FetchFailureText.line(error) == "the feed is larger than the 1 MB limit: the server announces 5 GB")
        #expect(
            ErrorText.line(error)
                == "the feed is larger than the 1 MB limit: the server announces 5 GB (--max-feed-size)")
        #expect(!FetchFailureText.line(error).contains("--"), "the cause alone names no option")
    }

    @Test func statusesKeepTheirReasonPhraseAndRetryAfter() {
        let retry = Date(timeIntervalSince1970: 1_730_260_800)
        #expect(
            FetchFailureText.line(
                FeedFetchError(.httpStatus(503, reasonPhrase: "Service Unavailable", retryAfter: retry)))
                == "HTTP 503 Service Unavailable (retry after Wed, 30 Oct 2024 04:00:00 GMT)")
        #expect(
            FetchFailureText.line(FeedFetchError(.transport(.connectionRefused(host: "127.0.0.1", port: 8080))))
                == "connection refused by 127.0.0.1:8080: nothing is listening there (server down, or a wrong port?)")
    }

    @Test func aBodyCutByTheServerNamesTheHostAndTheBytes() {
        #expect(
            FetchFailureText.line(
                FeedFetchError(
                    .transport(.closedBeforeEnd(host: "feeds.example", receivedBytes: 100, expectedBytes: 10_000))))
                == "feeds.example closed the connection before the feed's end arrived (got 100 of 10000 bytes)")
        #expect(
            FetchFailureText.line(
                FeedFetchError(
                    .transport(.closedBeforeEnd(host: "feeds.example", receivedBytes: 100, expectedBytes: nil))))
                == "feeds.example closed the connection before the feed's end arrived (got 100 bytes)")
    }

    @Test func aTLSFailureReadsWithoutLibraryJargon() {
        let line = FetchFailureText.line(FeedFetchError(.transport(.certificateNotTrusted(host: "127.0.0.1"))))
        #expect(line.contains("certificate of 127.0.0.1 is not trusted"))
        for jargon in ["NIOSSL", "BoringSSL", "handshakeFailed", "sslError", ".cc", "/", "error:"] {
            #expect(!line.contains(jargon), "\(line)")
        }
    }

    @Test func aStoredFailureIsWordedWhenShownAndOldTextIsShownAsStored() throws {
        let failure = RefreshFailure(
            .fetch(
                FeedFetchError(
                    .transport(
                        .transferLimit(
                            .firstByte, host: "a.example", after: .seconds(15), receivedBytes: 0, expectedBytes: nil,
                            minimumRate: nil)))))
        // What the store keeps is the facts, not a sentence …
        let stored = failure.storedCause
        #expect(!stored.contains("first-byte limit"))
        #expect(RefreshFailure.cause(stored: stored) == failure.cause)
        // … worded when `list` and `status` show it.
        #expect(
            FeedFailureText.stored(stored) == "a.example sent no answer within 15s of the request (first-byte limit)")
        // A row an older podfresh wrote holds its sentence: shown as it is.
        #expect(FeedFailureText.stored("HTTP 404 Not Found") == "HTTP 404 Not Found")
        #expect(FeedFailureText.stored(nil) == nil)
        let subscription = Subscription(
            id: 1, url: URL(string: "https://a.example/feed")!, addedAt: Date(), failureCount: 1,
            lastErrorKind: "timeout", lastError: stored)
        #expect(SubscriptionList.status(of: subscription).hasSuffix("(first-byte limit)"))
    }

    @Test func aRefusedMoveIsWordedFromItsFacts() {
        let target = URL(string: "https://b.example/feed")!
        let staying = URL(string: "https://a.example/feed")!
        #expect(
            MoveText.refusal(.taken(TakenMove(target: target, otherID: 4, otherTitle: "B")))
                == "https://b.example/feed is already subscribed as 4 (B)")
        #expect(
            MoveText.refusal(
                .unreadable(
                    target: target, staying: staying,
                    cause: .fetch(FeedFetchError(.transport(.noSuchHost(host: "b.example"))))))
                == "the feed names https://b.example/feed as its new address, but it is not a readable feed (b.example "
                + "does not exist (the name server knows no such host): check the feed's URL); staying at https://a.example/feed"
        )
    }

    @Test func everyStoredCauseFamilyRoundTrips() {
        let causes: [RefreshFailure.Cause] = [
            .fetch(FeedFetchError(.gone)),
            .fetch(
                FeedFetchError(
                    .httpStatus(429, reasonPhrase: "Too Many Requests", retryAfter: Date(timeIntervalSince1970: 1000)))),
            .parse(FeedParseError(.notWellFormed(libxml2Message: "Opening and ending tag mismatch", line: 3))),
            .parse(FeedParseError(.rootNotAFeed(root: "html"))),
            .store(StoreError(.sqlite(path: "/tmp/p.sqlite", code: 10, message: "disk I/O error", writing: true))),
            .store(
                StoreError(
                    .postgresProbeFailed(
                        host: "db", port: 5432,
                        cause: .postgresUnreachable(host: "db", port: 5432, cause: .noSuchHost(code: -2))))),
            .notChecked(.noFetchSlot),
            .unexpected(reason: "unexpected error (Odd)"),
        ]
        for cause in causes {
            let stored = RefreshFailure(cause).storedCause
            #expect(RefreshFailure.cause(stored: stored) == cause, "\(stored)")
        }
    }
}
