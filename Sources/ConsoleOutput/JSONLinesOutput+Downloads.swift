import EpisodeDownloads
import FeedModels
import FeedParsing
import Foundation
import RefreshEngine

extension JSONLinesOutput {
    /// The objects of the download events, one case each.
    func drawDownload(_ event: DownloadEvent) {
        switch event {
        case .queued(let count):
            emit([("event", .string("downloads_queued")), ("count", .int(count))])
        case .started(let target):
            emit([("event", .string("download_started"))] + EventJSON.downloadFields(target))
        case .progressed(let report):
            emit(
                [("event", .string("download_progress"))] + EventJSON.downloadFields(report.target) + [
                    ("bytes", .int(Int(clamping: report.receivedBytes))),
                    ("total_bytes", report.expectedBytes.map { .int(Int(clamping: $0)) } ?? .null),
                    ("resumed_from", .int(Int(clamping: report.resumedFrom))),
                    ("bytes_per_second", .number(report.bytesPerSecond.rounded())),
                    ("seconds_left", .number(report.secondsLeft.map { ($0 * 10).rounded() / 10 })),
                ])
        // The `where` binds to the second pattern only: a completed download, or a "failed" one without a failure.
        case .completed(let outcome),
            .failed(let outcome) where outcome.failure == nil:
            var fields: [(String, JSONValue)] = [("event", .string("download_completed"))]
            fields += EventJSON.downloadFields(outcome.target)
            if case .completed(let bytes, let resumedFrom) = outcome.result {
                fields += [
                    ("bytes", .int(Int(clamping: bytes))), ("resumed_from", .int(Int(clamping: resumedFrom))),
                ]
            }
            fields.append(("duration_seconds", .number((outcome.seconds * 1000).rounded() / 1000)))
            if let container = outcome.container { fields.append(("container", .string(container.rawValue))) }
            emit(fields)
        case .failed(let outcome):
            let failure = outcome.failure
            emit(
                [("event", .string("download_failed"))] + EventJSON.downloadFields(outcome.target) + [
                    ("kind", .string(failure?.kind)), ("message", .string(failure.map(DownloadFailureText.line))),
                    ("http_status", .int(failure?.status)), ("part_kept", .bool(failure?.partKept ?? false)),
                    ("permanent", .bool(failure?.permanent ?? false)), ("failures", .int(failure?.failures ?? 0)),
                    ("retry_after", .date(failure?.retryAfter)), ("repeated", .bool(failure?.isRepeat ?? false)),
                ])
        case .removed(let removal):
            emit([
                ("event", .string("download_removed")), ("feed_id", .int(Int(removal.feed.id))),
                ("id", .string(removal.episodeKey)), ("file", .string(removal.file)),
                ("keep", .int(removal.keepNewest)), ("reason", .string(removal.reason.rawValue)),
            ])
        case .skipped(let target, let skip):
            emit(
                [("event", .string("download_skipped"))] + EventJSON.downloadFields(target) + [
                    ("reason", .string(DownloadText.reason(skip))), ("retry_after", .date(Self.retryAfter(skip))),
                    ("kind", .string(DownloadText.skipKind(skip))),
                ])
        case .extraSaved(let outcome), .extraFailed(let outcome):
            emit(ExtraText.json(outcome))
        case .tagged(let outcome):
            emit(TagText.json(outcome))
        case .olderLeftOut(let feed, let count, let since):
            emit([
                ("event", .string("download_older_left_out")), ("feed_id", .int(Int(feed.id))),
                ("count", .int(count)), ("downloads_since", .date(since)),
            ])
        case .filtered(let feed, let counts):
            emit([
                ("event", .string("download_filtered")), ("feed_id", .int(Int(feed.id))),
                ("count", .int(counts.total)), ("not_included", .int(counts.notIncluded)),
                ("excluded", .int(counts.excluded)), ("too_short", .int(counts.tooShort)),
            ])
        case .problem(let feed, let problem):
            emit([
                ("event", .string("download_problem")), ("feed_id", .int(Int(feed.id))),
                ("message", .string(DownloadFailureText.problem(problem))),
            ])
        case .finished(let summary):
            let seconds = summary.endedAt.timeIntervalSince(summary.startedAt)
            emit([
                ("event", .string("downloads_completed")),
                ("downloaded", .int(summary.completedCount)),
                ("failed", .int(summary.failedCount)),
                ("bytes", .int(Int(clamping: summary.bytesDownloaded))),
                ("removed", .int(summary.removed)),
                ("deleted_by_user", .int(summary.deletedByUser)),
                ("without_media", .int(summary.withoutMedia)),
                ("cancelled", .bool(summary.wasCancelled)),
                ("duration_seconds", .number((seconds * 1000).rounded() / 1000)),
                ("waiting", .int(summary.waiting)), ("elsewhere", .int(summary.elsewhere)),
                ("filtered_out", .int(summary.filteredOut)),
                ("extras_saved", .int(summary.extrasSaved)), ("extras_failed", .int(summary.extrasFailed)),
                ("tags_written", .int(summary.tagsWritten)), ("tags_failed", .int(summary.tagsFailed)),
                ("not_taggable", .int(summary.tagsNotTaggable)),
            ])
        }
    }

    /// When a skipped download is tried again, for one waiting after a broken link.
    static func retryAfter(_ skip: DownloadSkip) -> Date? {
        if case .waiting(let retryAfter, _, _) = skip { return retryAfter }
        return nil
    }
}
