import FeedModels
import FeedParsing
import Foundation
import Testing

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)

private func item(_ id: String, daysAgo: Int?) -> ParsedEpisode {
    ParsedEpisode(
        id: id, guid: id, title: "Title of \(id)",
        published: daysAgo.map { t0.addingTimeInterval(Double(-$0) * 86_400) },
        enclosures: [Enclosure(url: URL(string: "https://cdn.example.com/\(id).mp3")!, length: 10, type: "audio/mpeg")])
}

private func fetched(
    _ subscription: Subscription, _ episodes: [ParsedEpisode], at date: Date, read: BodyRead?, bodyBytes: Int? = 5000
) -> FeedCheck {
    var check = FeedCheck(
        subscriptionID: subscription.id, checkedAt: date, status: 200,
        result: .fetched(
            ParsedFeed(format: .rss2, title: "Show", episodes: episodes), etag: nil, lastModified: nil,
            unconditional: true),
        bodyBytes: bodyBytes)
    check.bodyRead = read
    return check
}

/// What both stores keep for issue #36's steady state: the leading episodes a body is compared with, the digest of the
/// last body read whole and when, and how many feeds a run read short.
@Suite(.serialized)
struct SteadyStateStoreTests {
    @Test(arguments: Backend.allCases)
    func theLeadingEpisodesAreTheNewestDatedOnesWithTheirFingerprints(backend: Backend) async throws {
        try await backend.withStore { store in
            let subscription = try await store.addSubscription(
                url: URL(string: "https://a.example/f.xml")!, title: nil, at: t0, backlog: 100)
            let episodes = [item("undated", daysAgo: nil)] + (1...10).map { (n: Int) in item("e\(n)", daysAgo: n) }
            _ = try await store.apply(fetched(subscription, episodes, at: t0, read: .whole(digest: nil)))

            let leading = try await store.leadingEpisodes(subscriptionID: subscription.id, limit: 3)
            #expect(leading.map(\.key) == ["e1", "e2", "e3"])
            #expect(leading.map(\.fingerprint) == episodes[1...3].map { EpisodeFields($0).fingerprint })
            #expect(leading.first?.published == t0.addingTimeInterval(-86_400))
        }
    }

    @Test(arguments: Backend.allCases)
    func aWholeReadKeepsItsDigestAShortReadKeepsTheStoredOneAndAnIdenticalBodyCountsAsWhole(
        backend: Backend
    ) async throws {
        try await backend.withStore { store in
            let added = try await store.addSubscription(
                url: URL(string: "https://a.example/f.xml")!, title: nil, at: t0, backlog: 100)
            let episodes = (1...5).map { (n: Int) in item("e\(n)", daysAgo: n) }
            _ = try await store.apply(fetched(added, episodes, at: t0, read: .whole(digest: "xxh64:1:abc:5000")))
            var subscription = try #require(try await store.subscription(id: added.id))
            #expect(subscription.lastBodyDigest == "xxh64:1:abc:5000")
            #expect(subscription.lastWholeReadAt == t0)
            #expect(subscription.lastBodyBytes == 5000)

            let hourLater = t0.addingTimeInterval(3600)
            _ = try await store.apply(
                fetched(added, Array(episodes.prefix(3)), at: hourLater, read: .short, bodyBytes: nil))
            subscription = try #require(try await store.subscription(id: added.id))
            #expect(subscription.lastBodyDigest == "xxh64:1:abc:5000", "a short read says nothing of the whole body")
            #expect(subscription.lastWholeReadAt == t0)
            #expect(subscription.lastBodyBytes == 5000)
            #expect(subscription.lastSuccessAt == hourLater)
            #expect(try await store.countEpisodes(EpisodeQuery(subscriptionID: added.id)) == 5, "nothing is lost")

            let dayLater = t0.addingTimeInterval(86_400)
            var identical = FeedCheck(subscriptionID: added.id, checkedAt: dayLater, status: 200, result: .notModified)
            identical.bodyRead = .identical
            _ = try await store.apply(identical)
            subscription = try #require(try await store.subscription(id: added.id))
            #expect(subscription.lastWholeReadAt == dayLater)
            #expect(subscription.lastBodyDigest == "xxh64:1:abc:5000")
            #expect(subscription.lastStatus == 200)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRunRecordsHowManyFeedsItReadShort(backend: Backend) async throws {
        try await backend.withStore { store in
            var run = try await store.beginRun(at: t0)
            run.endedAt = t0.addingTimeInterval(10)
            run.feedsChecked = 4
            run.feedsReadShort = 3
            try await store.finishRun(run)
            #expect(try await store.lastRun(checkedFeeds: true)?.feedsReadShort == 3)
        }
    }

    @Test(arguments: Backend.allCases)
    func aShortReadMergesTheEpisodesItListsAsAWholeReadWouldAndLeavesTheRest(backend: Backend) async throws {
        try await backend.withStore { store in
            let added = try await store.addSubscription(
                url: URL(string: "https://a.example/f.xml")!, title: nil, at: t0, backlog: 1000)
            let stored = (1...300).map { (n: Int) in item("e\(n)", daysAgo: n) }
            _ = try await store.apply(fetched(added, stored, at: t0, read: .whole(digest: nil)))

            let later = t0.addingTimeInterval(3600)
            var changed = item("e2", daysAgo: 2)
            changed.title = "Changed"
            let summary = try await store.apply(
                fetched(
                    added, [item("new", daysAgo: 0), item("e1", daysAgo: 1), changed, item("e1", daysAgo: 1)],
                    at: later, read: .short, bodyBytes: nil))
            #expect(summary.newEpisodes.map(\.key) == ["new"])
            #expect(summary.updatedCount == 1)
            var episodes: [String: StoredEpisode] = [:]
            for episode in try await store.episodes(EpisodeQuery(subscriptionID: added.id)) {
                episodes[episode.key] = episode
            }
            #expect(episodes.count == 301)
            #expect(episodes["e2"]?.episode.title == "Changed")
            #expect(episodes["e1"]?.lastSeenAt == later)
            #expect(episodes["e3"]?.lastSeenAt == t0, "an episode the short read did not list is left as it was")
        }
    }
}
