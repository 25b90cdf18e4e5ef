import FeedModels
import Foundation
import Testing

/// A feed's pings count as seen for a month after the last one, and never for a feed that says it does not ping.
struct PodpingPingsSeenTests {
    let now = Date(timeIntervalSince1970: 1_733_000_000)

    @Test func aRecentPingIsSeenAnOldOneOrNoneIsNot() {
        #expect(PodpingFeedState(subscriptionID: 1, lastPingAt: now.addingTimeInterval(-86_400)).pingsSeen(at: now))
        #expect(
            !PodpingFeedState(subscriptionID: 1, lastPingAt: now.addingTimeInterval(-31 * 86_400)).pingsSeen(at: now))
        #expect(!PodpingFeedState(subscriptionID: 1, usesPodping: true).pingsSeen(at: now), "declared, never pinged")
        #expect(
            !PodpingFeedState(subscriptionID: 1, usesPodping: false, lastPingAt: now).pingsSeen(at: now),
            "the feed says it does not ping")
    }
}
