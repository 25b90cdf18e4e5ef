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

    func emit(_ fields: [(String, JSONValue)]) {
        out.write(JSONValue.object(fields).serialized() + "\n")
    }

    /// Every event has its object here, one case each: the switches are exhaustive, so a new event gets its keys.
    func draw(_ event: EngineEvent) {
        switch event {
        case .fetch(let event): drawFetch(event)
        case .download(let event): drawDownload(event)
        case .hookFailed(let feed, let failure):
            emit([
                ("event", .string("hook_failed")), ("feed_id", .int(Int(feed.id))),
                ("message", .string(EventText.hookFailure(failure))),
            ])
        case .podping(let event): emit(PodpingText.json(event))
        case .sync(let event): emit(SyncText.json(event))
        case .idle(let next): emit([("event", .string("idle")), ("next_check", .date(next))])
        case .checking(let feeds): emit([("event", .string("checking")), ("feeds", .int(feeds))])
        }
    }

    private func drawFetch(_ event: DataFetchEvent) {
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
            for episode in outcome.wentLive {
                emit(
                    [("event", .string("went_live"))]
                        + EventJSON.episodeFields(episode, feedTitle: outcome.feed.title))
            }
        case .fetchFailed(let outcome):
            let failure = outcome.failure
            emit(
                [("event", .string("feed_failed"))] + EventJSON.feedFields(outcome.feed) + [
                    ("kind", .string(failure.map { EventJSON.kindName($0.kind.rawValue) })),
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
                ("read_short", .int(summary.outcomes.count(where: \.readShort))),
                ("changed", .int(summary.changedCount)),
                ("unchanged", .int(summary.unchangedCount)),
                ("failed", .int(summary.networkOffline ? 0 : summary.failedCount)),
                ("new_episodes", .int(summary.newEpisodeCount)),
                ("network_offline", .bool(summary.networkOffline)),
                ("cancelled", .bool(summary.wasCancelled)),
                ("duration_seconds", .number((seconds * 1000).rounded() / 1000)),
            ])
        }
    }

    func error(_ message: String) {
        err.write("podfresh: \(message)\n")
    }
}
