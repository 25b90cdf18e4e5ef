import Foundation
import TestSupport
import Testing

/// End-to-end: `set FEED --tags on` makes `download` write each verified MP3's and M4A's tags (read back by mutagen,
/// the audio's SHA-256 unchanged), leaves other formats as downloaded and says so once, and a file whose tags cannot
/// be written stays as downloaded with its episode downloaded. A real HTTP server on 127.0.0.1, the built binary, and
/// media Debian's ffmpeg encoded (Tests/EpisodeDownloadsTests/Fixtures/Media).
@Suite(.serialized)
struct TagsCommandTests {
    static let media = SyncTestServer.packageRoot.appendingPathComponent("Tests/EpisodeDownloadsTests/Fixtures/Media")

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: media.appendingPathComponent(name)))
    }

    static func item(_ guid: String, _ title: String, day: Int, path: String, type: String, number: Int) -> String {
        """
        <item><title>\(title)</title><guid>\(guid)</guid><link>https://tag.example/\(guid)</link>
        <description><![CDATA[<p>Notes for <b>\(title)</b> today.</p>]]></description>
        <itunes:episode>\(number)</itunes:episode><itunes:season>2</itunes:season>
        <pubDate>\(String(format: "%02d", day)) Jan 2024 10:00:00 GMT</pubDate>
        <enclosure url="\(path)" type="\(type)" length="0"/>
        </item>
        """
    }

    static func feed(_ items: [String], image: String) -> String {
        """
        <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
        <title>Tag Cast</title><itunes:author>Tess Host</itunes:author><itunes:image href="\(image)"/>
        \(items.joined(separator: "\n"))
        </channel></rss>
        """
    }

    @Test(
        .timeLimit(.minutes(3)),
        .enabled("needs mutagen from PyPI in a venv (Scripts/tag-test-venv.sh); PyPI could not be reached") {
            await IndependentTagReader.available()
        })
    func downloadedMP3AndM4AAreTaggedAndReadBackByMutagenWithTheirAudioUnchanged() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            let mp3 = try Self.fixture("tone.mp3")
            let m4a = try Self.fixture("tone-moov-first.m4a")
            server.serveMedia("/m/e1.mp3", mp3)
            server.serveMedia("/m/e2.m4a", m4a, contentType: "audio/mp4")
            server.setRoute(
                "/cover.jpg",
                TestResponse(headers: [("Content-Type", "image/jpeg")], body: try Self.fixture("cover.jpg")))
            server.serveFeed(
                "/feed.xml",
                Self.feed(
                    [
                        Self.item(
                            "e2", "Second", day: 2, path: server.url("/m/e2.m4a").absoluteString, type: "audio/mp4",
                            number: 2),
                        Self.item(
                            "e1", "First", day: 1, path: server.url("/m/e1.mp3").absoluteString, type: "audio/mpeg",
                            number: 1),
                    ], image: server.url("/cover.jpg").absoluteString))
            try await DownloadCommandTests().subscribe(podfresh, server)
            // The files as the host serves them, read by mutagen for their audio hashes.
            let served = podfresh.directory.appendingPathComponent("served")
            try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
            try Data(mp3).write(to: served.appendingPathComponent("e1.mp3"))
            try Data(m4a).write(to: served.appendingPathComponent("e2.m4a"))
            let hostMP3 = try await IndependentTagReader.read(served.appendingPathComponent("e1.mp3").path)
            let hostM4A = try await IndependentTagReader.read(served.appendingPathComponent("e2.m4a").path)

            let set = try await podfresh.run([
                "set", "Tag Cast", "--download", "on", "--backlog", "all", "--tags", "on",
            ])
            #expect(set.status == 0, "\(set.stderr)")
            #expect(set.stdout.contains("tags on"), "\(set.stdout)")
            let detail = try await podfresh.run(["list", "Tag Cast"])
            #expect(detail.stdout.contains("tags:         on"), "\(detail.stdout)")

            let run = try await podfresh.run(["download"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Tag Cast/2024-01-01 First.mp3", "Tag Cast/2024-01-02 Second.m4a",
                ], "no .part or .tags.part is left: \(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("tagged     Tag Cast: First: ID3v2.4 tags (with cover)"), "\(run.stdout)")
            #expect(run.stdout.contains("tagged     Tag Cast: Second: MP4 tags (with cover)"), "\(run.stdout)")
            #expect(run.stdout.contains("2 tagged"), "\(run.stdout)")

            let first = try await IndependentTagReader.read(
                folder.appendingPathComponent("Tag Cast/2024-01-01 First.mp3").path)
            #expect(first.payloadSHA256 == hostMP3.payloadSHA256, "the MPEG frames, byte for byte")
            #expect(first.text("TIT2") == "First")
            #expect(first.text("TALB") == "Tag Cast")
            #expect(first.text("TPE1") == "Tess Host")
            #expect(first.text("TRCK") == "1")
            #expect(first.text("TPOS") == "2")
            #expect(first.text("TDRC") == "2024-01-01 10:00:00")
            #expect(first.text("TCON") == "Podcast")
            #expect(first.text("TGID") == "e1")
            #expect(first.text("WXXX:") == "https://tag.example/e1")
            let comment = first.tags["COMM::XXX"] as? [String: any Sendable]
            #expect((comment?["text"] as? [any Sendable])?.first as? String == "Notes for First today.", "plain text")
            #expect((first.tags["APIC:"] as? [String: any Sendable])?["mime"] as? String == "image/jpeg")
            #expect(first.json["id3v1"] as? Double == 1, "the host's ID3v1 tag stays")
            #expect(first.text("TENC") == nil, "the host's ID3v2 frames are replaced")

            let second = try await IndependentTagReader.read(
                folder.appendingPathComponent("Tag Cast/2024-01-02 Second.m4a").path)
            #expect(second.payloadSHA256 == hostM4A.payloadSHA256, "mdat, byte for byte")
            #expect(second.text("©nam") == "Second")
            #expect(second.text("©alb") == "Tag Cast")
            #expect(second.text("desc") == "Notes for Second today.")
            #expect("\(second.tags["trkn"] ?? "")" == "\([[2.0, 0.0]])")
            #expect(abs((second.json["duration"] as? Double ?? 0) - 2) < 0.2, "the audio still plays its length")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func otherFormatsAreLeftAsDownloadedAndAFailedTagWriteKeepsTheEpisodeDownloaded() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            let ogg1 = Array("OggS".utf8) + DownloadCommandTests.media(20_000, seed: 1)
            let ogg2 = Array("OggS".utf8) + DownloadCommandTests.media(20_000, seed: 2)
            // An MP4 whose moov box claims more bytes than the file has: its tags cannot be written.
            let broken =
                [0, 0, 0, 20] + Array("ftypM4A ".utf8) + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0x10, 0]
                + Array("moov".utf8) + DownloadCommandTests.media(20_000, seed: 3)
            server.serveMedia("/m/o1.ogg", ogg1, contentType: "audio/ogg")
            server.serveMedia("/m/o2.ogg", ogg2, contentType: "audio/ogg")
            server.serveMedia("/m/b.m4a", broken, contentType: "audio/mp4")
            server.serveFeed(
                "/feed.xml",
                Self.feed(
                    [
                        Self.item(
                            "b", "Broken", day: 3, path: server.url("/m/b.m4a").absoluteString, type: "audio/mp4",
                            number: 3),
                        Self.item(
                            "o2", "Ogg two", day: 2, path: server.url("/m/o2.ogg").absoluteString, type: "audio/ogg",
                            number: 2),
                        Self.item(
                            "o1", "Ogg one", day: 1, path: server.url("/m/o1.ogg").absoluteString, type: "audio/ogg",
                            number: 1),
                    ], image: server.url("/none.jpg").absoluteString))
            try await DownloadCommandTests().subscribe(podfresh, server)
            #expect(
                try await podfresh.run(["set", "1", "--download", "on", "--backlog", "all", "--tags", "merge"]).status
                    == 0)

            let run = try await podfresh.run(["download", "--jobs", "1"])
            #expect(run.status == 0, "a tag failure never fails the run: \(run.stderr)")
            #expect(
                DownloadCommandTests.files(in: folder) == [
                    "Tag Cast/2024-01-01 Ogg one.ogg", "Tag Cast/2024-01-02 Ogg two.ogg",
                    "Tag Cast/2024-01-03 Broken.m4a",
                ], "\(run.stdout)\(run.stderr)")
            #expect(
                Array(try Data(contentsOf: folder.appendingPathComponent("Tag Cast/2024-01-03 Broken.m4a"))) == broken,
                "kept as downloaded")
            #expect(
                Array(try Data(contentsOf: folder.appendingPathComponent("Tag Cast/2024-01-01 Ogg one.ogg"))) == ogg1)
            #expect(run.stderr.contains("Tag Cast: Broken: tags not written: "), "\(run.stderr)")
            #expect(run.stderr.contains("the file is kept as downloaded"), "\(run.stderr)")
            let notTagged = run.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("not tagged") }
            #expect(notTagged.count == 1, "said once for the feed's Ogg files: \(run.stdout)")
            #expect(notTagged.first?.contains("an Ogg file takes no tags podfresh writes") == true, "\(notTagged)")
            #expect(run.stdout.contains("3 downloaded"), "\(run.stdout)")
            #expect(run.stdout.contains("1 not tagged after an error"), "\(run.stdout)")
            #expect(run.stdout.contains("2 in a format without tags"), "\(run.stdout)")

            // The episode is downloaded: nothing is fetched again.
            let again = try await podfresh.run(["download", "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(server.requests(to: "/m/b.m4a").count == 1, "\(again.stdout)")
        }
    }
}

/// End-to-end: an episode whose enclosure is an HLS playlist is saved by `download` as one file from its segments (and
/// tagged), a live one is not downloaded and says why, and the playlist itself is never saved as the episode.
@Suite(.serialized)
struct HLSCommandTests {
    static let hls = SyncTestServer.packageRoot.appendingPathComponent("Tests/EpisodeDownloadsTests/Fixtures/HLS/fmp4")

    @Test(.timeLimit(.minutes(3)))
    func anHLSEpisodeIsDownloadedAsOneTaggedFileAndALiveOneIsNot() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            var joined: [UInt8] = []
            let playlist = try String(contentsOf: Self.hls.appendingPathComponent("index.m3u8"), encoding: .utf8)
            for line in playlist.split(separator: "\n") {
                let name =
                    line.hasPrefix("#EXT-X-MAP:URI=\"")
                    ? String(line.dropFirst(16).dropLast())
                    : line.hasPrefix("#") ? nil : String(line)
                guard let name else { continue }
                joined += Array(try Data(contentsOf: Self.hls.appendingPathComponent(name)))
            }
            for name in try FileManager.default.contentsOfDirectory(atPath: Self.hls.path) {
                server.serveMedia(
                    "/hls/\(name)", Array(try Data(contentsOf: Self.hls.appendingPathComponent(name))),
                    contentType: name.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "video/iso.segment")
            }
            server.serveMedia(
                "/live/index.m3u8", Array("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n/hls/seg000.m4s\n".utf8),
                contentType: "application/vnd.apple.mpegurl")
            server.serveFeed(
                "/feed.xml",
                """
                <?xml version="1.0"?><rss version="2.0"><channel><title>Stream Cast</title>
                <item><title>Streamed</title><guid>s1</guid><pubDate>02 Jan 2024 10:00:00 GMT</pubDate>
                <enclosure url="\(server.url("/hls/index.m3u8").absoluteString)" type="application/x-mpegURL" length="0"/></item>
                <item><title>Still live</title><guid>s0</guid><pubDate>01 Jan 2024 10:00:00 GMT</pubDate>
                <enclosure url="\(server.url("/live/index.m3u8").absoluteString)" type="application/x-mpegURL" length="0"/></item>
                </channel></rss>
                """)
            try await DownloadCommandTests().subscribe(podfresh, server)
            #expect(
                try await podfresh.run(["set", "1", "--download", "on", "--backlog", "all", "--tags", "on"]).status == 0
            )

            let run = try await podfresh.run(["download"])
            #expect(
                DownloadCommandTests.files(in: folder) == ["Stream Cast/2024-01-02 Streamed.m4a"],
                "one file, no playlist, no segments left: \(run.stdout)\(run.stderr)")
            let file = folder.appendingPathComponent("Stream Cast/2024-01-02 Streamed.m4a")
            let saved = Array(try Data(contentsOf: file))
            #expect(saved.count > joined.count, "the segments, and tags")
            #expect(run.stdout.contains("tagged     Stream Cast: Streamed: MP4 tags"), "\(run.stdout)")
            #expect(run.stderr.contains("Stream Cast: Still live"), "\(run.stderr)")
            #expect(run.stderr.contains("an HLS live stream"), "\(run.stderr)")
            #expect(server.requests(to: "/hls/seg000.m4s").count == 1, "the live playlist's segment is never fetched")
        }
    }
}
