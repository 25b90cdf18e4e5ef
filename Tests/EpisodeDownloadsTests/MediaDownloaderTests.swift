import EpisodeDownloads
import Foundation
import HTTPTransport
import Measures
import Synchronization
import TestSupport
import Testing

@Suite("MediaDownloader: one file, complete or absent")
struct MediaDownloaderTests {
    @Test("a complete download streams to .part, is renamed at the end, and sends Accept-Encoding: identity")
    func completeDownload() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(300_000)
            server.serveMedia("/ep1.mp3", body, etag: "\"v1\"")
            let destination = directory.appendingPathComponent("Feed/ep1.mp3")
            let log = ProgressLog(destination: destination)
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep1.mp3"), destination: destination, announcedType: "audio/mpeg"),
                progress: log.record)
            #expect(contents(destination) == body)
            #expect(!exists(partFile(destination)))
            #expect(media.byteCount == 300_000)
            #expect(media.resumedFrom == 0)
            #expect(media.etag == "\"v1\"")
            #expect(media.lastModified == "Tue, 12 Nov 2024 05:00:00 GMT")
            #expect(media.finalURL == server.url("/ep1.mp3"))
            #expect(!log.finalFileSeen, "the final name appeared before the body was complete")
            #expect(!log.partMissing, "a chunk was reported that was not in the .part")
            #expect(log.reports.last?.receivedBytes == 300_000)
            #expect(log.reports.last?.expectedBytes == 300_000)
            let request = try #require(server.requests(to: "/ep1.mp3").first)
            #expect(request.headers["accept-encoding"] == "identity")
            #expect(request.headers["range"] == nil)
        }
    }

    @Test("a .part is resumed with Range and If-Range (the ETag)")
    func resumeWithETag() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(200_000)
            server.serveMedia("/ep.mp3", body, etag: "\"v1\"")
            let destination = directory.appendingPathComponent("ep.mp3")
            try Data(body[..<80_000]).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(
                    url: server.url("/ep.mp3"), destination: destination, etag: "\"v1\"",
                    lastModified: "Tue, 12 Nov 2024 05:00:00 GMT", announcedType: "audio/mpeg"),
                progress: { _ in })
            #expect(media.resumedFrom == 80_000)
            #expect(media.byteCount == 200_000)
            #expect(contents(destination) == body)
            #expect(!exists(partFile(destination)))
            let request = try #require(server.requests(to: "/ep.mp3").last)
            #expect(request.headers["range"] == "bytes=80000-")
            #expect(request.headers["if-range"] == "\"v1\"")
        }
    }

    @Test("without an ETag, If-Range carries the Last-Modified date")
    func resumeWithLastModified() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(50_000)
            server.serveMedia("/ep.mp3", body, etag: nil)
            let destination = directory.appendingPathComponent("ep.mp3")
            try Data(body[..<10_000]).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(
                    url: server.url("/ep.mp3"), destination: destination,
                    lastModified: "Tue, 12 Nov 2024 05:00:00 GMT"),
                progress: { _ in })
            #expect(media.resumedFrom == 10_000)
            #expect(contents(destination) == body)
            #expect(server.requests(to: "/ep.mp3").last?.headers["if-range"] == "Tue, 12 Nov 2024 05:00:00 GMT")
        }
    }

    @Test("a changed ETag (dynamic ad insertion) starts over: the file is the new body, not a splice")
    func changedETagStartsOver() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let old = mediaBytes(120_000, seed: 1)
            let new = mediaBytes(130_000, seed: 2)
            server.serveMedia("/ep.mp3", new, etag: "\"v2\"")
            let destination = directory.appendingPathComponent("ep.mp3")
            try Data(old[..<60_000]).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, etag: "\"v1\""),
                progress: { _ in })
            #expect(media.resumedFrom == 0)
            #expect(media.etag == "\"v2\"")
            #expect(contents(destination) == new)
        }
    }

    @Test("a server that ignores Range (200) gets the file from the start")
    func ignoredRangeStartsOver() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(100_000)
            server.serveMedia("/ep.mp3", body, ranges: .ignore)
            let destination = directory.appendingPathComponent("ep.mp3")
            try Data(body[..<40_000]).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, etag: "\"v1\""),
                progress: { _ in })
            #expect(media.resumedFrom == 0)
            #expect(contents(destination) == body)
        }
    }

    @Test("a short body fails naming got/expected; no final file, the .part stays for a resume")
    func shortBody() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.serveMedia("/ep.mp3", mediaBytes(50_000), fault: .shortBody(afterBytes: 20_000))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination))
            #expect(error?.kind == .shortBody)
            guard case .transport(.closedBeforeEnd(let host, let received, let total)) = error?.cause else {
                Issue.record("not a body cut by the server: \(String(describing: error))")
                return
            }
            #expect(host == "127.0.0.1")
            #expect(received == 20_000 && total == 50_000)
            #expect(error?.url == server.url("/ep.mp3"))
            #expect(MediaDownloaderTests.size(of: URL(fileURLWithPath: destination.path + ".part")) == 20_000)
        }
    }

    @Test("a chunked body cut by the server fails naming the host and the bytes received, never a library type")
    func chunkedBodyCut() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let first = mediaBytes(30_000)
            var answer = Array(
                "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            answer += Array("\(String(first.count, radix: 16))\r\n".utf8) + first + Array("\r\n".utf8)
            // The next chunk announces 4096 bytes; the connection closes after 10 of them.
            answer += Array("1000\r\n".utf8) + mediaBytes(10, seed: 2)
            server.setRoute("/cut.mp3", TestResponse(status: 200, headers: [], fault: .raw(answer)))
            let destination = directory.appendingPathComponent("cut.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/cut.mp3"), destination: destination), part: .kept)
            #expect(error?.kind == .shortBody)
            guard case .transport(.closedBeforeEnd(let host, let received, let total)) = error?.cause else {
                Issue.record("not a body cut by the server: \(String(describing: error))")
                return
            }
            #expect(host == "127.0.0.1")
            #expect(total == nil, "a chunked body announces no length")
            #expect((30_000...30_010).contains(received), "\(received)")
            #expect(MediaDownloaderTests.size(of: partFile(destination)) == received)
        }
    }

    @Test("a download cut short is finished by the next run from its .part, with the validators it returned")
    func shortBodyThenResume() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(60_000)
            server.serveMedia("/ep.mp3", body, etag: "\"v7\"", fault: .shortBody(afterBytes: 25_000))
            let destination = directory.appendingPathComponent("ep.mp3")
            let request = MediaRequest(url: server.url("/ep.mp3"), destination: destination, etag: "\"v7\"")
            let error = await expectFailure(downloader, request, part: .kept)
            #expect(error?.kind == .shortBody)
            server.serveMedia("/ep.mp3", body, etag: "\"v7\"")
            let media = try await downloader.download(request, progress: { _ in })
            #expect(media.resumedFrom == 25_000)
            #expect(contents(destination) == body)
            #expect(!exists(partFile(destination)))
        }
    }

    @Test("a weak ETag cannot validate a range: If-Range carries Last-Modified instead")
    func weakETag() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(30_000)
            server.serveMedia("/ep.mp3", body, etag: "W/\"weak\"")
            let destination = directory.appendingPathComponent("ep.mp3")
            try Data(body[..<5_000]).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(
                    url: server.url("/ep.mp3"), destination: destination, etag: "W/\"weak\"",
                    lastModified: "Tue, 12 Nov 2024 05:00:00 GMT"),
                progress: { _ in })
            #expect(contents(destination) == body)
            #expect(media.resumedFrom == 5_000)
            #expect(server.requests(to: "/ep.mp3").last?.headers["if-range"] == "Tue, 12 Nov 2024 05:00:00 GMT")
        }
    }

    @Test("a .part without any validator is not trusted: the download starts over")
    func partWithoutValidator() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(30_000, seed: 3)
            server.serveMedia("/ep.mp3", body)
            let destination = directory.appendingPathComponent("ep.mp3")
            try Data(mediaBytes(10_000, seed: 9)).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep.mp3"), destination: destination), progress: { _ in })
            #expect(media.resumedFrom == 0)
            #expect(contents(destination) == body)
            #expect(server.requests(to: "/ep.mp3").last?.headers["range"] == nil)
        }
    }

    @Test("a trickle that never stalls is still stopped by the total timeout")
    func totalTimeout() async throws {
        let clock = ManualClock()
        var configuration = DownloadConfiguration(
            stallTimeout: .seconds(5), totalTimeout: .milliseconds(600), freeSpaceMargin: .none)
        configuration.minimumRate = nil
        configuration.clock = .manual(clock)
        try await withDownloadSetup(configuration: configuration) { server, downloader, directory in
            // 100 s of trickle in real time: only the clock's total limit can end it within the test.
            server.serveMedia(
                "/ep.mp3", mediaBytes(200_000), fault: .trickle(bytes: 100, delay: .milliseconds(50)))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination),
                whenClock: clock, advancesBy: .milliseconds(600), afterBytes: 100)
            #expect(error?.kind == .timeout, "\(String(describing: error))")
            #expect(error?.limit == .total)
        }
    }

    @Test("a trickle that never stalls fails at the minimum rate, long before the total timeout; the .part stays")
    func minimumRate() async throws {
        let clock = ManualClock()
        var configuration = DownloadConfiguration(
            stallTimeout: .seconds(5), totalTimeout: .seconds(60), freeSpaceMargin: .none)
        configuration.minimumRate = MinimumRate(bytesPerSecond: 5_000, window: .milliseconds(500))
        configuration.clock = .manual(clock)
        try await withDownloadSetup(configuration: configuration) { server, downloader, directory in
            server.serveMedia(
                "/ep.mp3", mediaBytes(100_000), fault: .trickle(bytes: 100, delay: .milliseconds(100)))
            let destination = directory.appendingPathComponent("ep.mp3")
            // Half a second of clock time with a few hundred bytes: under 5 000 bytes/s.
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination), part: .kept,
                whenClock: clock, advancesBy: .milliseconds(500), afterBytes: 100)
            #expect(error?.kind == .tooSlow, "\(String(describing: error))")
            #expect(error?.limit == .minimumRate)
        }
    }

    @Test("an HTTP error fails with its status and leaves no file", arguments: [404, 500])
    func httpError(status: Int) async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute("/ep.mp3", TestResponse(status: status, text: "no"))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination), part: .removed)
            #expect(error?.kind == .httpStatus)
            #expect(error?.status == status)
            if case .httpStatus(let got, _) = error?.cause {
                #expect(got == status)
            } else {
                Issue.record("\(String(describing: error))")
            }
        }
    }

    @Test("an HTML page where audio was announced fails and leaves no file")
    func htmlWhereAudioAnnounced() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/ep.mp3",
                TestResponse(
                    headers: [("Content-Type", "text/html; charset=utf-8")], text: "<html>Please log in</html>",
                    compressible: false))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader,
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, announcedType: "audio/mpeg"),
                part: .removed)
            #expect(error?.kind == .notMedia)
            if case .notMedia(_, _, let type, _) = error?.cause {
                #expect(type?.contains("text/html") == true)
            } else {
                Issue.record("\(String(describing: error))")
            }
        }
    }

    @Test("a chain of 4 tracking redirects is followed; 12 are refused")
    func redirectChains() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(10_000)
            server.serveMedia("/media/ep.mp3", body)
            let short = server.serveRedirectChain("/track/a", hops: 4, to: "/media/ep.mp3")
            let destination = directory.appendingPathComponent("ep.mp3")
            let media = try await downloader.download(
                MediaRequest(url: server.url(short), destination: destination), progress: { _ in })
            #expect(media.finalURL == server.url("/media/ep.mp3"))
            #expect(contents(destination) == body)

            let long = server.serveRedirectChain("/track/b", hops: 12, to: "/media/ep.mp3")
            let other = directory.appendingPathComponent("other.mp3")
            let error = await expectFailure(downloader, MediaRequest(url: server.url(long), destination: other))
            #expect(error?.kind == .tooManyRedirects)
        }
    }

    @Test("a stall mid-body is caught by the progress timeout, not the total one; the .part stays")
    func stall() async throws {
        let clock = ManualClock()
        var configuration = DownloadConfiguration(stallTimeout: .milliseconds(500), freeSpaceMargin: .none)
        configuration.clock = .manual(clock)
        try await withDownloadSetup(configuration: configuration) { server, downloader, directory in
            server.serveMedia("/ep.mp3", mediaBytes(100_000), fault: .stall(afterBytes: 30_000))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination), part: .kept,
                whenClock: clock, advancesBy: .milliseconds(500), afterBytes: 30_000)
            #expect(error?.kind == .stalled)
            if case .transport(.transferLimit(.stall, _, _, _, let expected, _)) = error?.cause {
                #expect(expected == 100_000)
            } else {
                Issue.record("\(String(describing: error))")
            }
            #expect(clock.offset == .milliseconds(500))
        }
    }

    @Test("a download whose announced length does not fit is refused before a byte is written")
    func notEnoughSpace() async throws {
        let margin = FreeSpace.Margin(fraction: 0, minimumBytes: Int64.max / 4)
        try await withDownloadSetup(configuration: DownloadConfiguration(freeSpaceMargin: margin)) {
            server, downloader, directory in
            server.serveMedia("/ep.mp3", mediaBytes(1000))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination), part: .removed)
            #expect(error?.kind == .notEnoughSpace)
            if case .notEnoughSpace(_, let needed, _, _) = error?.cause {
                #expect(needed == 1000)
            } else {
                Issue.record("\(String(describing: error))")
            }
        }
    }

    @Test("a 50 MB body goes to disk chunk by chunk, never held whole")
    func largeBodyIsStreamed() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let size = 50_000_000
            server.setRoute(
                "/big.mp3",
                TestResponse(
                    headers: [("Content-Type", "audio/mpeg")], body: Array("ID3".utf8) + mediaBytes(1_000),
                    fault: .huge(bytes: size), compressible: false))
            let destination = directory.appendingPathComponent("big.mp3")
            let log = ProgressLog(destination: destination)
            let media = try await downloader.download(
                MediaRequest(url: server.url("/big.mp3"), destination: destination, announcedType: "audio/mpeg"),
                progress: log.record)
            #expect(media.byteCount == Int64(size))
            #expect(media.container == .id3)
            #expect(MediaDownloaderTests.size(of: destination) == Int64(size))
            let reports = log.reports
            // Each report is one chunk, written before the next is read: the largest is what memory ever held.
            let largest = reports.map(\.chunkBytes).max() ?? 0
            #expect(reports.count > 20)
            #expect(largest <= 4 * 1024 * 1024, "a chunk of \(largest) bytes")
            #expect(reports.map { Int64($0.chunkBytes) }.reduce(0, +) == Int64(size))
        }
    }

    @Test("a folder that cannot be made is an I/O error naming the path")
    func ioError() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.serveMedia("/ep.mp3", mediaBytes(1000))
            let blocker = directory.appendingPathComponent("blocker")
            try Data([1]).write(to: blocker)
            let destination = blocker.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination))
            #expect(error?.kind == .io)
            if case .cannotCreateFolder(let path, _) = error?.cause {
                #expect(path == blocker.path)
            } else {
                Issue.record("not a folder that cannot be made: \(String(describing: error))")
            }
            #expect(server.requests(to: "/ep.mp3").isEmpty)
        }
    }

    @Test("a URL that is not http(s) is refused")
    func unsupportedScheme() async throws {
        try await withTemporaryDirectory { directory in
            try await MediaDownloader.withDownloader { downloader in
                let error = await expectFailure(
                    downloader,
                    MediaRequest(
                        url: URL(string: "ftp://example.com/a.mp3")!,
                        destination: directory.appendingPathComponent("a.mp3")),
                    part: .removed)
                #expect(error?.kind == .unsupportedScheme)
            }
        }
    }

    @Test("a body without any announced length (closed by the server, or chunked) is complete when it ends cleanly")
    func noAnnouncedLength() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(70_000)
            let closeDelimited = Array("HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nConnection: close\r\n\r\n".utf8)
            server.setRoute("/closed.mp3", TestResponse(status: 200, headers: [], fault: .raw(closeDelimited + body)))
            var chunked = Array(
                "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            for start in stride(from: 0, to: body.count, by: 30_000) {
                let piece = body[start..<min(body.count, start + 30_000)]
                chunked += Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)
            }
            chunked += Array("0\r\n\r\n".utf8)
            server.setRoute("/chunked.mp3", TestResponse(status: 200, headers: [], fault: .raw(chunked)))
            for path in ["/closed.mp3", "/chunked.mp3"] {
                let destination = directory.appendingPathComponent(String(path.dropFirst()))
                let media = try await downloader.download(
                    MediaRequest(url: server.url(path), destination: destination, announcedType: "audio/mpeg"),
                    progress: { _ in })
                #expect(media.byteCount == 70_000, "\(path)")
                #expect(contents(destination) == body, "\(path)")
            }
        }
    }

    @Test("the answer is handed to `accepted` with its validators before the first byte is written")
    func acceptedBeforeTheFirstByte() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.serveMedia("/ep.mp3", mediaBytes(50_000), etag: "\"e1\"")
            let destination = directory.appendingPathComponent("ep.mp3")
            let seen = Mutex<[MediaResponse]>([])
            _ = try await downloader.download(
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, announcedType: "audio/mpeg"),
                accepted: { response in
                    let partSize = MediaDownloaderTests.size(of: partFile(destination)) ?? 0
                    #expect(partSize == 0, "nothing is written before the answer is accepted")
                    seen.withLock { $0.append(response) }
                },
                progress: { _ in })
            let responses = seen.withLock { $0 }
            #expect(responses.count == 1)
            #expect(responses.first?.etag == "\"e1\"" && responses.first?.expectedBytes == 50_000)
            #expect(responses.first?.resumedFrom == 0)

            // What `accepted` throws ends the download, and no file appears.
            struct Refused: Error {}
            let other = directory.appendingPathComponent("other.mp3")
            await #expect(throws: Refused.self) {
                _ = try await downloader.download(
                    MediaRequest(url: server.url("/ep.mp3"), destination: other), accepted: { _ in throw Refused() },
                    progress: { _ in })
            }
            #expect(!exists(other))
        }
    }

    static func size(of url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
    }
}
