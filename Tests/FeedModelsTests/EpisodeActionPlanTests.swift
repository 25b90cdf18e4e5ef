import FeedModels
import Foundation
import Testing

/// The pure parts of episode actions: URL normalisation's fast path, "played to the end", and the plan's matching
/// and "latest wins".
struct EpisodeActionPlanTests {
    @Test(arguments: [
        ("https://example.com/feed.xml", "https://example.com/feed.xml"),
        ("HTTPS://Example.COM/Feed.xml", "https://example.com/Feed.xml"),
        ("https://example.com/a?B=C#frag", "https://example.com/a?B=C"),
        ("https://User@Example.com/x", "https://User@example.com/x"),
        ("https://example.com:8080/UPPER/path", "https://example.com:8080/UPPER/path"),
        ("mailto:Someone@Example.com", "mailto:Someone@Example.com"),
        ("no-scheme/Path", "no-scheme/Path"),
        ("https://example.com?Q=1", "https://example.com?Q=1"),
    ])
    func normalisingKeepsEverythingButSchemeHostCaseAndFragment(_ pair: (String, String)) {
        #expect(FeedURL.normalizedString(pair.0) == pair.1)
        #expect(FeedURL.normalizedString(pair.1) == pair.1, "normal already: unchanged")
    }

    @Test func playedToTheEndMeansWithinThirtySecondsOfAKnownLength() {
        #expect(EpisodePlayState.isEnd(position: 1770, total: 1800))
        #expect(!EpisodePlayState.isEnd(position: 1769, total: 1800))
        #expect(!EpisodePlayState.isEnd(position: 10, total: 0), "no length known")
        #expect(!EpisodePlayState.isEnd(position: nil, total: 1800))
    }

    @Test func theLatestActionPerEpisodeWinsAndEchoesAndDownloadsChangeNothing() {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let ref = EpisodeRef(subscriptionID: 1, episodeKey: "g1")
        func action(
            _ kind: EpisodeActionKind, _ position: Int?, at seconds: Double, device: String = "phone"
        )
            -> EpisodeAction
        {
            EpisodeAction(
                podcast: "https://a.example/feed", episode: "https://cdn.example/1.mp3", guid: "g1", kind: kind,
                timestamp: t0.addingTimeInterval(seconds), position: position, total: position.map { _ in 100 },
                device: device)
        }
        let plan = PulledActionsPlan(
            actions: [
                action(.play, 100, at: 10), action(.play, 20, at: 5), action(.download, nil, at: 20),
                action(.new, nil, at: 30, device: "box"),
            ],
            feeds: ["https://a.example/feed": 1],
            candidates: [ActionMatchCandidate(ref: ref, guid: "g1", mediaURLs: ["https://cdn.example/1.mp3"])],
            current: [:], ownDevice: "box", fallbackDate: t0)
        #expect(plan.changes[ref]?.played == true && plan.changes[ref]?.position == 100)
        #expect(plan.summary.applied == 1 && plan.summary.played == 1 && plan.summary.unchanged == 3)
        // A stored state newer than the pull's action stays.
        let stored = EpisodePlayState(position: 5, total: 100, lastAction: .play, actionAt: t0.addingTimeInterval(60))
        let older = PulledActionsPlan(
            actions: [action(.play, 100, at: 10)], feeds: ["https://a.example/feed": 1],
            candidates: [ActionMatchCandidate(ref: ref, guid: "g1", mediaURLs: [])], current: [ref: stored],
            ownDevice: nil, fallbackDate: t0)
        #expect(older.changes.isEmpty && older.summary.unchanged == 1)
    }
}
