import ConsoleOutput
import EpisodeDownloads
import Foundation
import HTTPTransport
import RefreshEngine
import Testing

/// A download failure carries facts (the URL, the limit and its value, byte counts, the document, the encoding);
/// ConsoleOutput alone words them.
struct DownloadFailureTextTests {
    let url = URL(string: "https://cdn.example/ep.mp3")!

    @Test func aStallNamesTheLimitItsValueAndTheBytesSoFar() {
        let error = DownloadError(.stalled(after: .seconds(90), receivedBytes: 20_000, expectedBytes: 50_000), url: url)
        #expect(error.kind == .stalled && error.limit == .stall)
        #expect(
            DownloadFailureText.line(error)
                == "https://cdn.example/ep.mp3: stalled: no byte arrived for 1m 30s (got 20000 of 50000 bytes; the .part "
                + "is kept to resume)")
    }

    @Test func theMinimumRateIsWordedInTheOneSizeStyle() {
        let error = DownloadError(
            .tooSlow(minimumRate: 50_000, over: .seconds(30), receivedBytes: 10, expectedBytes: nil), url: url)
        #expect(error.limit == .minimumRate)
        #expect(
            DownloadFailureText.line(error)
                == "https://cdn.example/ep.mp3: too slow: under the minimum rate of 50 kB/s over 30s (got 10 bytes; the "
                + ".part is kept to resume)")
    }

    @Test func aDocumentInsteadOfMediaSaysWhatCameAndWhatWasAnnounced() {
        let error = DownloadError(
            .notMedia(.html, status: 200, contentType: "text/html", announced: "audio/mpeg"), url: url)
        #expect(error.kind == .notMedia && error.status == 200 && error.isPermanent)
        #expect(
            DownloadFailureText.line(error)
                == "https://cdn.example/ep.mp3: the server sent an HTML page (text/html) where the feed announced "
                + "audio/mpeg (an error page?)")
    }

    @Test func aShortBodyNamesTheNetworkErrorThatCutIt() {
        let error = DownloadError(
            .shortBody(received: 10, total: 20, cutBy: .connectFailed(host: "cdn.example", reason: "Connection reset")),
            url: url)
        #expect(
            DownloadFailureText.line(error)
                == "https://cdn.example/ep.mp3: the body ended early: got 10 of 20 bytes (https://cdn.example/ep.mp3: "
                + "cannot connect to cdn.example: Connection reset); the .part is kept to resume")
    }

    @Test func aBodyCutByTheServerNamesTheHostAndTheBytesWithAndWithoutALength() {
        let cut = DownloadError(
            .closedBeforeEnd(host: "cdn.example", receivedBytes: 150_000, expectedBytes: 400_000), url: url)
        #expect(cut.kind == .shortBody && !cut.isPermanent)
        #expect(
            DownloadFailureText.line(cut)
                == "https://cdn.example/ep.mp3: the body ended early: got 150000 of 400000 bytes before cdn.example "
                + "closed the connection; the .part is kept to resume")
        #expect(
            DownloadFailureText.line(
                DownloadError(
                    .closedBeforeEnd(host: "cdn.example", receivedBytes: 30_010, expectedBytes: nil), url: url))
                == "https://cdn.example/ep.mp3: the body ended early: got 30010 bytes before cdn.example closed the "
                + "connection; the .part is kept to resume")
        #expect(
            DownloadFailureText.line(
                DownloadError(.closedBeforeEnd(host: "cdn.example", receivedBytes: 0, expectedBytes: 10), url: url))
                == "https://cdn.example/ep.mp3: the body ended early: got 0 of 10 bytes before cdn.example closed the "
                + "connection")
    }

    @Test func notEnoughSpaceSaysWhatIsNeededAndWhatIsFree() {
        let error = DownloadError(
            .notEnoughSpace(
                directory: "/srv/podcasts", needed: 2_000_000_000, required: 2_100_000_000, available: 2_080_000_000))
        #expect(
            DownloadFailureText.line(error)
                == "not enough free space in /srv/podcasts: the file needs 2 GB (2.1 GB with the margin), 2.1 GB free")
    }

    @Test func aRecordsStoredFailureIsWordedWhenShownAndOldTextIsShownAsStored() {
        let failure = DownloadFailure(.download(DownloadError(.httpStatus(404, reasonPhrase: "Not Found"), url: url)))
        let stored = failure.storedCause
        #expect(!stored.contains("HTTP 404 Not Found"), "facts are stored, not the sentence")
        #expect(DownloadFailure.cause(stored: stored) == failure.cause)
        #expect(DownloadFailureText.stored(stored) == "https://cdn.example/ep.mp3: HTTP 404 Not Found")
        #expect(
            DownloadFailureText.stored("https://old.example/a.mp3: HTTP 410 Gone")
                == "https://old.example/a.mp3: HTTP 410 Gone")
        #expect(
            DownloadFailureText.line(DownloadFailure(.stopped(url: url, partKept: true)))
                == "https://cdn.example/ep.mp3: stopped before the end; the .part is kept to resume")
    }

    @Test func aDownloadErrorThatEndsACommandReadsAsItsCauseNotAsItsType() {
        let error = DownloadError(.cannotReadFreeSpace(path: "/srv", reason: "Permission denied"))
        #expect(ErrorText.line(error) == "cannot read the free space of /srv: Permission denied")
    }
}
