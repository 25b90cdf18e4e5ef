import EpisodeDownloads
import Foundation
import HTTPTransport
import TestSupport
import Testing

/// Issue #37 item 4: a file beside an episode (transcript, chapters, artwork) is complete or absent, bounded, and
/// never an error page, against a real server on 127.0.0.1 that misbehaves on demand. Every failing case checks that
/// nothing is left: no file under any name the extra could take, and no `.part`.
@Suite("MediaDownloader: the files beside an episode")
struct ExtraFetchingTests {
    static let chapters =
        #"{"version":"1.2.0","chapters":[{"startTime":0,"title":"Intro"},{"startTime":61,"title":"Talk"}]}"#
    static let vtt = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello there.\n"
    static let srt = "1\n00:00:00,000 --> 00:00:02,000\nHello there.\n"
    static let errorPage = "<!DOCTYPE html><html><head><title>Not here</title></head><body>Oops</body></html>"
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 2_000)
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 500)

    /// Every file in `directory`, sorted.
    static func files(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test("each kind is saved beside the media under the media's base name, with the extension its content calls for")
    func savedWithTheirNames() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/c.json", TestResponse(headers: [("Content-Type", "application/json")], text: Self.chapters))
            server.setRoute("/t.vtt", TestResponse(headers: [("Content-Type", "text/vtt")], text: Self.vtt))
            server.setRoute("/t", TestResponse(headers: [("Content-Type", "application/x-subrip")], text: Self.srt))
            server.setRoute("/art", TestResponse(headers: [("Content-Type", "image/png")], body: Self.png))
            let base = directory.appendingPathComponent("Ep 1")
            let chapters = try await downloader.fetchExtra(
                ExtraRequest(url: server.url("/c.json"), kind: .chapters, base: base))
            let vtt = try await downloader.fetchExtra(
                ExtraRequest(url: server.url("/t.vtt"), kind: .transcript, declaredType: "text/vtt", base: base))
            let srt = try await downloader.fetchExtra(
                ExtraRequest(
                    url: server.url("/t"), kind: .transcript, declaredType: "application/srt",
                    base: directory.appendingPathComponent("Ep 1.en")))
            let image = try await downloader.fetchExtra(ExtraRequest(url: server.url("/art"), kind: .image, base: base))
            #expect(chapters.file.lastPathComponent == "Ep 1.chapters.json")
            #expect(vtt.file.lastPathComponent == "Ep 1.vtt")
            #expect(srt.file.lastPathComponent == "Ep 1.en.srt")
            #expect(image.file.lastPathComponent == "Ep 1.png", "named by what it is, not by what the URL says")
            #expect(contents(chapters.file) == Array(Self.chapters.utf8))
            #expect(image.byteCount == Int64(Self.png.count))
            #expect(Self.files(directory) == ["Ep 1.chapters.json", "Ep 1.en.srt", "Ep 1.png", "Ep 1.vtt"])
        }
    }

    @Test("a 404 leaves nothing")
    func notFound() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute("/c.json", TestResponse(status: 404, text: "not found"))
            let error = await expectDownloadError {
                _ = try await downloader.fetchExtra(
                    ExtraRequest(
                        url: server.url("/c.json"), kind: .chapters, base: directory.appendingPathComponent("Ep")))
            }
            #expect(error?.status == 404 && error?.isPermanent == true)
            #expect(Self.files(directory).isEmpty)
        }
    }

    @Test("an HTML page where chapters JSON, a transcript or an image was expected is refused, naming what came")
    func errorPageInstead() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute("/page", TestResponse(headers: [("Content-Type", "text/html")], text: Self.errorPage))
            server.setRoute(
                "/json", TestResponse(headers: [("Content-Type", "application/json")], text: #"{"error":"gone"}"#))
            let base = directory.appendingPathComponent("Ep")
            for (kind, type) in [
                (ExtraKind.chapters, nil), (.transcript, "text/vtt"), (.transcript, "application/json"), (.image, nil),
            ] as [(ExtraKind, String?)] {
                let error = await expectDownloadError {
                    _ = try await downloader.fetchExtra(
                        ExtraRequest(url: server.url("/page"), kind: kind, declaredType: type, base: base))
                }
                #expect(error?.kind == .wrongContent, "\(kind) \(type ?? "")")
                if case .notTheExtra(_, let found, let contentType)? = error?.cause {
                    #expect(found == .html && contentType == "text/html")
                } else {
                    Issue.record("not a wrong-content error: \(String(describing: error))")
                }
                #expect(error?.isPermanent == true)
            }
            // JSON, but not chapters.
            let notChapters = await expectDownloadError {
                _ = try await downloader.fetchExtra(ExtraRequest(url: server.url("/json"), kind: .chapters, base: base))
            }
            #expect(notChapters?.kind == .wrongContent)
            #expect(Self.files(directory).isEmpty)
        }
    }

    @Test("a body larger than the limit is refused, whether announced or streamed")
    func oversize() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/big.json",
                TestResponse(
                    headers: [("Content-Type", "application/json")], body: Array(repeating: 0x20, count: 3_000),
                    compressible: false))
            // No Content-Length: the body runs until the server closes, past the limit.
            let head = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nConnection: close\r\n\r\n"
            server.setRoute(
                "/endless",
                TestResponse(fault: .raw(Array(head.utf8) + Self.jpeg + Array(repeating: 0x42, count: 60_000))))
            let base = directory.appendingPathComponent("Ep")
            let announced = await expectDownloadError {
                _ = try await downloader.fetchExtra(
                    ExtraRequest(url: server.url("/big.json"), kind: .chapters, base: base, sizeLimit: 1_000))
            }
            #expect(announced?.kind == .tooLarge)
            let streamed = await expectDownloadError {
                _ = try await downloader.fetchExtra(
                    ExtraRequest(url: server.url("/endless"), kind: .image, base: base, sizeLimit: 20_000))
            }
            #expect(streamed?.kind == .tooLarge, "refused once past the limit, without a length announced")
            #expect(ExtraKind.image.sizeLimit == 20_000_000 && ExtraKind.chapters.sizeLimit == 5_000_000)
            #expect(Self.files(directory).isEmpty)
        }
    }

    @Test("a body the server cuts short leaves nothing, not even a .part")
    func truncated() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute(
                "/c.json",
                TestResponse(
                    headers: [("Content-Type", "application/json")], body: Array(Self.chapters.utf8),
                    fault: .shortBody(afterBytes: 20), compressible: false))
            let error = await expectDownloadError {
                _ = try await downloader.fetchExtra(
                    ExtraRequest(
                        url: server.url("/c.json"), kind: .chapters, base: directory.appendingPathComponent("Ep")))
            }
            #expect(error?.kind == .shortBody)
            #expect(error?.isPermanent == false)
            #expect(Self.files(directory).isEmpty)
        }
    }

    @Test("a file already under the final name, not podfresh's, is never replaced")
    func neverReplacesAFile() async throws {
        try await withDownloadSetup { server, downloader, directory in
            server.setRoute("/t.vtt", TestResponse(headers: [("Content-Type", "text/vtt")], text: Self.vtt))
            let mine = directory.appendingPathComponent("Ep.vtt")
            try Data("my own notes".utf8).write(to: mine)
            let error = await expectDownloadError {
                _ = try await downloader.fetchExtra(
                    ExtraRequest(
                        url: server.url("/t.vtt"), kind: .transcript, declaredType: "text/vtt",
                        base: directory.appendingPathComponent("Ep")))
            }
            #expect(error?.kind == .io)
            #expect(contents(mine) == Array("my own notes".utf8))
            #expect(Self.files(directory) == ["Ep.vtt"])
        }
    }

    @Test("transcripts are checked by their declared type")
    func transcriptChecks() throws {
        let url = URL(string: "https://example.com/t")!
        #expect(
            try ExtraContent.check(
                Array(Self.vtt.utf8), kind: .transcript, declaredType: "text/vtt", contentType: nil, url: url) == "vtt")
        #expect(
            try ExtraContent.check(
                Array(Self.srt.utf8), kind: .transcript, declaredType: "application/srt", contentType: nil, url: url)
                == "srt")
        #expect(
            try ExtraContent.check(
                Array(#"{"segments":[]}"#.utf8), kind: .transcript, declaredType: "application/json", contentType: nil,
                url: url) == "json")
        #expect(
            try ExtraContent.check(
                Array("<p>Hello</p>".utf8), kind: .transcript, declaredType: "text/html", contentType: nil, url: url)
                == "html")
        #expect(throws: DownloadError.self) {
            _ = try ExtraContent.check(
                Array(Self.srt.utf8), kind: .transcript, declaredType: "text/vtt", contentType: nil, url: url)
        }
        #expect(throws: DownloadError.self) {
            _ = try ExtraContent.check(
                Array("Hello".utf8), kind: .transcript, declaredType: "application/srt", contentType: nil, url: url)
        }
        #expect(throws: DownloadError.self) {
            _ = try ExtraContent.check(
                Array("{not json".utf8), kind: .transcript, declaredType: "application/json", contentType: nil, url: url
            )
        }
        #expect(try ExtraContent.check(Self.jpeg, kind: .image, declaredType: nil, contentType: nil, url: url) == "jpg")
    }
}
