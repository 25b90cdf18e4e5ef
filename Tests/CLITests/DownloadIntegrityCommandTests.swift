import Foundation
import Synchronization
import TestSupport
import Testing

/// Issue #21 end to end: the built binary against a server on 127.0.0.1 that misbehaves on demand (ignores If-Range,
/// changes its ETag, compresses media, sends empty bodies and JSON, trickles), and a download folder on a small file
/// system that fills up. After every run, every file under a final name is a complete episode.
@Suite(.serialized)
struct DownloadIntegrityCommandTests {
    typealias Item = DownloadCommandTests.Item

    /// Fails the test for any file under `folder` that is not a `.part` and not exactly one of `complete`.
    static func expectOnlyCompleteEpisodes(in folder: URL, complete: [String: [UInt8]]) {
        for file in DownloadCommandTests.files(in: folder) where !file.hasSuffix(".part") {
            guard let expected = complete[file] else {
                Issue.record("\(file) stands under a final name but is no episode")
                continue
            }
            #expect(
                DownloadCommandTests.bytes(folder.appendingPathComponent(file)) == expected,
                "\(file) is not the whole episode")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aMisbehavingServerNeverLeavesAFileThatIsNotTheEpisode() async throws {
        try await withTestHTTPServer { server in
            let setup = DownloadCommandTests()
            let (podfresh, folder) = try setup.podfresh()
            defer { podfresh.cleanUp() }
            let zipped = Array("ID3".utf8) + DownloadCommandTests.media(300_000, seed: 1)
            let versionOne = DownloadCommandTests.media(200_000, seed: 2)
            let versionTwo = DownloadCommandTests.media(200_000, seed: 3)
            let trickled = DownloadCommandTests.media(50_000, seed: 4)
            let fine = Array("OggS".utf8) + DownloadCommandTests.media(100_000, seed: 5)
            server.setRoute(
                "/m/gz.mp3",
                TestResponse(
                    headers: [("Content-Type", "audio/mpeg"), ("Content-Encoding", "gzip")],
                    body: try await gzipped(zipped), compressible: false))
            server.setRoute(
                "/m/empty.mp3",
                TestResponse(headers: [("Content-Type", "audio/mpeg")], body: [], compressible: false))
            server.setRoute(
                "/m/json.mp3",
                TestResponse(
                    headers: [("Content-Type", "application/json")], text: #"{"error":"unauthorized"}"#,
                    compressible: false))
            server.serveMedia("/m/splice.mp3", versionOne, etag: "\"v1\"", fault: .shortBody(afterBytes: 80_000))
            server.serveMedia("/m/trickle.mp3", trickled, fault: .trickle(bytes: 1, delay: .milliseconds(200)))
            server.serveMedia("/m/fine.ogg", fine, contentType: "audio/ogg")
            let items = [
                Item(guid: "e6", title: "Fine", day: 6, path: "/m/fine.ogg", type: "audio/ogg"),
                Item(guid: "e5", title: "Trickle", day: 5, path: "/m/trickle.mp3"),
                Item(guid: "e4", title: "Spliced", day: 4, path: "/m/splice.mp3"),
                Item(guid: "e3", title: "JSON", day: 3, path: "/m/json.mp3"),
                Item(guid: "e2", title: "Empty", day: 2, path: "/m/empty.mp3"),
                Item(guid: "e1", title: "Gzipped", day: 1, path: "/m/gz.mp3"),
            ]
            server.serveFeed("/feed.xml", DownloadCommandTests.feed("Odd", items, server: server))
            try await setup.subscribe(podfresh, server)
            let complete = [
                "Odd/2024-01-01 Gzipped.mp3": zipped, "Odd/2024-01-04 Spliced.mp3": versionTwo,
                "Odd/2024-01-05 Trickle.mp3": trickled, "Odd/2024-01-06 Fine.ogg": fine,
            ]

            let first = try await podfresh.run([
                "download", "Odd", "--latest", "6", "--jobs", "6", "--per-host", "6", "--min-rate", "1KB/s",
                "--min-rate-window", "2s",
            ])
            #expect(first.status == 1, "\(first.stdout) \(first.stderr)")
            #expect(first.stderr.contains("an empty body"), "\(first.stderr)")
            #expect(first.stderr.contains("a JSON document (application/json)"), "\(first.stderr)")
            #expect(first.stderr.contains("too slow"), "\(first.stderr)")
            #expect(first.stderr.contains("the limits are --min-rate and --min-rate-window"), "\(first.stderr)")
            #expect(first.stdout.contains("Gzipped → "), "\(first.stdout)")
            #expect(first.stdout.contains("MP3 (ID3)"), "\(first.stdout)")
            #expect(first.stdout.contains("Ogg"), "\(first.stdout)")
            Self.expectOnlyCompleteEpisodes(in: folder, complete: complete)
            #expect(DownloadCommandTests.files(in: folder).contains("Odd/2024-01-04 Spliced.mp3.part"))

            // The file changes (dynamic ad insertion) and the server answers ranges without looking at If-Range.
            let requests = Mutex(0)
            server.setRoute("/m/splice.mp3") { request in
                requests.withLock { $0 += 1 }
                let headers = [("Content-Type", "audio/mpeg"), ("ETag", "\"v2\"")]
                if let range = request.headers["range"], let start = TestHTTPServer.rangeStart(range) {
                    return TestResponse(
                        status: 206, headers: headers + [("Content-Range", "bytes \(start)-199999/200000")],
                        body: Array(versionTwo[start...]), compressible: false)
                }
                return TestResponse(headers: headers, body: versionTwo, compressible: false)
            }
            server.serveMedia("/m/trickle.mp3", trickled)
            let second = try await podfresh.run(["download", "Odd", "--latest", "6", "--retry", "--json"])
            #expect(second.status == 1, "the empty and the JSON episode still fail: \(second.stderr)")
            Self.expectOnlyCompleteEpisodes(in: folder, complete: complete)
            #expect(
                DownloadCommandTests.bytes(folder.appendingPathComponent("Odd/2024-01-04 Spliced.mp3")) == versionTwo,
                "the new version whole, never old bytes followed by new ones")
            let splice = server.requests(to: "/m/splice.mp3").suffix(2)
            #expect(splice.first?.headers["range"]?.hasPrefix("bytes=") == true, "the first asks to resume")
            #expect(splice.last?.headers["range"] == nil, "then one plain GET")
            let events = second.stdoutLines.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let failed = events.filter { $0["event"] as? String == "download_failed" }
            #expect(Set(failed.compactMap { $0["kind"] as? String }) == ["empty_body", "not_media"])
            let completed = events.filter { $0["event"] as? String == "download_completed" }
            #expect(Set(completed.compactMap { $0["id"] as? String }) == ["e4", "e5"])
        }
    }

    static let canMountTmpfs: Bool = StoreCommandTests.canMountTmpfs

    @Test(
        .timeLimit(.minutes(2)),
        .enabled(if: Self.canMountTmpfs, "needs unshare -m and mount (root) for a small file system of its own"))
    func aDiskThatFillsUpLosesOnlyThatEpisodeAndIsNotLeftFull() async throws {
        try await withTestHTTPServer { server in
            let setup = DownloadCommandTests()
            let (podfresh, _) = try setup.podfresh()
            defer { podfresh.cleanUp() }
            let small = Array("ID3".utf8) + DownloadCommandTests.media(1 << 20, seed: 7)
            // 20 MB with no length announced (closed by the server): no check can refuse it before it fills the disk.
            let big = Array("ID3".utf8) + DownloadCommandTests.media(20 << 20, seed: 8)
            server.setRoute(
                "/m/big.mp3",
                TestResponse(
                    fault: .raw(
                        Array("HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nConnection: close\r\n\r\n".utf8) + big)))
            server.serveMedia("/m/a.mp3", small)
            server.serveMedia("/m/b.mp3", small)
            let items = [
                Item(guid: "b", title: "Small B", day: 3, path: "/m/b.mp3"),
                Item(guid: "big", title: "Big", day: 2, path: "/m/big.mp3"),
                Item(guid: "a", title: "Small A", day: 1, path: "/m/a.mp3"),
            ]
            server.serveFeed("/feed.xml", DownloadCommandTests.feed("Full", items, server: server))
            try await setup.subscribe(podfresh, server)
            // The folder on a 12 MiB tmpfs in a private mount namespace: it goes when the namespace's last process
            // ends, and nothing outside sees it.
            let tiny = podfresh.directory.appendingPathComponent("tiny").path
            try FileManager.default.createDirectory(atPath: tiny, withIntermediateDirectories: true)
            let script = """
                mount -t tmpfs -o size=12m tmpfs '\(tiny)' || exit 99
                '\(Podfresh.binary.path)' download Full --latest 3 --jobs 1 --dir '\(tiny)'
                status=$?
                echo "free=$(( $(stat -f -c '%a' '\(tiny)') * $(stat -f -c '%S' '\(tiny)') ))"
                find '\(tiny)' -type f -printf 'file=%P %s\\n'
                exit $status
                """
            var full = podfresh
            full.launcher = ["/usr/bin/unshare", "-m", "sh", "-c", script, "sh"]
            let result = try await full.run([])
            #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("the disk filled up"), "\(result.stderr)")
            #expect(result.stderr.contains("Big"), "\(result.stderr)")
            let files = result.stdoutLines.filter { $0.hasPrefix("file=") }.sorted()
            #expect(
                files == [
                    "file=Full/2024-01-01 Small A.mp3 \(small.count)",
                    "file=Full/2024-01-03 Small B.mp3 \(small.count)",
                ], "\(result.stdout)")
            let free = result.stdoutLines.first { $0.hasPrefix("free=") }.flatMap { Int($0.dropFirst(5)) }
            #expect(
                (free ?? 0) > 8 << 20, "the partial file was removed, so the disk is not left full: \(result.stdout)")
        }
    }
}
