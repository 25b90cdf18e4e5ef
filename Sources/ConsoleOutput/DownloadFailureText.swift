public import EpisodeDownloads
import FeedModels
import Foundation
import HTTPTransport
import Measures
public import RefreshEngine

/// How the cause of a failed download reads: the one place its sentences are written, from ``DownloadError``'s and
/// ``DownloadFailure``'s typed facts. Durations and byte counts are in `Measure`'s style.
public enum DownloadFailureText {
    /// One line for a failed download (without the remedy: ``DownloadText`` adds that).
    public static func line(_ failure: DownloadFailure) -> String {
        line(failure.cause)
    }

    /// One line for a download failure's cause.
    public static func line(_ cause: DownloadFailure.Cause) -> String {
        switch cause {
        case .download(let error): line(error)
        case .notRecorded(let error): "the download was not recorded: \(StoreErrorText.line(error))"
        case .stopped(let url, let partKept):
            "\(url.absoluteString): stopped before the end" + (partKept ? "; the .part is kept to resume" : "")
        case .unexpected(let url, let reason): "\(url.absoluteString): \(reason)"
        }
    }

    /// A download record's last failure as stored (``DownloadFailure/storedCause``), worded; text an older podfresh
    /// stored is shown as it was.
    public static func stored(_ text: String?) -> String? {
        guard let text else { return nil }
        return DownloadFailure.cause(stored: text).map(line) ?? text
    }

    /// One line for `error`: the URL (or the path) and the cause.
    public static func line(_ error: DownloadError) -> String {
        let url = error.url?.absoluteString ?? ""
        let at = error.url.map { $0.absoluteString + ": " } ?? ""
        return switch error.cause {
        case .notHTTPURL: "\(url) is not an http or https URL"
        case .httpStatus(let status, let phrase):
            at + "HTTP \(status) \(phrase)" + ((400...599).contains(status) ? "" : ", not a media file")
        case .partialAnswer: at + "HTTP 206 with a part of the file to a request for all of it"
        case .undecodedEncoding(let encoding):
            at + "the server sent the media in the \(encoding) encoding, which podfresh does not decode (it asked "
                + "for the bytes as they are)"
        case .emptyBody(let status, let contentType):
            at + "the server answered HTTP \(status) with an empty body" + (contentType.map { " (\($0))" } ?? "")
                + ", not the episode"
        case .hlsLive:
            at + "an HLS live stream (its playlist has no #EXT-X-ENDLIST): a live stream is not downloaded; it is "
                + "tried again later, and saved once the playlist is complete"
        case .hlsEncrypted(let method):
            at + "the HLS episode is encrypted (\(method)): podfresh does not decrypt HLS segments, so it is not saved"
        case .hlsUnsupported(let detail):
            at + "the HLS episode cannot be saved as one file: \(detail)"
        case .hlsDurationMismatch(let playlist, let declared, let tolerance):
            at
                + "the HLS playlist lasts \(ParseSummary.clock(playlist)) but the feed says the episode lasts \(ParseSummary.clock(declared)) "
                + "(itunes:duration), more than the \(ParseSummary.clock(tolerance)) allowed apart: not saved as the episode"
        case .notMedia(.playlist, _, let contentType, _):
            at + "the server sent an HLS playlist\(contentType.map { " (\($0))" } ?? ""), not a media file: "
                + "podfresh does not assemble HLS episodes from their segments, and never saves a playlist as the episode"
        case .notMedia(let document, _, let contentType, let announced):
            at + "the server sent \(documentName(document))\(contentType.map { " (\($0))" } ?? "") where the feed "
                + "announced \(announced ?? "media") (an error page?)"
        case .shortBody(let received, let total, let cutBy):
            at + "the body ended early: got \(received) of \(total) bytes"
                + (cutBy.map { " (" + line(DownloadError($0, url: error.url)) + ")" } ?? "")
                + "; the .part is kept to resume"
        case .tooManyRedirects(let max): at + "more than \(max) redirects"
        case .redirectCycle: at + "the redirects go round in a circle"
        case .transport(let failure): at + TransportFailureText.line(failure, of: .media) + partNote(failure)
        case .cannotCreateFolder(let path, let reason): "cannot create the folder \(path): \(reason)"
        case .fileFailed(let operation, let path, let reason, let diskFull):
            diskFull
                ? at + "the disk filled up: cannot \(operation.rawValue) \(path): \(reason); the partial file is "
                    + "removed to give the space back"
                : "cannot \(operation.rawValue) \(path): \(reason)"
        case .cannotRename(let path, let name, let reason): "cannot rename \(path) to \(name): \(reason)"
        case .cannotSyncFolder(let path, let reason): "cannot sync the folder \(path): \(reason)"
        case .cannotRemove(let path, let reason): "cannot remove \(path): \(reason)"
        case .cannotReadFreeSpace(let path, let reason): "cannot read the free space of \(path): \(reason)"
        case .notEnoughSpace(let directory, let needed, let required, let available):
            at + "not enough free space in \(directory): the file needs \(Measure.bytes(needed)) "
                + "(\(Measure.bytes(required)) with the margin), \(Measure.bytes(available)) free"
        case .nameLeavesFolder(let file, let folder): "the file name \(file) would leave the download folder \(folder)"
        case .tooLarge(let limit, let received):
            at + "larger than the \(Measure.bytes(limit)) allowed"
                + (received > limit ? " (\(Measure.bytes(received)) announced or received)" : "")
        case .notTheExtra(let expected, let found, let contentType):
            at + "not \(expected): the server sent "
                + (found.map(documentName) ?? "something else") + (contentType.map { " (\($0))" } ?? "")
        }
    }

    /// A problem with a feed's downloads outside any one download.
    public static func problem(_ problem: DownloadProblem) -> String {
        switch problem {
        case .notStarted(let error): "downloads not started: \(StoreErrorText.line(error))"
        case .cannotDelete(let path, let keep, let reason):
            "cannot delete \(path) (past the newest \(keep) kept): \(reason)"
        case .retentionNotApplied(let keep, let error):
            "retention (keep \(keep)) not applied: \(StoreErrorText.line(error))"
        case .cannotDeletePlayed(let path, let reason):
            "cannot delete \(path) (played to the end; --delete-played is on): \(reason)"
        case .playedNotDeleted(let error):
            "played episodes' files not deleted (--delete-played): \(StoreErrorText.line(error))"
        case .badFilter(let pattern, let reason):
            "nothing downloaded: the filter \"\(pattern)\" \(reason); change it with `podfresh set FEED --include` or "
                + "`--exclude`, or `--clear-filters`"
        }
    }

    /// What is left of a download the transfer's `failure` ended: the `.part` is kept, to resume, when bytes came
    /// and the body was cut (a stall, a trickle, a connection closed early).
    private static func partNote(_ failure: TransportFailure) -> String {
        switch failure {
        case .transferLimit(.stall, _, _, _, _, _), .transferLimit(.minimumRate, _, _, _, _, _):
            "; the .part is kept to resume"
        case .closedBeforeEnd(_, let received, _) where received > 0: "; the .part is kept to resume"
        default: ""
        }
    }

    /// What came instead of the media, as people call it.
    private static func documentName(_ document: DocumentKind) -> String {
        switch document {
        case .html: "an HTML page"
        case .json: "a JSON document"
        case .xml: "an XML document"
        case .text: "text"
        case .playlist: "an HLS playlist"
        }
    }
}
