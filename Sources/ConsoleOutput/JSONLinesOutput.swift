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

    func batchStarted(total: Int) {
        emit([("event", .string("batch_started")), ("total", .int(total))])
    }

    func feedStarted(_ feed: FeedTarget) {
        emit([("event", .string("feed_started"))] + EventJSON.feedFields(feed))
    }

    func refreshed(_ outcome: RefreshOutcome) {
        emit(
            [("event", .string("feed_refreshed"))] + EventJSON.feedFields(outcome.feed)
                + EventJSON.outcomeFields(outcome))
    }

    func newEpisode(_ episode: EpisodeAnnouncement, of feed: FeedTarget) {
        emit([("event", .string("new_episode"))] + EventJSON.episodeFields(episode, feedTitle: feed.title))
    }

    func failed(_ outcome: RefreshOutcome, _ failure: RefreshFailure) {
        emit(
            [("event", .string("feed_failed"))] + EventJSON.feedFields(outcome.feed) + [
                ("kind", .string(failure.kind.rawValue)),
                ("message", .string(failure.message)),
                ("http_status", .int(failure.status)),
                ("next_check", .date(outcome.nextCheckAt)),
            ])
    }

    /// Each failure was already emitted when it happened.
    func failuresConfirmed(_ failed: [RefreshFailed]) {}

    func cancelled(_ feed: FeedTarget) {
        emit([("event", .string("feed_cancelled"))] + EventJSON.feedFields(feed))
    }

    func progressed(_ progress: BatchProgress) {
        emit([
            ("event", .string("progress")), ("finished", .int(progress.finished)), ("total", .int(progress.total)),
            ("running", .int(progress.running.count)), ("new_episodes", .int(progress.newEpisodes)),
            ("failures", .int(progress.failures)),
        ])
    }

    func offline(_ message: String) {
        emit([("event", .string("network_offline")), ("message", .string(message))])
    }

    func finished(_ summary: RefreshSummary) {
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
    }

    func hookFailed(_ feed: FeedTarget, message: String) {
        emit([("event", .string("hook_failed")), ("feed_id", .int(Int(feed.id))), ("message", .string(message))])
    }

    func idle(until next: Date?) {
        emit([("event", .string("idle")), ("next_check", .date(next))])
    }

    func error(_ message: String) {
        err.write("podfresh: \(message)\n")
    }
}
