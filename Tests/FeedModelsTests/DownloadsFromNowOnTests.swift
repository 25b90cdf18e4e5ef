import FeedModels
import FeedParsing
import Foundation
import Testing

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

/// Downloads from now on: turning a feed's downloads on takes what arrives from then on and the newest episode
/// already there; `--backlog` more; a feed whose downloads were on before keeps every episode.
struct DownloadsFromNowOnTests {
    private func episode(_ key: String, firstSeen: Date) -> StoredEpisode {
        StoredEpisode(
            subscriptionID: 1, key: key, episode: ParsedEpisode(id: key), firstSeenAt: firstSeen,
            lastSeenAt: firstSeen)
    }

    private func feed(on: Bool, since: Date? = nil, backlog: Int? = 1) -> Subscription {
        var feed = Subscription(
            id: 1, url: URL(string: "https://a.example/feed")!, addedAt: t0, downloadsEnabled: on)
        feed.downloadsSince = since
        feed.downloadBacklog = backlog
        return feed
    }

    /// A feed subscribed at t0 with five episodes, turned on an hour later; two more arrive after that.
    private var episodes: [StoredEpisode] {
        [
            episode("new2", firstSeen: t0 + 7_200), episode("new1", firstSeen: t0 + 5_400),
            episode("old5", firstSeen: t0), episode("old4", firstSeen: t0), episode("old3", firstSeen: t0),
            episode("old2", firstSeen: t0), episode("old1", firstSeen: t0),
        ]
    }

    @Test func whatArrivedSinceAndTheNewestBeforeAreTaken() {
        let (keys, left) = DownloadPlan.fromNowOn(episodes, since: t0 + 3_600, backlog: 1) { _ in true }
        #expect(keys == ["new2", "new1", "old5"])
        #expect(left == 4)
    }

    @Test func aBacklogTakesTheNewestNBeforeThatAreCandidates() {
        let (keys, left) = DownloadPlan.fromNowOn(episodes, since: t0 + 3_600, backlog: 2) { $0.key != "old5" }
        #expect(keys == ["new2", "new1", "old4", "old3"], "old5 has no media or is filtered out: it takes no place")
        #expect(left == 2)
        #expect(DownloadPlan.fromNowOn(episodes, since: t0 + 3_600, backlog: 0) { _ in true }.keys == ["new2", "new1"])
    }

    @Test func aFeedTurnedOnBeforeItsFirstCheckGetsItsBackCatalogueAsOlder() {
        // Imported at t0 - 100 and turned on at once; the first check at t0 stored all five.
        let first = episodes.filter { $0.key.hasPrefix("old") }
        let (keys, left) = DownloadPlan.fromNowOn(first, since: t0 - 50, backlog: 1) { _ in true }
        #expect(keys == ["old5"])
        #expect(left == 4)
    }

    @Test func onlyAFeedWhoseDownloadsAreOnAndRunFromATimeIsLimited() {
        #expect(DownloadPlan.downloadsFrom(feed(on: true, since: t0)) != nil)
        #expect(DownloadPlan.downloadsFrom(feed(on: true, since: nil)) == nil, "on before: every episode")
        #expect(DownloadPlan.downloadsFrom(feed(on: true, since: t0, backlog: nil)) == nil, "--backlog all")
        #expect(DownloadPlan.downloadsFrom(feed(on: false, since: t0)) == nil)
    }

    @Test func turningDownloadsOnStartsThemThen() {
        var settings = DownloadSettings(enabled: true)
        settings.changedAt = t0
        let after = settings.downloadsFrom(after: feed(on: false))
        #expect(after.since == t0 && after.backlog == 1)
        // Already on: the time stays.
        let still = settings.downloadsFrom(after: feed(on: true, since: t0 - 99))
        #expect(still.since == t0 - 99)
        // A feed whose downloads were on before keeps every episode, until a backlog is given.
        #expect(settings.downloadsFrom(after: feed(on: true, since: nil)).since == nil)
        var backlog = DownloadSettings()
        backlog.backlog = .newest(3)
        backlog.changedAt = t0
        let limited = backlog.downloadsFrom(after: feed(on: true, since: nil))
        #expect(limited.since == t0 && limited.backlog == 3)
        backlog.backlog = .all
        #expect(backlog.downloadsFrom(after: feed(on: true, since: t0)).backlog == nil)
        #expect(!backlog.isEmpty)
    }
}
