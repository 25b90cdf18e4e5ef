import FeedModels
import FeedParsing
import Foundation
import Testing

private let t0 = Date(timeIntervalSince1970: 1_730_000_000)

private func episode(_ id: String, published: Date? = t0, title: String? = nil) -> ParsedEpisode {
    ParsedEpisode(id: id, guid: id, title: title ?? id, published: published)
}

private func feed(_ episodes: [ParsedEpisode]) -> ParsedFeed {
    ParsedFeed(format: .rss2, title: "Show", episodes: episodes)
}

/// Plans `feed` against `stored` with the one fingerprint.
private func makePlan(_ feed: ParsedFeed, stored: [String: String] = [:], announceLimit: Int? = nil) -> MergePlan {
    MergePlan(
        feed: feed, fingerprints: feed.episodes.map { EpisodeFields($0).fingerprint }, stored: stored,
        announceLimit: announceLimit)
}

/// The fingerprints a store holds for `episodes`.
private func stored(_ episodes: [ParsedEpisode]) -> [String: String] {
    Dictionary(uniqueKeysWithValues: episodes.map { ($0.id, EpisodeFields($0).fingerprint) })
}

/// The merge rule both stores carry out, without a database.
struct MergePlanTests {
    @Test func everyEpisodeOfANewFeedIsInsertedAndAnnounced() {
        let plan = makePlan(feed([episode("a"), episode("b")]))

        #expect(plan.inserts == [.init(index: 0, announced: true), .init(index: 1, announced: true)])
        #expect(plan.updates.isEmpty)
        #expect(plan.unchanged.isEmpty)
        #expect(plan.backlogCount == 0)
    }

    @Test func aKnownEpisodeIsUnchangedWhenItsFingerprintIsTheSameAndUpdatedWhenItDiffers() {
        // Given: a store holding a, b and c as first seen
        let before = [episode("a"), episode("b"), episode("c")]
        // When: the feed comes back with b retitled, c gone and d new
        let plan = makePlan(
            feed([episode("a"), episode("b", title: "b, corrected"), episode("d")]), stored: stored(before))

        // Then: a is only marked seen, b is written again, d is inserted, and c is not touched (never deleted)
        #expect(plan.unchanged == [0])
        #expect(plan.updates == [1])
        #expect(plan.inserts == [.init(index: 2, announced: true)])
    }

    @Test func anEpisodeListedTwiceUnderOneKeyIsMergedOnceAsItsFirstListing() {
        let plan = makePlan(feed([episode("a", title: "first"), episode("a", title: "second"), episode("b")]))

        #expect(plan.inserts.map(\.index) == [0, 2])
    }

    @Test func theFirstFetchAnnouncesOnlyTheNewestAndStoresTheRestAsBackCatalogue() {
        // Given: a feed listed oldest first, with one undated episode
        let day: TimeInterval = 86_400
        let episodes = [
            episode("old", published: t0), episode("undated", published: nil),
            episode("newest", published: t0 + 2 * day), episode("middle", published: t0 + day),
        ]

        // When: its first fetch may announce two
        let plan = makePlan(feed(episodes), announceLimit: 2)

        // Then: the two newest by date are announced; the undated one counts after every dated one
        #expect(plan.inserts.filter(\.announced).map { episodes[$0.index].id } == ["newest", "middle"])
        #expect(plan.backlogCount == 2)
        #expect(MergePlan.firstSeenRun(of: plan.inserts[0], runID: 7) == nil, "back catalogue belongs to no run")
        #expect(MergePlan.firstSeenRun(of: plan.inserts[2], runID: 7) == 7)
        #expect(makePlan(feed(episodes), announceLimit: 0).backlogCount == 4, "a limit of 0 announces nothing")
    }

    @Test func theAnnounceLimitCountsNewEpisodesOnlyNotKnownOnes() {
        let known = [episode("a", published: t0 + 10)]
        let plan = makePlan(
            feed([episode("a", published: t0 + 10), episode("b")]), stored: stored(known), announceLimit: 1)

        // a is the newest but already stored: it is not announced again, and b is back catalogue
        #expect(plan.unchanged == [0])
        #expect(plan.inserts == [.init(index: 1, announced: false)])
    }

    @Test func theSummaryAnnouncesTheAnnouncedInsertsAsStoredAndCountsTheRest() {
        let before = [episode("a")]
        let parsed = feed([
            episode("a", title: "a2"), episode("b", published: t0 + 100), episode("c", published: t0 - 100),
        ])
        let plan = makePlan(parsed, stored: stored(before), announceLimit: 1)

        let summary = plan.summary(of: parsed, subscriptionID: 3, checkedAt: t0, runID: 9, alreadyLive: [])

        #expect(
            summary.newEpisodes == [
                StoredEpisode(
                    subscriptionID: 3, key: "b", episode: parsed.episodes[1], firstSeenAt: t0, lastSeenAt: t0,
                    firstSeenRunID: 9)
            ])
        #expect(summary.updatedCount == 1)
        #expect(summary.backlogCount == 1)
        #expect(summary.movedTo == nil && summary.moveRefused == nil)
    }

    // MARK: - Live items

    @Test func aLiveItemGoesLiveOnlyOnItsMoveIntoLive() {
        func item(_ id: String, _ status: LiveItem.Status?, title: String? = nil) -> ParsedEpisode {
            var item = episode(id, title: title)
            item.live = status.map { LiveItem(status: $0, start: t0, end: nil, contentLinks: []) }
            return item
        }
        // Stored: p pending, l live, o ordinary; n is new and live, q new and pending.
        let before = [item("p", .pending), item("l", .live), item("o", nil)]
        let parsed = feed([
            item("p", .live), item("l", .live, title: "l retitled while live"), item("o", .live), item("n", .live),
            item("q", .pending),
        ])
        let plan = makePlan(parsed, stored: stored(before))

        #expect(plan.updates == [0, 1, 2])
        #expect(
            plan.updatedLiveKeys(of: parsed) == ["p", "l", "o"], "the store looks up each updated one that is live")
        let summary = plan.summary(of: parsed, subscriptionID: 1, checkedAt: t0, runID: 1, alreadyLive: ["l"])
        #expect(summary.wentLive.map(\.key) == ["p", "o", "n"], "l was live already: its new title is no new stream")
    }

    @Test func aStoredLiveColumnIsLiveOnlyWithStatusLive() {
        func json(_ status: LiveItem.Status) -> String {
            var item = episode("x")
            item.live = LiveItem(status: status, start: nil, end: nil, contentLinks: [])
            return EpisodeFields(item).live!
        }
        #expect(EpisodeFields.isLive(storedJSON: json(.live)))
        #expect(!EpisodeFields.isLive(storedJSON: json(.pending)))
        #expect(!EpisodeFields.isLive(storedJSON: json(.ended)))
        #expect(!EpisodeFields.isLive(storedJSON: nil))
        #expect(!EpisodeFields.isLive(storedJSON: "not json"))
    }

    // MARK: - Moves

    @Test func aMoveIsTriedOnlyToAnotherURLThatWasNotUndone() throws {
        let current = Subscription(
            id: 1, url: URL(string: "https://a.example/feed")!, title: nil, addedAt: t0,
            refusedMoveTarget: URL(string: "https://undone.example/feed")!)
        func target(_ url: String?) -> URL? {
            MergePlan.moveTarget(
                of: FeedCheck(
                    subscriptionID: 1, checkedAt: t0, result: .notModified, movedTo: url.map { URL(string: $0)! }),
                from: current)
        }

        #expect(target(nil) == nil)
        #expect(target("HTTPS://A.example/feed") == nil, "the URL it has, spelt otherwise")
        #expect(target("https://undone.example/feed") == nil, "a move the user undid is never followed again")
        #expect(target("https://B.example/feed#x") == URL(string: "https://b.example/feed"), "normalised")
        for result: FeedCheck.Result in [.failed(kind: "http", message: "HTTP 500"), .gone(message: "HTTP 410")] {
            let check = FeedCheck(
                subscriptionID: 1, checkedAt: t0, result: result, movedTo: URL(string: "https://b.example/feed"))
            #expect(MergePlan.moveTarget(of: check, from: current) == nil, "a failure or a 410 never moves the feed")
        }
        #expect(
            MergePlan.refusedMove(to: URL(string: "https://b.example/feed")!, otherID: 4, otherTitle: "B")
                == TakenMove(target: URL(string: "https://b.example/feed")!, otherID: 4, otherTitle: "B"))
    }
}
