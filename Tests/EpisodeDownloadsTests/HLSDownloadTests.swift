import EpisodeDownloads
import Foundation
import Synchronization
import TestSupport
import Testing

/// HLS episodes saved as one file, complete or absent: playlists and segments (MPEG-TS and fMP4, made by Debian's
/// ffmpeg where it is installed, else the committed ones in Fixtures/HLS) served by a real server on 127.0.0.1.
@Suite(.serialized) struct HLSDownloadTests {
    enum Kind: String, CaseIterable, Sendable {
        case ts, fmp4
    }

    /// A folder holding `index.m3u8` and its segments: a fresh encode by ffmpeg, else the committed fixture.
    static func segments(_ kind: Kind, in directory: URL) async throws -> URL {
        let folder = directory.appendingPathComponent("made-\(kind.rawValue)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") {
            var arguments = [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=330:duration=30:sample_rate=16000", "-ac", "1",
                "-c:a", "aac", "-b:a", "16k", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
            ]
            switch kind {
            case .ts: arguments += ["-hls_segment_filename", folder.path + "/seg%03d.ts"]
            case .fmp4:
                arguments += [
                    "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename",
                    folder.path + "/seg%03d.m4s",
                ]
            }
            let made = try await runProcess(
                "/usr/bin/ffmpeg", arguments: arguments + [folder.path + "/index.m3u8"], within: .seconds(120))
            if made.status == .exited(0) { return folder }
        }
        let fixture = Bundle.module.url(forResource: "Fixtures/HLS/\(kind.rawValue)", withExtension: nil)!
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.copyItem(at: fixture, to: folder)
        return folder
    }

    /// Serves every file of `folder` under `/hls/`.
    static func serve(_ folder: URL, on server: TestHTTPServer, fault: (String) -> TestFault? = { _ in nil }) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            let type = name.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "application/octet-stream"
            server.serveMedia("/hls/\(name)", bytes, contentType: type, fault: fault(name))
        }
    }

    /// The segment files the playlist lists, in order (the init section first), and the summed `#EXTINF`.
    static func listed(_ folder: URL) throws -> (files: [String], duration: Double) {
        let text = try String(contentsOf: folder.appendingPathComponent("index.m3u8"), encoding: .utf8)
        var files: [String] = []
        var duration = 0.0
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#EXT-X-MAP:URI=\"") { files.append(String(line.dropFirst(16).dropLast())) }
            if line.hasPrefix("#EXTINF:") { duration += Double(line.dropFirst(8).dropLast()) ?? 0 }
            if !line.hasPrefix("#") { files.append(String(line)) }
        }
        return (files, duration)
    }

    static func joined(_ folder: URL, _ files: [String]) throws -> [UInt8] {
        try files.flatMap { Array(try Data(contentsOf: folder.appendingPathComponent($0))) }
    }

    /// ffprobe's duration of `file`, when ffprobe is installed.
    static func probedDuration(_ file: URL) async throws -> Double? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe") else { return nil }
        let probe = try await runProcess(
            "/usr/bin/ffprobe",
            arguments: ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path])
        return Double(probe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(arguments: Kind.allCases)
    func anHLSEpisodeBecomesOneFileOfEverySegmentInOrderAsLongAsItsPlaylist(kind: Kind) async throws {
        try await withDownloadSetup { server, downloader, directory in
            let folder = try await Self.segments(kind, in: directory)
            try Self.serve(folder, on: server)
            let (files, duration) = try Self.listed(folder)
            #expect(files.count >= 30)
            let destination = directory.appendingPathComponent("Show/Ep 1.m3u8")

            let media = try await downloader.downloadHLS(
                MediaRequest(url: server.url("/hls/index.m3u8"), destination: destination), progress: { _ in })

            let expected = directory.appendingPathComponent(kind == .ts ? "Show/Ep 1.ts" : "Show/Ep 1.m4a")
            #expect(media.file == expected)
            #expect(contents(expected) == (try Self.joined(folder, files)), "every segment, in order")
            #expect(media.byteCount == Int64(try Self.joined(folder, files).count))
            #expect(!exists(MediaDownloader.segmentFolder(for: destination)), "the segments' folder is gone")
            #expect(!exists(partFile(expected)))
            if let probed = try await Self.probedDuration(expected) {
                #expect(abs(probed - duration) < 0.2, "ffprobe: \(probed) s; the playlist: \(duration) s")
            }
            for file in files { #expect(server.requests(to: "/hls/\(file)").count == 1) }
        }
    }

    @Test func anAudioOnlyVariantIsChosenBeforeVideo() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let folder = try await Self.segments(.ts, in: directory)
            try Self.serve(folder, on: server)
            server.setRoute(
                "/master.m3u8",
                TestResponse(
                    headers: [("Content-Type", "application/vnd.apple.mpegurl")],
                    text: """
                        #EXTM3U
                        #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720
                        /video/index.m3u8
                        #EXT-X-STREAM-INF:BANDWIDTH=20000,CODECS="mp4a.40.2"
                        hls/index.m3u8
                        """, compressible: false))
            let destination = directory.appendingPathComponent("Ep.m3u8")
            let media = try await downloader.downloadHLS(
                MediaRequest(url: server.url("/master.m3u8"), destination: destination), progress: { _ in })
            #expect(media.file.lastPathComponent == "Ep.ts")
            #expect(server.requests(to: "/video/index.m3u8").isEmpty)
            #expect(server.requests(to: "/hls/index.m3u8").count == 1)
        }
    }

    static let header = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n"

    @Test func aPlaylistWithoutEndlistIsLiveAndNothingIsFetched() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.serveMedia("/hls/seg0.ts", [0x47] + Array(repeating: 1, count: 187))
            server.setRoute(
                "/live.m3u8",
                TestResponse(
                    headers: [("Content-Type", "application/vnd.apple.mpegurl")],
                    text: Self.header + "#EXTINF:1.0,\nhls/seg0.ts\n", compressible: false))
            let destination = directory.appendingPathComponent("Live.m3u8")
            let error = await expectDownloadError {
                _ = try await downloader.downloadHLS(
                    MediaRequest(url: server.url("/live.m3u8"), destination: destination), progress: { _ in })
            }
            #expect(error?.cause == .hlsLive)
            #expect(error?.isPermanent == false, "tried again later: it may end")
            #expect(server.requests(to: "/hls/seg0.ts").isEmpty)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test(arguments: ["AES-128", "SAMPLE-AES"])
    func anEncryptedPlaylistIsRefusedClearly(method: String) async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/enc.m3u8",
                TestResponse(
                    headers: [("Content-Type", "application/vnd.apple.mpegurl")],
                    text: Self.header + "#EXT-X-KEY:METHOD=\(method),URI=\"https://keys.example/k\"\n"
                        + "#EXTINF:1.0,\nseg0.ts\n#EXT-X-ENDLIST\n", compressible: false))
            let error = await expectDownloadError {
                _ = try await downloader.downloadHLS(
                    MediaRequest(url: server.url("/enc.m3u8"), destination: directory.appendingPathComponent("E.m3u8")),
                    progress: { _ in })
            }
            #expect(error?.cause == .hlsEncrypted(method: method))
            #expect(error?.kind == .hls && error?.isPermanent == true)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test(arguments: Kind.allCases)
    func aDownloadCutShortKeepsItsSegmentsAndTheResumeFetchesOnlyTheMissingOnes(kind: Kind) async throws {
        try await withDownloadSetup { server, downloader, directory in
            let folder = try await Self.segments(kind, in: directory)
            let (files, _) = try Self.listed(folder)
            let broken = files[17]
            // A reset in the middle of one segment: the episode is not saved, nothing stands under its name.
            try Self.serve(folder, on: server) { $0 == broken ? .reset(afterBytes: 100) : nil }
            let destination = directory.appendingPathComponent("Ep.m3u8")
            let final = directory.appendingPathComponent(kind == .ts ? "Ep.ts" : "Ep.m4a")
            let error = await expectDownloadError {
                _ = try await downloader.downloadHLS(
                    MediaRequest(url: server.url("/hls/index.m3u8"), destination: destination), progress: { _ in })
            }
            #expect(error != nil)
            #expect(!exists(final) && !exists(partFile(final)), "complete or absent")
            let kept = try FileManager.default.contentsOfDirectory(
                atPath: MediaDownloader.segmentFolder(for: destination).path
            ).filter { $0.hasSuffix(".seg") }
            // The parts fetched beside the broken one (a few at a time) may be stopped with it before they complete.
            #expect(
                kept.count >= 17 - (MediaDownloader.hlsSegmentsAtOnce - 1),
                "the segments before the break are kept: \(kept.count)")

            // The server is well again: the resume fetches only what is missing.
            try Self.serve(folder, on: server)
            let before = Dictionary(uniqueKeysWithValues: files.map { ($0, server.requests(to: "/hls/\($0)").count) })
            let media = try await downloader.downloadHLS(
                MediaRequest(url: server.url("/hls/index.m3u8"), destination: destination), progress: { _ in })
            #expect(contents(media.file) == (try Self.joined(folder, files)))
            #expect(media.resumedFrom > 0)
            let refetched = files.filter { server.requests(to: "/hls/\($0)").count > before[$0]! }
            #expect(refetched.count == files.count - kept.count, "only the missing: \(refetched)")
            #expect(refetched.contains(broken))
        }
    }

    @Test func aStalledSegmentIsGivenUpOnByTheStallLimitAndLeavesNoEpisode() async throws {
        try await withDownloadSetup(
            configuration: DownloadConfiguration(stallTimeout: .seconds(1), freeSpaceMargin: .none)
        ) { server, downloader, directory in
            let folder = try await Self.segments(.ts, in: directory)
            let (files, _) = try Self.listed(folder)
            try Self.serve(folder, on: server) { $0 == files[5] ? .stall(afterBytes: 300) : nil }
            let destination = directory.appendingPathComponent("Ep.m3u8")
            let error = await expectDownloadError {
                _ = try await downloader.downloadHLS(
                    MediaRequest(url: server.url("/hls/index.m3u8"), destination: destination), progress: { _ in })
            }
            #expect(error?.kind == .stalled, "the same stall limit as any media file: \(String(describing: error))")
            #expect(!exists(directory.appendingPathComponent("Ep.ts")))
        }
    }

    @Test func aTruncatedSegmentLeavesNoEpisode() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let folder = try await Self.segments(.ts, in: directory)
            let (files, _) = try Self.listed(folder)
            try Self.serve(folder, on: server) { $0 == files[3] ? .shortBody(afterBytes: 500) : nil }
            let destination = directory.appendingPathComponent("Ep.m3u8")
            let error = await expectDownloadError {
                _ = try await downloader.downloadHLS(
                    MediaRequest(url: server.url("/hls/index.m3u8"), destination: destination), progress: { _ in })
            }
            #expect(error?.kind == .shortBody)
            #expect(!exists(directory.appendingPathComponent("Ep.ts")))
        }
    }

    @Test(
        .enabled("needs mutagen from PyPI in a venv (Scripts/tag-test-venv.sh); PyPI could not be reached") {
            await IndependentTagReader.available()
        })
    func anFMP4EpisodeTakesTagsItsFragmentsStillReadable() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let folder = try await Self.segments(.fmp4, in: directory)
            try Self.serve(folder, on: server)
            let media = try await downloader.downloadHLS(
                MediaRequest(
                    url: server.url("/hls/index.m3u8"), destination: directory.appendingPathComponent("E.m3u8")),
                progress: { _ in })
            let before = try await IndependentTagReader.read(media.file.path)
            let result = try MediaTagger.tag(
                media.file, with: EpisodeTags(title: "Streamed", album: "Show"), merge: false)
            #expect(result == .tagged(.mp4))
            let after = try await IndependentTagReader.read(media.file.path)
            #expect(after.text("©nam") == "Streamed")
            #expect(after.payloadSHA256 == before.payloadSHA256, "every mdat byte for byte")
            if let probed = try await Self.probedDuration(media.file) {
                let listed = try Self.listed(folder).duration
                #expect(abs(probed - listed) < 0.2, "still plays its length: \(probed) s")
            }
        }
    }

    @Test func theDurationToleranceIsATenthOfTheDeclaredDurationBetweenHalfAMinuteAndTenMinutes() {
        #expect(MediaDownloader.hlsDurationTolerance(declared: 60) == 30)
        #expect(MediaDownloader.hlsDurationTolerance(declared: 3600) == 360)
        #expect(MediaDownloader.hlsDurationTolerance(declared: 4 * 3600) == 600)
    }

    @Test(arguments: [nil, 0, 30, 55, 5])
    func aPlaylistAsLongAsTheDeclaredDurationOrWithNoneDeclaredIsSaved(declared: Double?) async throws {
        try await withDownloadSetup { server, downloader, directory in
            let folder = try await Self.segments(.ts, in: directory)
            try Self.serve(folder, on: server)
            let media = try await downloader.downloadHLS(
                MediaRequest(
                    url: server.url("/hls/index.m3u8"), destination: directory.appendingPathComponent("Ep.m3u8"),
                    declaredDuration: declared),
                progress: { _ in })
            #expect(contents(media.file) == (try Self.joined(folder, try Self.listed(folder).files)))
        }
    }

    @Test(arguments: [75.0, 3600])
    func aPlaylistThatDisagreesWithTheDeclaredDurationIsRefusedBeforeASegmentIsFetched(declared: Double) async throws {
        try await withDownloadSetup { server, downloader, directory in
            let folder = try await Self.segments(.ts, in: directory)
            try Self.serve(folder, on: server)
            let (files, duration) = try Self.listed(folder)
            let request = MediaRequest(
                url: server.url("/hls/index.m3u8"), destination: directory.appendingPathComponent("Ep.m3u8"),
                declaredDuration: declared)
            let error = await expectDownloadError {
                _ = try await downloader.downloadHLS(request, progress: { _ in })
            }
            guard case .hlsDurationMismatch(let playlist, let stated, let tolerance) = error?.cause else {
                Issue.record("not a duration mismatch: \(String(describing: error))")
                return
            }
            #expect(abs(playlist - duration) < 0.001 && stated == declared)
            #expect(tolerance == MediaDownloader.hlsDurationTolerance(declared: declared))
            #expect(error?.kind == .hls && error?.isPermanent == true, "waits as a broken link does")
            for file in files { #expect(server.requests(to: "/hls/\(file)").isEmpty, "\(file) was fetched") }
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("Ep") }
            #expect(left.isEmpty, "complete or absent: \(left)")
        }
    }
}
