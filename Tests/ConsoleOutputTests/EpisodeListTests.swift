import ConsoleOutput
import FeedModels
import FeedParsing
import Foundation
import RefreshEngine
import Testing

struct EpisodeListTests {
    let day = Date(timeIntervalSince1970: 1_730_000_000)  // 2024-10-27

    let subscriptions = [
        Subscription(
            id: 1, url: URL(string: "https://a.example/1.xml")!, title: "A Show With A Remarkably Long Name Indeed",
            addedAt: Date(timeIntervalSince1970: 0)),
        Subscription(id: 2, url: URL(string: "https://b.example/2.xml")!, addedAt: Date(timeIntervalSince1970: 0)),
    ]

    func stored(_ feed: Int64, _ title: String?, published: Date?, run: Int64? = nil) -> StoredEpisode {
        StoredEpisode(
            subscriptionID: feed, key: title ?? "untitled",
            episode: ParsedEpisode(
                id: title ?? "untitled", guid: "guid-\(title ?? "")", title: title, published: published, duration: 61,
                enclosures: [Enclosure(url: URL(string: "https://a.example/e.mp3")!, type: "audio/mpeg")],
                transcripts: [Transcript(url: URL(string: "https://a.example/t.vtt")!, type: "text/vtt")],
                persons: [Person(name: "Host", role: "host")]),
            firstSeenAt: day, lastSeenAt: day, firstSeenRunID: run)
    }

    @Test func aLineSaysWhetherItsEpisodeIsNewDownloadedOrPlayedAndStillFits() throws {
        let episode = stored(1, String(repeating: "Very long title ", count: 8), published: day, run: 7)
        var list = EpisodeList(
            episodes: [episode, stored(2, "Plain", published: day, run: 6)], subscriptions: subscriptions,
            downloads: [
                DownloadRecord(
                    subscriptionID: 1, episodeKey: episode.key, state: .complete, filePath: "/d/e.mp3", bytes: 1,
                    downloadedAt: day)
            ])
        list.newRunID = 7
        list.playStates = [
            EpisodeRef(subscriptionID: 1, episodeKey: episode.key): EpisodePlayState(
                position: 61, total: 61, played: true, lastAction: .play, actionAt: day)
        ]
        let whole = list.lines()
        #expect(whole[0].hasSuffix("  [new, downloaded, played]"), "\(whole[0])")
        #expect(!whole[1].contains("["), "nothing to say: nothing added")
        for width in [40, 60, 80, 120] {
            let fitted = try #require(list.lines(width: width).first)
            #expect(TerminalWidth.of(fitted) <= width, "\(width): \(fitted)")
            if width >= 80 { #expect(fitted.hasSuffix("[new, downloaded, played]"), "\(fitted)") }
        }
    }

    @Test func withNoEpisodesItSaysNoneMatchButJSONPrintsNothing() {
        let list = EpisodeList(episodes: [], subscriptions: subscriptions)
        #expect(list.lines() == [EpisodeList.noneMatch])
        #expect(list.jsonLines().isEmpty)
    }

    @Test func eachLineHasTheDayTheFeedAndTheTitle() {
        let lines = EpisodeList(episodes: [stored(2, "Pilot", published: day)], subscriptions: subscriptions).lines()
        #expect(lines == ["2024-10-27  https://b.example/2.xml: Pilot"], "an untitled feed is named by its URL")
    }

    @Test func anUndatedEpisodeKeepsTheColumnsAligned() {
        let lines = EpisodeList(
            episodes: [stored(2, "Dated", published: day), stored(2, "Undated", published: nil)],
            subscriptions: subscriptions
        ).lines()
        #expect(lines[1].hasPrefix(String(repeating: " ", count: 10) + "  https://b.example/2.xml: "))
        #expect(lines[0].count - "Dated".count == lines[1].count - "Undated".count)
    }

    @Test func longFeedTitlesAreWholeInAPipeCutOnATerminalAndEverythingIsSafeToPrint() throws {
        let list = EpisodeList(
            episodes: [stored(1, "Bad \u{1B}[2Jtitle\u{202E}\n", published: day)], subscriptions: subscriptions)
        // A pipe, a file, `--wide`: the feed's title whole.
        let line = try #require(list.lines().first)
        #expect(line == "2024-10-27  A Show With A Remarkably Long Name Indeed: Bad title")
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
        // A terminal of 60 columns: the feed's title takes at most a third, cut with "…".
        let fitted = try #require(list.lines(width: 60).first)
        let feedTitle = try #require(fitted.split(separator: ":").first?.dropFirst(12))
        #expect(feedTitle.count == 20 && feedTitle.hasSuffix("…"), "\(fitted)")
        #expect(fitted.hasSuffix(": Bad title"))
    }

    @Test func anUntitledEpisodeSaysSo() {
        #expect(
            EpisodeList(episodes: [stored(2, nil, published: day)], subscriptions: subscriptions).lines()[0].hasSuffix(
                ": (untitled)"))
    }

    @Test func jsonStartsWithTheNewEpisodeEventKeysAndAddsTheStoredOnes() throws {
        let episode = stored(1, "Pilot", published: day, run: 7)
        guard case .object(let pairs) = EpisodeList.json(episode, feedTitle: "A Show") else {
            Issue.record("not an object")
            return
        }
        let keys = pairs.map(\.0)
        let eventKeys = EventJSON.episodeFields(
            EpisodeAnnouncement(feedID: 1, episode: episode.episode), feedTitle: "A Show"
        ).map(\.0)
        #expect(Array(keys.prefix(eventKeys.count)) == eventKeys)
        #expect(Set(keys).count == keys.count, "no key twice: \(keys)")
        #expect(
            Array(keys.suffix(10)) == [
                "guid_is_permalink", "alternate_enclosures", "first_seen", "last_seen", "first_seen_run", "file",
                "downloaded_at", "download_failures", "download_retry_after", "download_error",
            ])
        #expect(keys.contains("transcripts") && keys.contains("persons"))
    }

    @Test func jsonSaysWhichFileHoldsAnEpisodeWhileItsRecordSaysItIsOnDisk() throws {
        let episodes = [stored(1, "One", published: day), stored(2, "Two", published: day)]
        let done = DownloadRecord(
            subscriptionID: episodes[0].subscriptionID, episodeKey: episodes[0].key, state: .complete,
            filePath: "/d/One.mp3", bytes: 10, downloadedAt: day)
        let started = DownloadRecord(
            subscriptionID: episodes[1].subscriptionID, episodeKey: episodes[1].key, state: .inProgress,
            partPath: "/d/Two.mp3.part", filePath: "/d/Two.mp3")
        func objects(_ records: [DownloadRecord]) throws -> [[String: Any]] {
            try EpisodeList(episodes: episodes, subscriptions: subscriptions, downloads: records).jsonLines().map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }
        let none = try objects([])
        #expect(none.allSatisfy { $0["file"] is NSNull && $0["downloaded_at"] is NSNull })
        let some = try objects([done, started])
        #expect(some[0]["file"] as? String == "/d/One.mp3")
        #expect(some[0]["downloaded_at"] as? String == RFC3339.string(from: day))
        #expect(some[1]["file"] is NSNull && some[1]["downloaded_at"] is NSNull, "in progress: no file yet")
        var deleted = done
        deleted.deletedByUser = true
        let gone = try objects([deleted])
        #expect(gone[0]["file"] is NSNull, "a deleted file is not named")
    }

    @Test func jsonLinesAreOneParsableObjectPerEpisode() throws {
        let episodes = [stored(1, "One", published: day, run: 3), stored(2, "Two\n", published: nil)]
        let lines = EpisodeList(episodes: episodes, subscriptions: subscriptions).jsonLines()
        #expect(lines.count == 2)
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            objects[0]["feed_title"] as? String == "A Show With A Remarkably Long Name Indeed", "JSON titles are whole")
        #expect(objects[1]["feed_title"] as? String == "https://b.example/2.xml")
        #expect(objects[1]["title"] as? String == "Two\n", "JSON carries text as it is, escaped")
        #expect(objects[0]["first_seen_run"] as? Int == 3)
        #expect(objects[1]["first_seen_run"] is NSNull)
        let person = try #require((objects[0]["persons"] as? [[String: Any]])?.first)
        #expect(person["name"] as? String == "Host" && person["role"] as? String == "host")
        #expect((objects[0]["transcripts"] as? [[String: Any]])?.first?["url"] as? String == "https://a.example/t.vtt")
    }

    @Test func theLimitNoteSaysHowToSeeEverything() {
        let note = EpisodeList.moreThanShown(limit: 20, total: 345)
        #expect(note.contains("20 of 345") && note.contains("--limit 345"))
    }
}
