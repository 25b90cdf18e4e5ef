public import FeedModels
public import Foundation
import Logging
import PostgresNIO

// Episode actions on PostgreSQL (schema version 11): play states in `episode_play`, the outbox in
// `sync_action_outbox`, the cursor in `sync_account.actions_cursor`. The matching rule is ``PulledActionsPlan``'s; in a
// fleet only the worker holding the sync lease pulls and pushes.

extension PostgresFeedStore: EpisodeActionRepository {
    public func applyPulledEpisodeActions(
        _ actions: [EpisodeAction], cursor: Int64, ownDevice: String?, at date: Date
    ) async throws -> PulledActionsSummary {
        let logger = self.logger
        return try await transaction { connection in
            var summary = try await Self.applyActions(
                actions, waitingOf: nil, ownDevice: ownDevice, at: date, on: connection, logger: logger)
            try await connection.query("UPDATE sync_account SET actions_cursor = \(cursor)", logger: logger)
            summary.received = actions.count
            return summary
        }
    }

    public func applyWaitingEpisodeActions(subscriptionID: Int64?, at date: Date) async throws -> PulledActionsSummary {
        let logger = self.logger
        return try await transaction { connection in
            var device: String?
            for try await value in try await connection.query("SELECT device FROM sync_account", logger: logger)
                .decode(String.self)
            {
                device = value
            }
            return try await Self.applyActions(
                [], waitingOf: subscriptionID, ownDevice: device, at: date, on: connection, logger: logger)
        }
    }

    public func waitingEpisodeActions() async throws -> [WaitingEpisodeAction] {
        try await rows("SELECT \(unescaped: Self.waitingColumns) FROM episode_action_waiting ORDER BY id").map(
            Self.waiting(from:))
    }

    static let waitingColumns =
        "id, subscription_id, podcast, episode, guid, action, timestamp, started, position, total, device"

    static func waiting(from row: PostgresRow) throws -> WaitingEpisodeAction {
        let r = RowReader(row)
        return WaitingEpisodeAction(
            id: try r.int64("id") ?? 0, subscriptionID: try r.int64("subscription_id") ?? 0,
            action: EpisodeAction(
                podcast: try r.text("podcast") ?? "", episode: try r.text("episode") ?? "", guid: try r.text("guid"),
                kind: EpisodeActionKind(rawValue: try r.text("action") ?? "") ?? .play,
                timestamp: try r.date("timestamp"), started: try r.integer("started"),
                position: try r.integer("position"), total: try r.integer("total"), device: try r.text("device")))
    }

    /// Matches `actions` after the waiting ones (of feed `subscription`, every feed's when nil), in the caller's
    /// transaction: stores the states that change, lets go of the waiting actions that found their episode, and
    /// keeps the new ones that wait (see the SQLite store's twin).
    private static func applyActions(
        _ actions: [EpisodeAction], waitingOf subscription: Int64?, ownDevice: String?, at date: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> PulledActionsSummary {
        var kept: [WaitingEpisodeAction] = []
        let waitingRows =
            subscription == nil
            ? try await connection.query(
                "SELECT \(unescaped: waitingColumns) FROM episode_action_waiting ORDER BY id FOR UPDATE", logger: logger
            )
            : try await connection.query(
                """
                SELECT \(unescaped: waitingColumns) FROM episode_action_waiting WHERE subscription_id = \(subscription)
                ORDER BY id FOR UPDATE
                """, logger: logger)
        for try await row in waitingRows { kept.append(try waiting(from: row)) }
        if kept.isEmpty && actions.isEmpty { return PulledActionsSummary() }
        let all = kept.map(\.action) + actions
        let named = Array(PulledActionsPlan.feedURLs(of: all))
        var feeds: [String: Int64] = [:]
        for try await (id, url) in try await connection.query(
            "SELECT id, url FROM subscription WHERE url = ANY(\(named))", logger: logger
        ).decode((Int64, String).self) {
            feeds[url] = id
        }
        let ids = Array(Set(feeds.values))
        var media: [EpisodeRef: (guid: String?, urls: [String])] = [:]
        for try await (id, key, guid, url) in try await connection.query(
            """
            SELECT e.subscription_id, e.key, e.guid, j.value ->> 'url'
            FROM episode AS e LEFT JOIN LATERAL jsonb_array_elements(e.enclosures::jsonb) AS j(value) ON true
            WHERE e.subscription_id = ANY(\(ids))
            """, logger: logger
        ).decode((Int64, String, String?, String?).self) {
            let ref = EpisodeRef(subscriptionID: id, episodeKey: key)
            var entry = media[ref] ?? (guid, [])
            if let url { entry.urls.append(FeedURL.normalizedString(url)) }
            media[ref] = entry
        }
        let candidates = media.map { ActionMatchCandidate(ref: $0.key, guid: $0.value.guid, mediaURLs: $0.value.urls) }
        var current: [EpisodeRef: EpisodePlayState] = [:]
        for try await row in try await connection.query(
            "SELECT \(unescaped: playColumns) FROM episode_play WHERE subscription_id = ANY(\(ids)) FOR UPDATE",
            logger: logger)
        {
            let (ref, state) = try playState(from: row)
            current[ref] = state
        }
        let plan = PulledActionsPlan(
            actions: all, feeds: feeds, candidates: candidates, current: current, ownDevice: ownDevice,
            fallbackDate: date)
        if !plan.changes.isEmpty {
            let changes = Array(plan.changes)
            let refs = changes.map(\.key)
            let states = changes.map(\.value)
            try await connection.query(
                """
                INSERT INTO episode_play (\(unescaped: playColumns))
                SELECT * FROM unnest(
                  \(NullableArray.int8(refs.map(\.subscriptionID)))::bigint[],
                  \(NullableArray.text(refs.map(\.episodeKey)))::text[],
                  \(NullableArray.int8(states.map { $0.position.map(Int64.init) }))::bigint[],
                  \(NullableArray.int8(states.map { $0.total.map(Int64.init) }))::bigint[],
                  \(NullableArray.bool(states.map(\.played)))::boolean[],
                  \(NullableArray.float8(states.map { $0.playedAt?.timeIntervalSince1970 }))::float8[],
                  \(NullableArray.text(states.map(\.lastAction.rawValue)))::text[],
                  \(NullableArray.float8(states.map(\.actionAt.timeIntervalSince1970)))::float8[],
                  \(NullableArray.text(states.map(\.device)))::text[])
                ON CONFLICT (subscription_id, episode_key) DO UPDATE SET
                  position = excluded.position, total = excluded.total, played = excluded.played,
                  played_at = excluded.played_at, last_action = excluded.last_action, action_at = excluded.action_at,
                  device = excluded.device
                """, logger: logger)
        }
        let stillWaiting = Set(plan.waitingIndices.map(\.index))
        let gone = kept.enumerated().filter { !stillWaiting.contains($0.offset) }.map(\.element.id)
        if !gone.isEmpty {
            try await connection.query("DELETE FROM episode_action_waiting WHERE id = ANY(\(gone))", logger: logger)
        }
        let fresh = plan.waitingIndices.filter { $0.index >= kept.count }
        if !fresh.isEmpty {
            let a = fresh.map { all[$0.index] }
            try await connection.query(
                """
                INSERT INTO episode_action_waiting (subscription_id, podcast, episode, guid, action, timestamp, started,
                  position, total, device)
                SELECT * FROM unnest(
                  \(NullableArray.int8(fresh.map(\.subscriptionID)))::bigint[],
                  \(NullableArray.text(a.map(\.podcast)))::text[], \(NullableArray.text(a.map(\.episode)))::text[],
                  \(NullableArray.text(a.map(\.guid)))::text[], \(NullableArray.text(a.map(\.kind.rawValue)))::text[],
                  \(NullableArray.float8(a.map { $0.timestamp?.timeIntervalSince1970 }))::float8[],
                  \(NullableArray.int8(a.map { $0.started.map(Int64.init) }))::bigint[],
                  \(NullableArray.int8(a.map { $0.position.map(Int64.init) }))::bigint[],
                  \(NullableArray.int8(a.map { $0.total.map(Int64.init) }))::bigint[],
                  \(NullableArray.text(a.map(\.device)))::text[])
                """, logger: logger)
        }
        var summary = plan.summary
        summary.waiting = fresh.count
        return summary
    }

    public func pendingEpisodeActions(limit: Int) async throws -> [PendingEpisodeAction] {
        try await rows(
            """
            SELECT id, subscription_id, episode_key, podcast, episode, guid, action, timestamp, position, total
            FROM sync_action_outbox
            ORDER BY id LIMIT \(limit)
            """
        ).map { row in
            let r = RowReader(row)
            return PendingEpisodeAction(
                id: try r.int64("id") ?? 0,
                action: EpisodeAction(
                    podcast: try r.text("podcast") ?? "", episode: try r.text("episode") ?? "",
                    guid: try r.text("guid"),
                    kind: EpisodeActionKind(rawValue: try r.text("action") ?? "") ?? .download,
                    timestamp: try r.date("timestamp"), position: try r.integer("position"),
                    total: try r.integer("total")),
                ref: try r.int64("subscription_id").flatMap { id in
                    try r.text("episode_key").map { EpisodeRef(subscriptionID: id, episodeKey: $0) }
                })
        }
    }

    public func pendingEpisodeActionCount() async throws -> Int {
        try await rows("SELECT count(*) AS n FROM sync_action_outbox").first.flatMap { try RowReader($0).integer("n") }
            ?? 0
    }

    public func recordEpisodeActionsPushed(ids: [Int64]) async throws {
        let store = self
        try await transaction { connection in
            try await connection.query("DELETE FROM sync_action_outbox WHERE id = ANY(\(ids))", logger: store.logger)
            return ()
        }
    }

    public func queueEpisodeAction(_ action: EpisodeAction, for ref: EpisodeRef?) async throws {
        _ = try await rows(
            """
            INSERT INTO sync_action_outbox (subscription_id, episode_key, podcast, episode, guid, action, timestamp,
              position, total)
            SELECT \(ref?.subscriptionID), \(ref?.episodeKey), \(action.podcast), \(action.episode), \(action.guid),
              \(action.kind.rawValue), \(action.timestamp?.timeIntervalSince1970 ?? 0), \(action.position.map(Int64.init)),
              \(action.total.map(Int64.init))
            WHERE EXISTS (SELECT 1 FROM sync_account)
            RETURNING id
            """)
    }

    public func playStates(subscriptionID: Int64?) async throws -> [EpisodeRef: EpisodePlayState] {
        let found: [PostgresRow]
        if let subscriptionID {
            found = try await rows(
                "SELECT \(unescaped: Self.playColumns) FROM episode_play WHERE subscription_id = \(subscriptionID)")
        } else {
            found = try await rows("SELECT \(unescaped: Self.playColumns) FROM episode_play")
        }
        var states: [EpisodeRef: EpisodePlayState] = [:]
        for row in found {
            let (ref, state) = try Self.playState(from: row)
            states[ref] = state
        }
        return states
    }

    static let playColumns =
        "subscription_id, episode_key, position, total, played, played_at, last_action, action_at, device"

    static func playState(from row: PostgresRow) throws -> (EpisodeRef, EpisodePlayState) {
        let r = RowReader(row)
        let ref = EpisodeRef(
            subscriptionID: try r.int64("subscription_id") ?? 0, episodeKey: try r.text("episode_key") ?? "")
        let state = EpisodePlayState(
            position: try r.integer("position"), total: try r.integer("total"), played: try r.bool("played") ?? false,
            playedAt: try r.date("played_at"),
            lastAction: EpisodeActionKind(rawValue: try r.text("last_action") ?? "") ?? .play,
            actionAt: try r.date("action_at") ?? Date(timeIntervalSince1970: 0), device: try r.text("device"))
        return (ref, state)
    }

    /// Puts a `download` action for a completed download in the outbox, in the caller's transaction, when sync is
    /// set up (see the SQLite store's twin).
    static func queueDownloadAction(
        _ completion: DownloadCompletion, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO sync_action_outbox (subscription_id, episode_key, podcast, episode, guid, action, timestamp)
            SELECT s.id, e.key, s.url,
              COALESCE(\(completion.episodeURL?.absoluteString), e.enclosures::jsonb -> 0 ->> 'url',
                \(completion.url.absoluteString)),
              e.guid, 'download', \(completion.downloadedAt.timeIntervalSince1970)
            FROM episode AS e JOIN subscription AS s ON s.id = e.subscription_id
            WHERE e.subscription_id = \(completion.subscriptionID) AND e.key = \(completion.episodeKey)
              AND EXISTS (SELECT 1 FROM sync_account)
            """, logger: logger)
    }
}

// Marks made here (`podfresh mark`): the play state, and the action in the outbox when sync is set up.
extension PostgresFeedStore: EpisodeMarkRepository {
    public func markEpisodes(_ marks: [LocalEpisodeMark], at date: Date) async throws -> Int {
        let logger = self.logger
        return try await transaction { connection in
            var changed = 0
            for mark in marks {
                let ref = mark.ref
                var current: EpisodePlayState?
                for try await row in try await connection.query(
                    """
                    SELECT \(unescaped: Self.playColumns) FROM episode_play
                    WHERE subscription_id = \(ref.subscriptionID) AND episode_key = \(ref.episodeKey) FOR UPDATE
                    """, logger: logger)
                {
                    current = try Self.playState(from: row).1
                }
                guard mark.changes(current),
                    let state = EpisodePlayState.after(mark.action, at: date, current: current)
                else { continue }
                try await connection.query(
                    """
                    INSERT INTO episode_play (\(unescaped: Self.playColumns))
                    VALUES (\(ref.subscriptionID), \(ref.episodeKey), \(state.position.map(Int64.init)),
                      \(state.total.map(Int64.init)), \(state.played), \(state.playedAt?.timeIntervalSince1970),
                      \(state.lastAction.rawValue), \(state.actionAt.timeIntervalSince1970), \(state.device))
                    ON CONFLICT (subscription_id, episode_key) DO UPDATE SET
                      position = excluded.position, total = excluded.total, played = excluded.played,
                      played_at = excluded.played_at, last_action = excluded.last_action, action_at = excluded.action_at,
                      device = excluded.device
                    """, logger: logger)
                changed += 1
                let action = mark.action
                guard !action.episode.isEmpty else { continue }
                try await connection.query(
                    """
                    INSERT INTO sync_action_outbox (subscription_id, episode_key, podcast, episode, guid, action,
                      timestamp, position, total)
                    SELECT \(ref.subscriptionID), \(ref.episodeKey), \(action.podcast), \(action.episode),
                      \(action.guid), \(action.kind.rawValue), \((action.timestamp ?? date).timeIntervalSince1970),
                      \(action.position.map(Int64.init)), \(action.total.map(Int64.init))
                    WHERE EXISTS (SELECT 1 FROM sync_account)
                    """, logger: logger)
            }
            return changed
        }
    }
}
