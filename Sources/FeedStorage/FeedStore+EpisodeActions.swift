public import FeedModels
public import Foundation
import GRDB

// Episode actions on SQLite (migration "sync: episode actions"): play states in `episodePlay`, the outbox in
// `syncActionOutbox`, the cursor in `syncAccount.actionsCursor`. The matching rule is ``PulledActionsPlan``'s.

extension FeedStore: EpisodeActionRepository {
    public func applyPulledEpisodeActions(
        _ actions: [EpisodeAction], cursor: Int64, ownDevice: String?, at date: Date
    ) async throws -> PulledActionsSummary {
        try await write { db in
            var summary = try Self.applyActions(actions, waitingOf: nil, ownDevice: ownDevice, at: date, db: db)
            try db.execute(sql: "UPDATE syncAccount SET actionsCursor = ? WHERE singleton = 1", arguments: [cursor])
            summary.received = actions.count
            return summary
        }
    }

    public func applyWaitingEpisodeActions(subscriptionID: Int64?, at date: Date) async throws -> PulledActionsSummary {
        try await write { db in
            let device = try String.fetchOne(db, sql: "SELECT device FROM syncAccount")
            return try Self.applyActions([], waitingOf: subscriptionID, ownDevice: device, at: date, db: db)
        }
    }

    public func waitingEpisodeActions() async throws -> [WaitingEpisodeAction] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM episodeActionWaiting ORDER BY id").map(Self.waiting(from:))
        }
    }

    /// Matches `actions` after the waiting ones (of feed `subscription`, every feed's when nil), in the caller's
    /// transaction: stores the states that change, lets go of the
    /// waiting actions that found their episode, and keeps the new ones that wait. The summary counts the waiting
    /// actions matched again too.
    private static func applyActions(
        _ actions: [EpisodeAction], waitingOf subscription: Int64?, ownDevice: String?, at date: Date, db: Database
    ) throws -> PulledActionsSummary {
        let waiting =
            try subscription.map {
                try Row.fetchAll(
                    db, sql: "SELECT * FROM episodeActionWaiting WHERE subscriptionId = ? ORDER BY id", arguments: [$0])
            } ?? Row.fetchAll(db, sql: "SELECT * FROM episodeActionWaiting ORDER BY id")
        let kept = waiting.map(Self.waiting(from:))
        if kept.isEmpty && actions.isEmpty { return PulledActionsSummary() }
        let all = kept.map(\.action) + actions
        var feeds: [String: Int64] = [:]
        let named = PulledActionsPlan.feedURLs(of: all)
        for row in try Row.fetchAll(db, sql: "SELECT id, url FROM subscription") {
            let url: String = row[1]
            if named.contains(url) { feeds[url] = row[0] }
        }
        let ids = Array(Set(feeds.values)).sorted()
        var candidates: [ActionMatchCandidate] = []
        var current: [EpisodeRef: EpisodePlayState] = [:]
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            let marks = chunk.map { _ in "?" }.joined(separator: ",")
            var media: [EpisodeRef: (guid: String?, urls: [String])] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT e.subscriptionId, e.key, e.guid, json_extract(j.value, '$.url') AS url
                    FROM episode AS e LEFT JOIN json_each(e.enclosures) AS j
                    WHERE e.subscriptionId IN (\(marks))
                    """, arguments: StatementArguments(chunk))
            {
                // By position: a name lookup per column and row costs more than the rest of the matching.
                let ref = EpisodeRef(subscriptionID: row[0], episodeKey: row[1])
                var entry = media[ref] ?? (row[2], [])
                if let url = row[3] as String? { entry.urls.append(FeedURL.normalizedString(url)) }
                media[ref] = entry
            }
            candidates += media.map { ActionMatchCandidate(ref: $0.key, guid: $0.value.guid, mediaURLs: $0.value.urls) }
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM episodePlay WHERE subscriptionId IN (\(marks))",
                arguments: StatementArguments(chunk))
            {
                current[EpisodeRef(subscriptionID: row["subscriptionId"], episodeKey: row["episodeKey"])] =
                    Self.playState(from: row)
            }
        }
        let plan = PulledActionsPlan(
            actions: all, feeds: feeds, candidates: candidates, current: current, ownDevice: ownDevice,
            fallbackDate: date)
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO episodePlay (subscriptionId, episodeKey, position, total, played, playedAt, lastAction,
                  actionAt, device)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (subscriptionId, episodeKey) DO UPDATE SET
                  position = excluded.position, total = excluded.total, played = excluded.played,
                  playedAt = excluded.playedAt, lastAction = excluded.lastAction, actionAt = excluded.actionAt,
                  device = excluded.device
                """)
        for (ref, state) in plan.changes {
            try statement.execute(arguments: [
                ref.subscriptionID, ref.episodeKey, state.position, state.total, state.played,
                state.playedAt?.timeIntervalSince1970, state.lastAction.rawValue, state.actionAt.timeIntervalSince1970,
                state.device,
            ])
        }
        // Waiting actions that found their episode (or whose feed went) leave; new ones that wait are kept.
        let stillWaiting = Set(plan.waitingIndices.map(\.index))
        for (index, entry) in kept.enumerated() where !stillWaiting.contains(index) {
            try db.execute(sql: "DELETE FROM episodeActionWaiting WHERE id = ?", arguments: [entry.id])
        }
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO episodeActionWaiting (subscriptionId, podcast, episode, guid, action, timestamp, started,
                  position, total, device)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for (index, feed) in plan.waitingIndices where index >= kept.count {
            let a = all[index]
            try insert.execute(arguments: [
                feed, a.podcast, a.episode, a.guid, a.kind.rawValue, a.timestamp?.timeIntervalSince1970, a.started,
                a.position, a.total, a.device,
            ])
        }
        var summary = plan.summary
        // What was already waiting is not news: the counts are of the new actions, plus what the waiting ones did.
        summary.waiting = plan.waitingIndices.filter { $0.index >= kept.count }.count
        return summary
    }

    static func waiting(from row: Row) -> WaitingEpisodeAction {
        WaitingEpisodeAction(
            id: row["id"], subscriptionID: row["subscriptionId"],
            action: EpisodeAction(
                podcast: row["podcast"], episode: row["episode"], guid: row["guid"],
                kind: EpisodeActionKind(rawValue: row["action"] ?? "") ?? .play, timestamp: date(row["timestamp"]),
                started: row["started"], position: row["position"], total: row["total"], device: row["device"]))
    }

    public func pendingEpisodeActions(limit: Int) async throws -> [PendingEpisodeAction] {
        try await read { db in
            // By position: a name lookup per column and row costs more than the rest of a push.
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, podcast, episode, guid, action, timestamp, position, total, subscriptionId, episodeKey
                    FROM syncActionOutbox ORDER BY id LIMIT ?
                    """, arguments: [limit]
            ).map { row in
                PendingEpisodeAction(
                    id: row[0],
                    action: EpisodeAction(
                        podcast: row[1], episode: row[2], guid: row[3],
                        kind: EpisodeActionKind(rawValue: row[4]) ?? .download,
                        timestamp: Date(timeIntervalSince1970: row[5]), position: row[6], total: row[7]),
                    ref: (row[8] as Int64?).flatMap { id in
                        (row[9] as String?).map { EpisodeRef(subscriptionID: id, episodeKey: $0) }
                    })
            }
        }
    }

    public func pendingEpisodeActionCount() async throws -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncActionOutbox") ?? 0 }
    }

    public func recordEpisodeActionsPushed(ids: [Int64]) async throws {
        try await write { db in
            let statement = try db.cachedStatement(sql: "DELETE FROM syncActionOutbox WHERE id = ?")
            for id in ids { try statement.execute(arguments: [id]) }
        }
    }

    public func queueEpisodeAction(_ action: EpisodeAction, for ref: EpisodeRef?) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO syncActionOutbox (subscriptionId, episodeKey, podcast, episode, guid, action, timestamp,
                      position, total)
                    SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM syncAccount)
                    """,
                arguments: [
                    ref?.subscriptionID, ref?.episodeKey, action.podcast, action.episode, action.guid,
                    action.kind.rawValue, action.timestamp?.timeIntervalSince1970 ?? 0, action.position,
                    action.total,
                ])
        }
    }

    public func playStates(subscriptionID: Int64?) async throws -> [EpisodeRef: EpisodePlayState] {
        try await read { db in
            let rows =
                try subscriptionID.map {
                    try Row.fetchAll(db, sql: "SELECT * FROM episodePlay WHERE subscriptionId = ?", arguments: [$0])
                } ?? Row.fetchAll(db, sql: "SELECT * FROM episodePlay")
            var states: [EpisodeRef: EpisodePlayState] = [:]
            for row in rows {
                states[EpisodeRef(subscriptionID: row["subscriptionId"], episodeKey: row["episodeKey"])] =
                    Self.playState(from: row)
            }
            return states
        }
    }

    /// Puts a `download` action for a completed download in the outbox, in the caller's transaction, when sync is
    /// set up: the feed's URL, the episode's enclosure URL as the feed gives it (the first enclosure's when the
    /// completion does not say), its guid, and the completion's time.
    static func queueDownloadAction(_ completion: DownloadCompletion, db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO syncActionOutbox (subscriptionId, episodeKey, podcast, episode, guid, action, timestamp)
                SELECT s.id, e.key, s.url, COALESCE(?, json_extract(e.enclosures, '$[0].url'), ?), e.guid, 'download', ?
                FROM episode AS e JOIN subscription AS s ON s.id = e.subscriptionId
                WHERE e.subscriptionId = ? AND e.key = ? AND EXISTS (SELECT 1 FROM syncAccount)
                """,
            arguments: [
                completion.episodeURL?.absoluteString, completion.url.absoluteString,
                completion.downloadedAt.timeIntervalSince1970, completion.subscriptionID, completion.episodeKey,
            ])
    }

    public func exportSync() async throws -> SyncExport? {
        guard let state = try await syncState() else { return nil }
        return SyncExport(
            state: state, knownFeeds: Array(try await knownSyncedFeeds()).sorted(),
            playStates: try await playStates(subscriptionID: nil),
            outbox: try await pendingEpisodeActions(limit: Int.max), waiting: try await waitingEpisodeActions())
    }

    static func playState(from row: Row) -> EpisodePlayState {
        EpisodePlayState(
            position: row["position"], total: row["total"], played: row["played"] ?? false,
            playedAt: date(row["playedAt"]),
            lastAction: EpisodeActionKind(rawValue: row["lastAction"] ?? "") ?? .play,
            actionAt: Date(timeIntervalSince1970: row["actionAt"] ?? 0), device: row["device"])
    }
}

// Marks made here (`podfresh mark`): the play state, and the action in the outbox when sync is set up.
extension FeedStore: EpisodeMarkRepository {
    public func markEpisodes(_ marks: [LocalEpisodeMark], at date: Date) async throws -> Int {
        try await write { db in
            let read = try db.cachedStatement(
                sql: "SELECT * FROM episodePlay WHERE subscriptionId = ? AND episodeKey = ?")
            let store = try db.cachedStatement(
                sql: """
                    INSERT INTO episodePlay (subscriptionId, episodeKey, position, total, played, playedAt, lastAction,
                      actionAt, device)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (subscriptionId, episodeKey) DO UPDATE SET
                      position = excluded.position, total = excluded.total, played = excluded.played,
                      playedAt = excluded.playedAt, lastAction = excluded.lastAction, actionAt = excluded.actionAt,
                      device = excluded.device
                    """)
            let queue = try db.cachedStatement(
                sql: """
                    INSERT INTO syncActionOutbox (subscriptionId, episodeKey, podcast, episode, guid, action, timestamp,
                      position, total)
                    SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM syncAccount)
                    """)
            var changed = 0
            for mark in marks {
                let ref = mark.ref
                let current = try Row.fetchOne(read, arguments: [ref.subscriptionID, ref.episodeKey]).map(
                    Self.playState(from:))
                guard mark.changes(current),
                    let state = EpisodePlayState.after(mark.action, at: date, current: current)
                else { continue }
                try store.execute(arguments: [
                    ref.subscriptionID, ref.episodeKey, state.position, state.total, state.played,
                    state.playedAt?.timeIntervalSince1970, state.lastAction.rawValue,
                    state.actionAt.timeIntervalSince1970, state.device,
                ])
                changed += 1
                let action = mark.action
                guard !action.episode.isEmpty else { continue }
                try queue.execute(arguments: [
                    ref.subscriptionID, ref.episodeKey, action.podcast, action.episode, action.guid,
                    action.kind.rawValue, (action.timestamp ?? date).timeIntervalSince1970, action.position,
                    action.total,
                ])
            }
            return changed
        }
    }
}
