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

    // The transfer's facts are worded as a feed fetch words them (TransportFailureText), with the media's URL before
    // them and what is left of the `.part` after.

    @Test func aStallNamesTheLimitItsValueAndTheBytesSoFar() {
        let error = DownloadError(
            .transport(
                .transferLimit(
                    .stall, host: "cdn.example", after: .seconds(90), receivedBytes: 20_000, expectedBytes: 50_000,
                    minimumRate: nil)),
            url: url)
        #expect(error.kind == .stalled && error.limit == .stall)
        #expect(
            DownloadFailureText.line(error)
                == "https://cdn.example/ep.mp3: cdn.example stopped sending: no byte for 1m 30s (stall limit; got 20000 "
                + "of 50000 bytes); the .part is kept to resume")
    }

    @Test func theMinimumRateIsWordedInTheOneSizeStyle() {
        let error = DownloadError(
            .transport(
                .transferLimit(
                    .minimumRate, host: "cdn.example", after: .seconds(30), receivedBytes: 10, expectedBytes: nil,
                    minimumRate: 50_000)),
            url: url)
        #expect(error.kind == .tooSlow && error.limit == .minimumRate)
        #expect(
            DownloadFailureText.line(error)
                == "https://cdn.example/ep.mp3: cdn.example sends too slowly: under 50 kB/s over 30s (minimum-rate "
                + "limit; got 10 bytes); the .part is kept to resume")
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
            .shortBody(received: 10, total: 20, cutBy: .transport(.connectionReset(host: "cdn.example"))), url: url)
        #expect(
            DownloadFailureText.line(error)
                == "https://cdn.example/ep.mp3: the body ended early: got 10 of 20 bytes (https://cdn.example/ep.mp3: "
                + "the connection to cdn.example was reset); the .part is kept to resume")
    }

    @Test func aBodyCutByTheServerNamesTheHostAndTheBytesWithAndWithoutALength() {
        func cut(_ received: Int64, of expected: Int64?) -> DownloadError {
            DownloadError(
                .transport(.closedBeforeEnd(host: "cdn.example", receivedBytes: received, expectedBytes: expected)),
                url: url)
        }
        #expect(cut(150_000, of: 400_000).kind == .shortBody && !cut(150_000, of: 400_000).isPermanent)
        #expect(
            DownloadFailureText.line(cut(150_000, of: 400_000))
                == "https://cdn.example/ep.mp3: cdn.example closed the connection before the episode's end arrived (got "
                + "150000 of 400000 bytes); the .part is kept to resume")
        #expect(
            DownloadFailureText.line(cut(30_010, of: nil))
                == "https://cdn.example/ep.mp3: cdn.example closed the connection before the episode's end arrived (got "
                + "30010 bytes); the .part is kept to resume")
        #expect(
            DownloadFailureText.line(cut(0, of: 10))
                == "https://cdn.example/ep.mp3: cdn.example closed the connection before the episode's end arrived (got "
                + "0 of 10 bytes)")
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
