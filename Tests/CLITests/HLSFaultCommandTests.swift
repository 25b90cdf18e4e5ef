import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: an HLS episode stays complete or absent under the faults a media file is held to, with the built
/// binary and a real server on 127.0.0.1 serving the committed MPEG-TS fixture (31 segments, 30 s): a SIGKILL in the middle
/// of its segments, then a resume that fetches only the segments still missing; and a disk that fills up, then a run
/// after space is freed.
@Suite(.serialized)
struct HLSFaultCommandTests {
    static let fixture = SyncTestServer.packageRoot.appendingPathComponent(
        "Tests/EpisodeDownloadsTests/Fixtures/HLS/ts")

    /// The segment files the fixture's playlist lists, in order.
    static func segments() throws -> [String] {
        let playlist = try String(contentsOf: fixture.appendingPathComponent("index.m3u8"), encoding: .utf8)
        return playlist.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map(String.init)
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixture.appendingPathComponent(name)))
    }

    /// The episode the playlist makes: every segment, in order.
    static func joined() throws -> [UInt8] { try segments().flatMap { try bytes($0) } }

    /// Serves the playlist at `/hls/index.m3u8` and a feed with one episode whose enclosure it is.
    static func serveFeed(on server: TestHTTPServer) throws {
        server.serveMedia("/hls/index.m3u8", try bytes("index.m3u8"), contentType: "application/vnd.apple.mpegurl")
        server.serveFeed(
            "/feed.xml",
            DownloadCommandTests.feed(
                "Stream Cast",
                [.init(guid: "s1", title: "Streamed", day: 2, path: "/hls/index.m3u8", type: "application/x-mpegURL")],
                server: server))
    }

    /// The `.seg` files complete in the episode's segment folder under `folder` (none when there is no such folder).
    static func keptSegments(under folder: URL) -> Set<String> {
        Set(
            DownloadCommandTests.files(in: folder).filter { $0.contains(".hls.part/") && $0.hasSuffix(".seg") }.map {
                URL(fileURLWithPath: $0).lastPathComponent
            })
    }

    /// The name a segment is kept under in the segment folder: its index in the playlist.
    static func keptName(_ index: Int) -> String { String(format: "%06d.seg", index) }

    @Test(.timeLimit(.minutes(3)))
    func aDownloadKilledAmidItsSegmentsResumesFetchingOnlyTheMissingOnes() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, folder) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            let names = try Self.segments()
            #expect(names.count >= 30)
            // One segment in the middle stops after a few bytes and never finishes: the run is killed while it waits.
            let stalled = 14
            for (index, name) in names.enumerated() {
                server.serveMedia(
                    "/hls/\(name)", try Self.bytes(name), contentType: "video/mp2t",
                    fault: index == stalled ? .stall(afterBytes: 400) : nil)
            }
            try Self.serveFeed(on: server)
            try await DownloadCommandTests().subscribe(podfresh, server)

            try await podfresh.withRunning(["download", "Stream Cast", "--latest", "1"]) { process in
                let inFlight = await waitUntil(within: .seconds(60)) {
                    !server.requests(to: "/hls/\(names[stalled])").isEmpty
                        && Self.keptSegments(under: folder).count >= 10
                }
                #expect(inFlight, "the stalled segment was asked for: \(process.transcript)")
                process.send(SIGKILL)
                #expect(await process.exit(within: .seconds(30)) == .signaled(SIGKILL), "\(process.transcript)")
            }
            let kept = Self.keptSegments(under: folder)
            #expect(!kept.contains(Self.keptName(stalled)), "the stalled segment is not complete: \(kept)")
            #expect(kept.count < names.count)
            #expect(
                !DownloadCommandTests.files(in: folder).contains { $0.hasSuffix(".ts") },
                "killed: no episode under a final name: \(DownloadCommandTests.files(in: folder))")

            // The server is well again: the resume asks only for what the killed run did not complete.
            for name in names { server.serveMedia("/hls/\(name)", try Self.bytes(name), contentType: "video/mp2t") }
            let before = names.map { server.requests(to: "/hls/\($0)").count }
            let resume = try await podfresh.run(["download", "Stream Cast", "--latest", "1"])
            #expect(resume.status == 0, "\(resume.stdout) \(resume.stderr)")
            let refetched = Set(
                names.indices.filter { server.requests(to: "/hls/\(names[$0])").count > before[$0] }.map(Self.keptName))
            let missing = Set(names.indices.map(Self.keptName)).subtracting(kept)
            #expect(
                refetched == missing,
                "only the missing segments: asked for \(refetched.sorted()), missing \(missing.sorted())")
            for index in names.indices where kept.contains(Self.keptName(index)) {
                #expect(server.requests(to: "/hls/\(names[index])").count == 1, "\(names[index]) fetched once in all")
            }
            #expect(
                DownloadCommandTests.files(in: folder) == ["Stream Cast/2024-01-02 Streamed.ts"],
                "one file, no segment folder left: \(DownloadCommandTests.files(in: folder))")
            let whole =
                DownloadCommandTests.bytes(folder.appendingPathComponent("Stream Cast/2024-01-02 Streamed.ts"))
                == (try Self.joined())
            #expect(whole, "the whole episode, every segment once and in order")
        }
    }

    @Test(
        .timeLimit(.minutes(3)),
        .enabled(
            if: StoreCommandTests.canMountTmpfs, "needs unshare -m and mount (root) for a small file system of its own")
    )
    func aDiskThatFillsUpAmidItsSegmentsLeavesNoEpisodeAndTheRunAfterSpaceIsFreedCompletesIt() async throws {
        try await withTestHTTPServer { server in
            let (podfresh, _) = try DownloadCommandTests().podfresh()
            defer { podfresh.cleanUp() }
            let names = try Self.segments()
            // No length announced (closed by the server): no free-space check can refuse a segment before the disk
            // fills.
            for name in names {
                server.setRoute(
                    "/hls/\(name)",
                    TestResponse(
                        fault: .raw(
                            Array("HTTP/1.1 200 OK\r\nContent-Type: video/mp2t\r\nConnection: close\r\n\r\n".utf8)
                                + (try Self.bytes(name)))))
            }
            try Self.serveFeed(on: server)
            try await DownloadCommandTests().subscribe(podfresh, server)
            // The folder on a 48 KiB tmpfs in a private mount namespace (a dozen of the 31 segments fit), then the same
            // file system grown to 8 MiB, as when the user frees space, and `--retry` (a failed download otherwise waits
            // before its next try); it goes when the namespace's last process ends.
            let tiny = podfresh.directory.appendingPathComponent("tiny").path
            let saved = podfresh.directory.appendingPathComponent("saved.ts").path
            try FileManager.default.createDirectory(atPath: tiny, withIntermediateDirectories: true)
            let binary = Podfresh.binary.path
            let script = """
                mount -t tmpfs -o size=48k tmpfs '\(tiny)' || exit 99
                '\(binary)' download 'Stream Cast' --latest 1 --dir '\(tiny)' --json
                echo "first=$?"
                find '\(tiny)' -type f -printf 'full=%P %s\\n'
                mount -o remount,size=8m '\(tiny)' || exit 98
                '\(binary)' download 'Stream Cast' --latest 1 --dir '\(tiny)' --json --retry
                echo "second=$?"
                find '\(tiny)' -type f -printf 'freed=%P %s\\n'
                cp '\(tiny)/Stream Cast/2024-01-02 Streamed.ts' '\(saved)'
                """
            var full = podfresh
            full.launcher = ["/usr/bin/unshare", "-m", "sh", "-c", script, "sh"]
            let result = try await full.run([])
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let lines = result.stdoutLines
            #expect(lines.contains("first=1"), "the full disk fails the download: \(result.stdout) \(result.stderr)")
            let events = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let failed = events.filter { $0["event"] as? String == "download_failed" }
            #expect(failed.map { $0["kind"] as? String } == ["disk_full"], "\(result.stdout)")
            let message = failed.first?["message"] as? String ?? ""
            #expect(message.contains("the disk filled up"), "a clear error: \(message)")
            #expect(failed.first?["title"] as? String == "Streamed", "naming the episode: \(result.stdout)")
            let onFullDisk = lines.filter { $0.hasPrefix("full=") }
            #expect(
                !onFullDisk.contains { $0.contains(".ts ") || $0.contains(".part ") && !$0.contains(".hls.part/") },
                "no episode file, whole or partial, beside the kept segments: \(onFullDisk)")
            #expect(!onFullDisk.isEmpty, "the segments that arrived are kept to resume: \(result.stdout)")

            #expect(
                lines.contains("second=0"), "space freed, the download completes: \(result.stdout) \(result.stderr)")
            let completed = events.filter { $0["event"] as? String == "download_completed" }
            #expect(completed.count == 1, "\(result.stdout)")
            let joined = try Self.joined()
            #expect(
                lines.filter { $0.hasPrefix("freed=") } == ["freed=Stream Cast/2024-01-02 Streamed.ts \(joined.count)"],
                "one file, the segment folder gone: \(result.stdout)")
            let whole = DownloadCommandTests.bytes(URL(fileURLWithPath: saved)) == joined
            #expect(whole, "every segment, in order")
        }
    }
}
