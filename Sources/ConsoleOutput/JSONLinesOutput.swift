import EpisodeDownloads
import FeedParsing
import Foundation
import RefreshEngine

/// `--json`: one JSON object per line for every event and every new episode (the keys are in the README); messages
/// outside any feed go to standard error as text.
final class JSONLinesOutput: OutputStyle {
    private let out: any TextSink
    private let err: any TextSink

    init(out: any TextSink, err: any TextSink) {
        self.out = out
        self.err = err
    }

    private func emit(_ fields: [(String, JSONValue)]) {
        out.write(JSONValue.object(fields).serialized() + "\n")
    }

    /// Every event has its object here, one case each: the switch is exhaustive, so a new event gets its keys.
    func draw(_ event: DataFetchEvent) {
        switch event {
        case .batchStarted(let total):
            emit([("event", .string("batch_started")), ("total", .int(total))])
        case .fetchStarted(let feed):
            emit([("event", .string("feed_started"))] + EventJSON.feedFields(feed))
        // The `where` binds to the second pattern only: a finished feed, or a "failed" one without a failure.
        case .fetchCompleted(let outcome),
            .fetchFailed(let outcome) where outcome.failure == nil:
            emit(
                [("event", .string("feed_refreshed"))] + EventJSON.feedFields(outcome.feed)
                    + EventJSON.outcomeFields(outcome))
            for episode in outcome.newEpisodes {
                emit(
                    [("event", .string("new_episode"))]
                        + EventJSON.episodeFields(episode, feedTitle: outcome.feed.title))
            }
        case .fetchFailed(let outcome):
            let failure = outcome.failure
            emit(
                [("event", .string("feed_failed"))] + EventJSON.feedFields(outcome.feed) + [
                    ("kind", .string(failure?.kind.rawValue)),
                    ("message", .string(failure.map(FeedFailureText.line))),
                    ("http_status", .int(failure?.status)),
                    ("next_check", .date(outcome.nextCheckAt)),
                ])
        case .failuresConfirmed:
            break  // Each failure was already emitted when it happened.
        case .fetchCancelled(let feed):
            emit([("event", .string("feed_cancelled"))] + EventJSON.feedFields(feed))
        case .batchProgress(let progress):
            emit([
                ("event", .string("progress")), ("finished", .int(progress.finished)), ("total", .int(progress.total)),
                ("running", .int(progress.running.count)), ("new_episodes", .int(progress.newEpisodes)),
                ("failures", .int(progress.failures)),
            ])
        case .networkOffline(let fetches):
            let message = EventText.offline(fetches: fetches)
            emit([("event", .string("network_offline")), ("message", .string(message))])
        case .batchCompleted(let summary):
            let seconds = summary.endedAt.timeIntervalSince(summary.startedAt)
            emit([
                ("event", .string("batch_completed")),
                ("feeds", .int(summary.outcomes.count)),
                ("updated", .int(summary.updatedCount)),
                ("not_modified", .int(summary.notModifiedCount)),
                ("failed", .int(summary.networkOffline ? 0 : summary.failedCount)),
                ("new_episodes", .int(summary.newEpisodeCount)),
                ("network_offline", .bool(summary.networkOffline)),
                ("cancelled", .bool(summary.wasCancelled)),
                ("duration_seconds", .number((seconds * 1000).rounded() / 1000)),
            ])
        case .hookFailed(let feed, let failure):
            emit([
                ("event", .string("hook_failed")), ("feed_id", .int(Int(feed.id))),
                ("message", .string(EventText.hookFailure(failure))),
            ])
        case .idle(let next):
            emit([("event", .string("idle")), ("next_check", .date(next))])
        case .downloadsQueued(let count):
            emit([("event", .string("downloads_queued")), ("count", .int(count))])
        case .downloadStarted(let target):
            emit([("event", .string("download_started"))] + EventJSON.downloadFields(target))
        case .downloadProgressed(let report):
            emit(
                [("event", .string("download_progress"))] + EventJSON.downloadFields(report.target) + [
                    ("bytes", .int(Int(clamping: report.receivedBytes))),
                    ("total_bytes", report.expectedBytes.map { .int(Int(clamping: $0)) } ?? .null),
                    ("resumed_from", .int(Int(clamping: report.resumedFrom))),
                    ("bytes_per_second", .number(report.bytesPerSecond.rounded())),
                    ("seconds_left", .number(report.secondsLeft.map { ($0 * 10).rounded() / 10 })),
                ])
        // The `where` binds to the second pattern only: a completed download, or a "failed" one without a failure.
        case .downloadCompleted(let outcome),
            .downloadFailed(let outcome) where outcome.failure == nil:
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
        case .downloadFailed(let outcome):
            let failure = outcome.failure
            emit(
                [("event", .string("download_failed"))] + EventJSON.downloadFields(outcome.target) + [
                    ("kind", .string(failure?.kind)), ("message", .string(failure.map(DownloadFailureText.line))),
                    ("http_status", .int(failure?.status)), ("part_kept", .bool(failure?.partKept ?? false)),
                    ("permanent", .bool(failure?.permanent ?? false)), ("failures", .int(failure?.failures ?? 0)),
                    ("retry_after", .date(failure?.retryAfter)), ("repeated", .bool(failure?.isRepeat ?? false)),
                ])
        case .downloadRemoved(let removal):
            emit([
                ("event", .string("download_removed")), ("feed_id", .int(Int(removal.feed.id))),
                ("id", .string(removal.episodeKey)), ("file", .string(removal.file)),
                ("keep", .int(removal.keepNewest)), ("reason", .string(removal.reason.rawValue)),
            ])
        case .downloadSkipped(let target, let skip):
            emit(
                [("event", .string("download_skipped"))] + EventJSON.downloadFields(target) + [
                    ("reason", .string(DownloadText.reason(skip))), ("retry_after", .date(Self.retryAfter(skip))),
                    ("kind", .string(DownloadText.skipKind(skip))),
                ])
        case .downloadProblem(let feed, let problem):
            emit([
                ("event", .string("download_problem")), ("feed_id", .int(Int(feed.id))),
                ("message", .string(DownloadFailureText.problem(problem))),
            ])
        case .downloadsFinished(let summary):
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
            ])
        case .podping(let event):
            emit(PodpingText.json(event))
        case .sync(let event):
            emit(SyncText.json(event))
        }
    }

    /// When a skipped download is tried again, for one waiting after a broken link.
    private static func retryAfter(_ skip: DownloadSkip) -> Date? {
        if case .waiting(let retryAfter, _, _) = skip { return retryAfter }
        return nil
    }

    func error(_ message: String) {
        err.write("podfresh: \(message)\n")
    }
}
