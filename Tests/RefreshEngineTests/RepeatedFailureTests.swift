import FeedFetching
import FeedModels
import FeedParsing
import Foundation
import HTTPTransport
import Testing

@testable import RefreshEngine

/// A feed's failure that repeats its last (same kind and cause; times and byte counts aside) is marked a repeat, as a
/// broken link's is; a success after failures is a recovery.
struct RepeatedFailureTests {
    func http(_ status: Int, retryAfter: Date? = nil) -> RefreshFailure {
        RefreshFailure(.fetch(FeedFetchError(.httpStatus(status, reasonPhrase: "Trouble", retryAfter: retryAfter))))
    }

    func stall(after seconds: Int, received: Int64) -> RefreshFailure {
        RefreshFailure(
            .fetch(
                FeedFetchError(
                    .transport(
                        .transferLimit(
                            .stall, host: "a.example", after: .seconds(seconds), receivedBytes: received,
                            expectedBytes: nil, minimumRate: nil)))))
    }

    func failing(_ failure: RefreshFailure, count: Int = 2) -> Subscription {
        Subscription(
            id: 1, url: URL(string: "https://a.example/feed.xml")!, addedAt: Date(), failureCount: count,
            lastErrorKind: failure.kind.rawValue, lastError: failure.storedCause)
    }

    @Test func theSameCauseIsARepeatWhateverItsTimes() {
        let earlier = http(503, retryAfter: Date(timeIntervalSince1970: 1_000))
        let later = http(503, retryAfter: Date(timeIntervalSince1970: 9_000))
        #expect(earlier.storedCause != later.storedCause)
        #expect(earlier.identity == later.identity)
        #expect(FeedRefresh.repeats(later, of: failing(earlier)))
        #expect(FeedRefresh.repeats(stall(after: 21, received: 10), of: failing(stall(after: 20, received: 99))))
    }

    @Test func aChangedCauseOrKindIsNotARepeat() {
        #expect(!FeedRefresh.repeats(http(500), of: failing(http(404))))
        #expect(!FeedRefresh.repeats(stall(after: 20, received: 0), of: failing(http(404))))
    }

    @Test func aFirstFailureOrOneAfterLegacyTextIsNotARepeat() {
        #expect(!FeedRefresh.repeats(http(404), of: failing(http(404), count: 0)))
        var legacy = failing(http(404))
        legacy.lastError = "HTTP 404 Not Found"
        #expect(!FeedRefresh.repeats(http(404), of: legacy))
    }

    @Test func aSuccessAfterFailuresIsARecovery() {
        let recovery = FeedRefresh.recovery(of: failing(http(503), count: 3))
        #expect(recovery?.failures == 3)
        #expect(recovery?.lastErrorKind == "http-status")
        #expect(FeedRefresh.recovery(of: failing(http(503), count: 0)) == nil)
    }
}
