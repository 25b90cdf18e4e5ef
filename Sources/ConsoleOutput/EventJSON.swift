public import FeedParsing
public import RefreshEngine

/// The keys events have in JSON Lines output, shared with the reports that print the same things.
public enum EventJSON {
    /// The keys an episode has in JSON Lines output (`new_episode` events, and the first keys of
    /// `podfresh episodes --json`).
    public static func episodeFields(_ episode: EpisodeAnnouncement, feedTitle: String?) -> [(String, JSONValue)] {
        [
            ("feed_id", .int(Int(episode.feedID))),
            ("feed_title", .string(feedTitle)),
            ("id", .string(episode.key)),
            ("guid", .string(episode.guid)),
            ("title", .string(episode.title)),
            ("link", .url(episode.link)),
            ("published", .date(episode.published)),
            ("duration", .number(episode.duration)),
            ("enclosure_url", .url(episode.enclosure?.url)),
            ("enclosure_type", .string(episode.enclosure?.type)),
        ]
    }

    /// The keys every `download_*` event starts with.
    static func downloadFields(_ target: DownloadTarget) -> [(String, JSONValue)] {
        [
            ("feed_id", .int(Int(target.feed.id))), ("feed_title", .string(target.feed.title)),
            ("id", .string(target.episodeKey)), ("title", .string(target.title)), ("url", .url(target.url)),
            ("file", .string(target.file.isEmpty ? nil : target.file)),
        ]
    }

    static func feedFields(_ feed: FeedTarget) -> [(String, JSONValue)] {
        [("feed_id", .int(Int(feed.id))), ("url", .url(feed.url)), ("title", .string(feed.title))]
    }

    /// A `feed_refreshed` event's keys after the feed's.
    static func outcomeFields(_ outcome: RefreshOutcome) -> [(String, JSONValue)] {
        [
            ("status", .string(status(of: outcome.result))),
            ("new_episodes", .int(outcome.newEpisodeCount)),
            ("updated_episodes", .int(updatedCount(outcome.result))),
            ("moved_to", .url(outcome.movedTo)),
            ("move_refused", .string(outcome.moveRefused.map(MoveText.refusal))),
            (
                "warnings",
                .array(
                    outcome.warnings.map {
                        .object([("line", .int($0.line)), ("message", .string(ParseWarningText.message($0)))])
                    })
            ),
            ("next_check", .date(outcome.nextCheckAt)),
            ("next_check_reason", .string(outcome.nextCheckReason.map { ScheduleReasonText.line($0) })),
            ("backlog_episodes", .int(outcome.backlogCount)),
            ("read_short", .bool(outcome.readShort)),
            ("body_identical", .bool(outcome.bodyIdentical)),
            ("stored_changes", .bool(outcome.storedChanges)),
            ("ended_early", .bool(outcome.endedEarly)),
        ]
    }

    /// A failure's kind as JSON spells every kind: snake_case (`http_status`, `connection_refused`), as downloads'
    /// kinds and every key are. The store keeps its own stable spelling (`http-status`); only the output changes.
    public static func kindName(_ stored: String) -> String {
        String(stored.map { $0 == "-" ? "_" : $0 })
    }

    static func status(of result: RefreshResult) -> String {
        switch result {
        case .updated: return "updated"
        case .notModified: return "not_modified"
        case .gone: return "gone"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        case .offline: return "offline"
        case .removed: return "removed"
        case .dropped: return "dropped"
        }
    }

    static func updatedCount(_ result: RefreshResult) -> Int {
        if case .updated(_, let count) = result { return count }
        return 0
    }
}
