import EpisodeDownloads
import Foundation
import HTTPTransport
import Synchronization
import TestSupport
import Testing

/// Issue #21 item 1: a file is complete only when its bytes are the episode, against a server that misbehaves on
/// demand. Every failing case also checks that nothing stands under the final name.
@Suite("MediaDownloader: the bytes are the episode")
struct MediaIntegrityTests {
    /// A media route that answers every `Range` with 206 and the current body's ETag, never looking at `If-Range`
    /// (what the misbehaving CDN did), and every plain GET with 200. `version` picks the body and ETag per request.
    static func serveIgnoringIfRange(
        _ server: TestHTTPServer, _ path: String, bodies: [[UInt8]], version: @escaping @Sendable (Int) -> Int
    ) {
        let count = Mutex(0)
        server.setRoute(path) { request in
            let number = count.withLock { value in
                defer { value += 1 }
                return value
            }
            let index = version(number)
            let body = bodies[index]
            let headers = [("Content-Type", "audio/mpeg"), ("ETag", "\"v\(index + 1)\""), ("Accept-Ranges", "bytes")]
            if let range = request.headers["range"], let start = TestHTTPServer.rangeStart(range), start < body.count {
                return TestResponse(
                    status: 206,
                    headers: headers + [("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)")],
                    body: Array(body[start...]), compressible: false)
            }
            return TestResponse(status: 200, headers: headers, body: body, compressible: false)
        }
    }

    @Test("a 206 with a new ETag (If-Range ignored) is not spliced: the .part goes and one plain GET fetches the file")
    func ignoredIfRangeWithNewETag() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let old = mediaBytes(100_000, seed: 1)
            let new = mediaBytes(100_000, seed: 2)
            Self.serveIgnoringIfRange(server, "/ep.mp3", bodies: [old, new], version: { _ in 1 })
            let destination = directory.appendingPathComponent("ep.mp3")
            try Data(old[..<40_000]).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, etag: "\"v1\""), progress: { _ in })
            #expect(contents(destination) == new, "the file is the new version whole, not old bytes + new bytes")
            #expect(media.resumedFrom == 0)
            #expect(media.etag == "\"v2\"")
            #expect(media.restarted == .validatorChanged(was: "\"v1\"", now: "\"v2\""))
            let requests = server.requests(to: "/ep.mp3")
            #expect(requests.map { $0.headers["range"] } == ["bytes=40000-", nil])
            #expect(requests.last?.headers["if-range"] == nil)
        }
    }

    @Test("a 206 without the Last-Modified the .part was started with starts over")
    func changedLastModified() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(50_000, seed: 4)
            server.setRoute("/ep.mp3") { request in
                let headers = [("Content-Type", "audio/mpeg"), ("Last-Modified", "Wed, 13 Nov 2024 05:00:00 GMT")]
                if request.headers["range"] != nil {
                    return TestResponse(
                        status: 206, headers: headers + [("Content-Range", "bytes 10000-49999/50000")],
                        body: Array(body[10_000...]), compressible: false)
                }
                return TestResponse(headers: headers, body: body, compressible: false)
            }
            let destination = directory.appendingPathComponent("ep.mp3")
            try Data(mediaBytes(10_000, seed: 9)).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(
                    url: server.url("/ep.mp3"), destination: destination,
                    lastModified: "Tue, 12 Nov 2024 05:00:00 GMT"),
                progress: { _ in })
            #expect(contents(destination) == body)
            #expect(
                media.restarted
                    == .validatorChanged(was: "Tue, 12 Nov 2024 05:00:00 GMT", now: "Wed, 13 Nov 2024 05:00:00 GMT"))
        }
    }

    @Test("a 206 with the same ETag but another total than the .part was started with starts over")
    func changedTotal() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let first = mediaBytes(60_000, seed: 5)
            server.serveMedia("/ep.mp3", first, etag: "\"same\"", fault: .shortBody(afterBytes: 20_000))
            let destination = directory.appendingPathComponent("ep.mp3")
            let request = MediaRequest(url: server.url("/ep.mp3"), destination: destination, etag: "\"same\"")
            let cut = await expectFailure(downloader, request, part: .kept)
            #expect(cut?.kind == .shortBody)
            // The server now claims the same ETag for a longer file.
            let longer = mediaBytes(80_000, seed: 6)
            server.serveMedia("/ep.mp3", longer, etag: "\"same\"")
            let media = try await downloader.download(request, progress: { _ in })
            #expect(contents(destination) == longer)
            #expect(media.restarted == .totalChanged(was: 60_000, now: 80_000))
            #expect(server.requests(to: "/ep.mp3").last?.headers["range"] == nil)
        }
    }

    @Test("a 206 that starts at another byte than asked starts over with one plain GET", arguments: [0, 500])
    func wrongStart(servedFrom: Int) async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = mediaBytes(100_000)
            server.serveMedia("/ep.mp3", body, ranges: .startAt(servedFrom))
            let destination = directory.appendingPathComponent("ep.mp3")
            try Data(body[..<30_000]).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, etag: "\"v1\""), progress: { _ in })
            #expect(contents(destination) == body)
            #expect(media.resumedFrom == 0)
            #expect(media.restarted == .wrongStart(asked: 30_000, got: Int64(servedFrom)))
            #expect(server.requests(to: "/ep.mp3").map { $0.headers["range"] } == ["bytes=30000-", nil])
        }
    }

    @Test(
        "media sent with Content-Encoding gzip or deflate is decoded, never saved compressed",
        arguments: ["gzip", "deflate"])
    func compressedMediaIsDecoded(encoding: String) async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = Array("ID3".utf8) + mediaBytes(200_000, seed: 7)
            let encoded = try await encoding == "gzip" ? gzipped(body) : deflated(body)
            #expect(encoded != body)
            server.setRoute(
                "/ep.mp3",
                TestResponse(
                    headers: [("Content-Type", "audio/mpeg"), ("Content-Encoding", encoding), ("ETag", "\"z\"")],
                    body: encoded, compressible: false))
            let destination = directory.appendingPathComponent("ep.mp3")
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, announcedType: "audio/mpeg"),
                progress: { _ in })
            #expect(contents(destination) == body)
            #expect(media.byteCount == Int64(body.count))
            #expect(media.decodedFrom == encoding)
            #expect(media.container == .id3)
            #expect(server.requests(to: "/ep.mp3").first?.headers["accept-encoding"] == "identity")
        }
    }

    @Test("a Content-Encoding podfresh cannot decode is refused by name; nothing is left")
    func unknownEncodingIsRefused() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/ep.mp3",
                TestResponse(
                    headers: [("Content-Type", "audio/mpeg"), ("Content-Encoding", "br")],
                    body: mediaBytes(5_000), compressible: false))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination), part: .removed)
            #expect(error?.kind == .unsupportedEncoding)
            #expect(error?.cause == .undecodedEncoding("br"))
        }
    }

    @Test("a corrupt gzip body fails and leaves no final file")
    func corruptGzip() async throws {
        try await withDownloadSetup { server, downloader, directory in
            var encoded = try await gzipped(mediaBytes(50_000))
            for index in 20..<60 { encoded[index] ^= 0x5A }
            server.setRoute(
                "/ep.mp3",
                TestResponse(
                    headers: [("Content-Type", "audio/mpeg"), ("Content-Encoding", "gzip")], body: encoded,
                    compressible: false))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination))
            #expect(error != nil)
        }
    }

    @Test("200 audio/mpeg with Content-Length: 0 is a failure, not a 0-byte episode")
    func emptyBody() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/ep.mp3", TestResponse(headers: [("Content-Type", "audio/mpeg")], body: [], compressible: false))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader,
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, announcedType: "audio/mpeg"),
                part: .removed)
            #expect(error?.kind == .emptyBody)
            #expect(error?.cause == .emptyBody(status: 200, contentType: "audio/mpeg"), "\(String(describing: error))")
        }
    }

    @Test("an empty body without any length (closed at once) is a failure too")
    func emptyBodyWithoutLength() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/ep.mp3",
                TestResponse(
                    fault: .raw(Array("HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nConnection: close\r\n\r\n".utf8)))
            )
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination), part: .removed)
            #expect(error?.kind == .emptyBody)
        }
    }

    @Test(
        "a document type where audio was announced fails naming what came",
        arguments: [
            ("application/json", #"{"error":"not found"}"#, DocumentKind.json),
            ("application/problem+json", #"{"type":"about:blank","status":404}"#, .json),
            ("application/xml", "<Error><Code>AccessDenied</Code></Error>", .xml),
            ("text/plain", "Forbidden", .text),
            ("text/html; charset=utf-8", "<html>Please log in</html>", .html),
        ])
    func documentByType(type: String, body: String, kind: DocumentKind) async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/ep.mp3", TestResponse(headers: [("Content-Type", type)], text: body, compressible: false))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader,
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, announcedType: "audio/mpeg"),
                part: .removed)
            #expect(error?.kind == .notMedia)
            #expect(error?.cause == .notMedia(kind, status: 200, contentType: type, announced: "audio/mpeg"))
        }
    }

    @Test(
        "a document whose first bytes give it away fails even under a media type",
        arguments: [
            ("<!DOCTYPE html><html><body>Sign in to continue</body></html>", DocumentKind.html),
            (#"{"error": "episode not found", "code": 404}"#, .json),
            ("<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code></Error>", .xml),
        ])
    func documentByFirstBytes(body: String, kind: DocumentKind) async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/ep.mp3",
                TestResponse(headers: [("Content-Type", "audio/mpeg")], text: body, compressible: false))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader,
                MediaRequest(url: server.url("/ep.mp3"), destination: destination, announcedType: "audio/mpeg"),
                part: .removed)
            #expect(error?.kind == .notMedia)
            #expect(error?.cause == .notMedia(kind, status: 200, contentType: "audio/mpeg", announced: "audio/mpeg"))
        }
    }

    static let playlist =
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\nseg0.ts\n#EXT-X-ENDLIST\n"

    @Test(
        "an HLS playlist is never saved as the episode, whatever the feed or the server calls it",
        arguments: [
            ("application/vnd.apple.mpegurl", "application/x-mpegURL"),
            ("audio/mpeg", "audio/mpeg"),
            ("application/octet-stream", nil),
            ("application/x-mpegurl", "application/vnd.apple.mpegurl"),
        ] as [(String, String?)])
    func anHLSPlaylistIsRefused(served: String, announced: String?) async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/ep.m3u8", TestResponse(headers: [("Content-Type", served)], text: Self.playlist, compressible: false))
            let destination = directory.appendingPathComponent("ep.m3u8")
            let error = await expectFailure(
                downloader,
                MediaRequest(url: server.url("/ep.m3u8"), destination: destination, announcedType: announced),
                part: .removed)
            #expect(error?.kind == .notMedia)
            #expect(error?.cause == .notMedia(.playlist, status: 200, contentType: served, announced: announced))
            #expect(error?.isPermanent == true, "waits as a broken link does")
        }
    }

    static let magics: [([UInt8], MediaContainer)] = [
        (Array("ID3".utf8) + [3, 0], .id3),
        ([0xFF, 0xFB, 0x90, 0x64], .mpegAudio),
        ([0xFF, 0xF1, 0x50, 0x80], .aac),
        ([0, 0, 0, 0x20] + Array("ftypM4A ".utf8), .mp4),
        (Array("OggS".utf8), .ogg),
        (Array("fLaC".utf8), .flac),
        ([0x1A, 0x45, 0xDF, 0xA3], .matroska),
        (Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8), .wav),
    ]

    @Test("the first bytes' container is recorded", arguments: MediaIntegrityTests.magics)
    func containerIsRecorded(magic: [UInt8], container: MediaContainer) async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = magic + mediaBytes(5_000)
            server.serveMedia("/ep", body)
            let destination = directory.appendingPathComponent("ep")
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep"), destination: destination), progress: { _ in })
            #expect(media.container == container)
            #expect(contents(destination) == body)
        }
    }

    @Test("bytes no container is known by are still saved (the type is a hint), with no container recorded")
    func unknownContainerIsKept() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = [0x00, 0x01, 0x02] + mediaBytes(5_000)
            server.serveMedia("/ep.bin", body, contentType: "application/octet-stream")
            let destination = directory.appendingPathComponent("ep.bin")
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep.bin"), destination: destination, lengthHint: 999_999_999),
                progress: { _ in })
            #expect(media.container == nil)
            #expect(contents(destination) == body)
        }
    }

    @Test("a resumed file's container is read from its first bytes on disk")
    func resumedContainer() async throws {
        try await withDownloadSetup { server, downloader, directory in
            let body = Array("OggS".utf8) + mediaBytes(40_000)
            server.serveMedia("/ep.ogg", body)
            let destination = directory.appendingPathComponent("ep.ogg")
            try Data(body[..<10_000]).write(to: partFile(destination))
            let media = try await downloader.download(
                MediaRequest(url: server.url("/ep.ogg"), destination: destination, etag: "\"v1\""), progress: { _ in })
            #expect(media.resumedFrom == 10_000)
            #expect(media.container == .ogg)
        }
    }

    @Test("a server that sends nothing within the first-byte limit fails naming that limit")
    func firstByteLimit() async throws {
        let configuration = DownloadConfiguration(
            firstByteTimeout: .milliseconds(300), stallTimeout: .seconds(30), freeSpaceMargin: .none)
        try await withDownloadSetup(configuration: configuration) { server, downloader, directory in
            server.setRoute(
                "/ep.mp3",
                TestResponse(
                    headers: [("Content-Type", "audio/mpeg")], body: mediaBytes(100), delay: .seconds(20),
                    compressible: false))
            let destination = directory.appendingPathComponent("ep.mp3")
            let error = await expectFailure(
                downloader, MediaRequest(url: server.url("/ep.mp3"), destination: destination))
            #expect(error?.kind == .noResponse)
            #expect(error?.limit == .firstByte)
            if case .transport(.transferLimit(.firstByte, let host, _, _, _, _)) = error?.cause {
                #expect(host == "127.0.0.1")
            } else {
                Issue.record("\(String(describing: error))")
            }
        }
    }
}

/// The signatures and the document test on their own.
@Suite("MediaSniffing: containers and documents by their first bytes")
struct MediaSniffingTests {
    @Test func documentsAreRecognisedAndBinaryIsNot() {
        #expect(MediaSniffing.document(Array("  <html><head>".utf8)) == .html)
        #expect(MediaSniffing.document([0xEF, 0xBB, 0xBF] + Array("<?xml version".utf8)) == .xml)
        #expect(MediaSniffing.document(Array("[1, 2]".utf8)) == .json)
        #expect(MediaSniffing.document(Array("{}".utf8)) == .json)
        // Binary data that happens to start with `<` or `{` is not a document.
        #expect(MediaSniffing.document([UInt8(ascii: "<"), 0x01, 0x02, 0x03]) == nil)
        #expect(MediaSniffing.document([UInt8(ascii: "{"), 0x00, 0xFF]) == nil)
        #expect(MediaSniffing.document(Array("ID3".utf8) + [3, 0]) == nil)
        #expect(MediaSniffing.document(Array("< 3".utf8)) == nil)
    }

    @Test func contentTypesThatAreDocuments() {
        #expect(MediaSniffing.document(contentType: "application/problem+json") == .json)
        #expect(MediaSniffing.document(contentType: "application/rss+xml; charset=utf-8") == .xml)
        #expect(MediaSniffing.document(contentType: "TEXT/HTML") == .html)
        #expect(MediaSniffing.document(contentType: "text/vtt") == .text)
        #expect(MediaSniffing.document(contentType: "audio/mpeg") == nil)
        #expect(MediaSniffing.document(contentType: "application/octet-stream") == nil)
        #expect(MediaSniffing.document(contentType: nil) == nil)
    }

    @Test func mpegFrameSyncIsNotTakenFromNoise() {
        #expect(MediaSniffing.container([0xFF, 0xE0]) == nil, "layer bits 00 are reserved in MPEG audio")
        #expect(MediaSniffing.container([0xFF, 0xFB, 0xF0]) == nil, "bitrate index 1111 is invalid")
        #expect(MediaSniffing.container([0xFE, 0xFB]) == nil)
        #expect(MediaSniffing.container([]) == nil)
    }
}
