import FeedModels
import FeedParsing
import Foundation
import Testing

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

private func check(_ result: FeedCheck.Result, status: Int? = nil, bodyBytes: Int? = nil) -> FeedCheck {
    FeedCheck(
        subscriptionID: 3, checkedAt: t0, status: status, result: result, nextCheckAt: t0 + 3600,
        nextCheckReason: .cadence(interval: .seconds(3600), basis: .noRhythmYet), bodyBytes: bodyBytes)
}

/// What a check writes to its subscription's state, the rule both stores carry out, without a database.
struct CheckStatePlanTests {
    @Test func aFetchedFeedIsASuccessThatClearsTheErrorAndCarriesTheFeedsOwnFields() throws {
        var feed = ParsedFeed(format: .rss2, title: "Show", episodes: [])
        feed.ttl = 60
        feed.complete = true
        let state = CheckStatePlan(
            check(.fetched(feed, etag: "\"v2\"", lastModified: nil, unconditional: true), bodyBytes: 512))

        #expect(state.lastCheckedAt == t0 && state.lastSuccessAt == t0 && state.lastUnconditionalAt == t0)
        #expect(state.lastStatus == 200, "200 when the check does not say")
        #expect(state.failureCount == .reset && state.isGone == false)
        #expect(state.lastErrorKind == nil && state.lastError == nil)
        #expect(
            state.nextCheckAt == t0 + 3600
                && state.nextCheckReason == .cadence(interval: .seconds(3600), basis: .noRhythmYet))
        let fetched = try #require(state.fetched)
        #expect(fetched.title == "Show" && fetched.etag == "\"v2\"" && fetched.ttlMinutes == 60)
        #expect(fetched.isComplete && fetched.bodyBytes == 512)
    }

    @Test func aConditionalFetchKeepsTheLastUnconditionalTime() {
        let state = CheckStatePlan(
            check(.fetched(ParsedFeed(format: .rss2, episodes: []), etag: nil, lastModified: nil, unconditional: false))
        )

        #expect(state.lastUnconditionalAt == nil, "nil keeps the stored time")
    }

    @Test func aNotModifiedAnswerIsASuccessWithoutAFeed() {
        let state = CheckStatePlan(check(.notModified))

        #expect(state.lastSuccessAt == t0 && state.lastStatus == 304)
        #expect(state.failureCount == .reset && state.isGone == false && state.lastError == nil)
        #expect(state.fetched == nil)
    }

    @Test func aFailureCountsOneMoreAndKeepsTheGoneFlagAndTheLastSuccess() {
        let state = CheckStatePlan(check(.failed(kind: "http", message: "HTTP 500"), status: 500))

        #expect(state.failureCount == .increment)
        #expect(state.lastErrorKind == "http" && state.lastError == "HTTP 500" && state.lastStatus == 500)
        #expect(state.lastSuccessAt == nil && state.isGone == nil, "nil keeps the stored values")
        #expect(state.nextCheckAt == t0 + 3600)
        #expect(CheckStatePlan(check(.failed(kind: "dns", message: "no such host"))).lastStatus == nil)
    }

    @Test func aGoneFeedIsNeverDueAgainAndIsNotCountedAsAFailure() {
        let state = CheckStatePlan(check(.gone(message: "HTTP 410")))

        #expect(state.isGone == true && state.lastStatus == 410)
        #expect(state.lastErrorKind == "gone" && state.lastError == "HTTP 410")
        #expect(state.failureCount == .keep)
        #expect(state.nextCheckAt == nil && state.nextCheckReason == .gone)
    }
}
