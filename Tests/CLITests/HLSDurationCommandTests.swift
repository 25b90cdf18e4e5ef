import Foundation
import TestSupport
import Testing

/// End-to-end: an HLS episode whose playlist lasts otherwise than the feed's `itunes:duration` says is refused, clearly
/// and before a segment is fetched; one that agrees (within the documented tolerance) is saved. The built binary, a
/// real server on 127.0.0.1 serving the committed 30 s MPEG-TS fixture.
@Suite(.serialized)
struct HLSDurationCommandTests {
    @Test(.timeLimit(.minutes(3)))
    func aPlaylistThatDisagreesWithTheDeclaredDurationIsRefusedAndOneThatAgreesIsSaved() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            let names = try HLSFaultCommandTests.segments()
            for name in names {
                server.serveMedia("/hls/\(name)", try HLSFaultCommandTests.bytes(name), contentType: "video/mp2t")
            }
            // The fixture's playlist, its segments named by absolute path, served for two episodes.
            let playlist = String(decoding: try HLSFaultCommandTests.bytes("index.m3u8"), as: UTF8.self)
            let text = playlist.split(separator: "\n").map { $0.hasPrefix("#") ? String($0) : "/hls/" + $0 }
                .joined(separator: "\n")
            for path in ["/a/index.m3u8", "/b/index.m3u8"] {
                server.serveMedia(path, Array(text.utf8), contentType: "application/vnd.apple.mpegurl")
            }
            server.serveFeed(
                "/feed.xml",
                """
                <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
                <channel><title>Timed</title>
                <item><title>Agrees</title><guid>a</guid><pubDate>02 Jan 2024 10:00:00 GMT</pubDate>
                <itunes:duration>0:31</itunes:duration>
                <enclosure url="\(server.url("/a/index.m3u8").absoluteString)" type="application/x-mpegURL" length="0"/></item>
                <item><title>Trailer only</title><guid>b</guid><pubDate>01 Jan 2024 10:00:00 GMT</pubDate>
                <itunes:duration>1:02:00</itunes:duration>
                <enclosure url="\(server.url("/b/index.m3u8").absoluteString)" type="application/x-mpegURL" length="0"/></item>
                </channel></rss>
                """)
            try await DownloadCommandTests().subscribe(podfresh, server)

            let run = try await podfresh.run(["download", "Timed", "--latest", "2", "--jobs", "1"])
            #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
            #expect(
                run.stderr.contains("the HLS playlist lasts 0:30 but the feed says the episode lasts 1:02:00"),
                "\(run.stderr)")
            #expect(run.stderr.contains("Trailer only"), "\(run.stderr)")
            #expect(
                DownloadCommandTests.files(in: folder) == ["Timed/2024-01-02 Agrees.ts"],
                "the one that agrees is saved, nothing of the other: \(DownloadCommandTests.files(in: folder))")
            for name in names {
                #expect(server.requests(to: "/hls/\(name)").count == 1, "\(name): fetched once, for Agrees alone")
            }
        }
    }
}
