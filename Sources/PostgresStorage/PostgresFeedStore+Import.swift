public import FeedModels
import Foundation
import Logging
import PostgresNIO

/// The target already holds subscriptions and the copy was not asked to merge into them: nothing was written.
public struct MigrationRefusedError: Error, Hashable, CustomStringConvertible {
    /// The database that was not written.
    public let target: PostgresLocation
    /// How many subscriptions it holds.
    public let subscriptionCount: Int

    /// A refusal for `target`, which holds `subscriptionCount` subscriptions.
    public init(target: PostgresLocation, subscriptionCount: Int) {
        self.target = target
        self.subscriptionCount = subscriptionCount
    }

    /// For logs and debugging only; ConsoleOutput words it for users (`MigrationReport.targetNotEmpty`).
    public var description: String { "MigrationRefusedError(\(target), subscriptions: \(subscriptionCount))" }
}

extension PostgresFeedStore {
    /// Copies every subscription, episode, refresh run and download record of an SQLite store into this database, in
    /// one transaction.
    ///
    /// The source is only read, a page of `batchSize` rows at a time (rows added to it while copying are left out),
    /// and each page is written with one multi-row `INSERT` of bound values. The four tables are locked against
    /// other writers (`EXCLUSIVE`: readers go on) for the copy, so what the copy sees stays true until it commits.
    ///
    /// - Into a database without subscriptions, every row keeps its id (runs too when the target has no runs), and the
    ///   `bigserial` sequences are moved past them, so episode → subscription and episode → first run links hold.
    /// - With `merge`, a subscription whose normalised URL the target already has maps to the target's row, which
    ///   keeps its state; the others get new ids. Episodes the target already has (same subscription, same key) are
    ///   left as they are. Runs are appended with new ids, and episodes' first runs follow them; a run the target
    ///   already has (same start, end and counts: the same copy merged again) is not appended twice. A download
    ///   record the target already has (same subscription, same episode key) is left as it is.
    /// - Either way, a download record goes with its episode: under the subscription its episode was copied to.
    ///
    /// Before it commits, the copy checks its counts: every row the source held when the copy began was read, and
    /// every one was either copied or already present in the target, whose tables grew by exactly the rows copied.
    /// Any difference rolls everything back.
    ///
    /// - Parameters:
    ///   - source: The store to copy: the SQLite store (open it with `FeedStore.openForReading(path:)` to be sure it is
    ///     never written).
    ///   - merge: Whether to merge into a target that already holds subscriptions.
    ///   - batchSize: Rows per page read and per `INSERT` (at most 1500: a subscription row binds 35 values, and
    ///     PostgreSQL takes 65 535 bound values in one statement).
    ///   - syncPassword: The sync password kept beside the SQLite file, moved into this database with the set-up.
    ///
    /// The sync set-up goes too (in the same transaction), with its cursors, the list the server is known to hold,
    /// the play states, the outbox of actions to push and the actions waiting for their episode, so the next sync
    /// here goes on where the SQLite store's left off; unless this database has a set-up of its own, which it keeps.
    /// - Returns: What was copied and what was already present.
    /// - Throws: ``MigrationRefusedError`` when the target holds subscriptions and `merge` is false (nothing
    ///   written); ``StoreError`` `.database` when the counts do not check out (naming them), or for any error of
    ///   either database. Whatever is thrown, the target is left as it was.
    public func importStore(
        _ source: any ExportableStore, merge: Bool, batchSize: Int = 500, syncPassword: String? = nil
    ) async throws -> MigrationSummary {
        let importer = StoreImporter(
            source: source, merge: merge, batchSize: max(1, min(batchSize, 1500)), location: location,
            logger: logger, syncPassword: syncPassword)
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await importer.run(on: connection)
            }
        } catch let error as PostgresTransactionError {
            if let refusal = error.closureError as? MigrationRefusedError { throw refusal }
            throw Self.storeError(error, location: location)
        } catch {
            throw Self.storeError(error, location: location)
        }
    }
}

/// One copy of an SQLite store into PostgreSQL, on one connection inside one transaction.
private struct StoreImporter: Sendable {
    let source: any ExportableStore
    let merge: Bool
    let batchSize: Int
    let location: PostgresLocation
    let logger: Logger
    let syncPassword: String?

    /// Rows in each of the four tables.
    typealias TableCounts = StoreError.TableCounts

    func run(on connection: PostgresConnection) async throws -> MigrationSummary {
        // Wait at most 30 s for other writers (fleet workers) to finish, then hold them off until the commit.
        try await connection.query("SET LOCAL lock_timeout = '30s'", logger: logger)
        try await connection.query(
            "LOCK TABLE subscription, episode, refresh_run, download IN EXCLUSIVE MODE", logger: logger)
        let before = try await counts(on: connection)
        if before.subscriptions > 0, !merge {
            throw MigrationRefusedError(target: location, subscriptionCount: before.subscriptions)
        }
        let bounds = try await source.exportBounds()
        // A target without subscriptions has no episodes either (every episode belongs to one).
        let keepSubscriptionIDs = before.subscriptions == 0
        let keepRunIDs = before.runs == 0

        var subscriptions = MigrationSummary.Counts(source: bounds.subscriptions)
        var subscriptionIDs: [Int64: Int64] = [:]
        var read = TableCounts(subscriptions: 0, episodes: 0, runs: 0, downloads: 0)
        var after: Int64 = 0
        while true {
            let page = try await source.exportSubscriptions(
                after: after, through: bounds.lastSubscriptionID, limit: batchSize)
            guard let last = page.last else { break }
            after = last.id
            read.subscriptions += page.count
            let inserted = try await copySubscriptions(
                page, keepingIDs: keepSubscriptionIDs, into: &subscriptionIDs, on: connection)
            subscriptions.copied += inserted
            subscriptions.alreadyPresent += page.count - inserted
        }

        var runs = MigrationSummary.Counts(source: bounds.runs)
        var runIDs: [Int64: Int64] = [:]
        after = 0
        while true {
            let page = try await source.exportRuns(after: after, through: bounds.lastRunID, limit: batchSize)
            guard let last = page.last else { break }
            after = last.id
            read.runs += page.count
            let inserted = try await copyRuns(page, keepingIDs: keepRunIDs, into: &runIDs, on: connection)
            runs.copied += inserted
            runs.alreadyPresent += page.count - inserted
        }

        var episodes = MigrationSummary.Counts(source: bounds.episodes)
        after = 0
        while true {
            let page = try await source.exportEpisodes(after: after, through: bounds.lastEpisodeID, limit: batchSize)
            guard let last = page.last else { break }
            after = last.id
            read.episodes += page.count
            let inserted = try await copyEpisodes(
                page, keepingIDs: keepSubscriptionIDs, subscriptionIDs: subscriptionIDs, runIDs: runIDs,
                on: connection)
            episodes.copied += inserted
            episodes.alreadyPresent += page.count - inserted
        }

        var downloads = MigrationSummary.Counts(source: bounds.downloads)
        var position: DownloadRecord.Position?
        while true {
            let page = try await source.exportDownloads(
                after: position, through: bounds.lastDownloadRowID, limit: batchSize)
            guard let last = page.last else { break }
            position = last.position
            read.downloads += page.count
            let inserted = try await copyDownloads(page, subscriptionIDs: subscriptionIDs, on: connection)
            downloads.copied += inserted
            downloads.alreadyPresent += page.count - inserted
        }
        try await copyExtraFiles(subscriptionIDs: subscriptionIDs, on: connection)

        if keepSubscriptionIDs {
            try await moveSequencePastIDs(table: "subscription", on: connection)
            try await moveSequencePastIDs(table: "episode", on: connection)
        }
        if keepRunIDs { try await moveSequencePastIDs(table: "refresh_run", on: connection) }

        let expected = TableCounts(
            subscriptions: bounds.subscriptions, episodes: bounds.episodes, runs: bounds.runs,
            downloads: bounds.downloads)
        let now = try await counts(on: connection)
        let grown = TableCounts(
            subscriptions: before.subscriptions + subscriptions.copied, episodes: before.episodes + episodes.copied,
            runs: before.runs + runs.copied, downloads: before.downloads + downloads.copied)
        let accounted = TableCounts(
            subscriptions: subscriptions.copied + subscriptions.alreadyPresent,
            episodes: episodes.copied + episodes.alreadyPresent, runs: runs.copied + runs.alreadyPresent,
            downloads: downloads.copied + downloads.alreadyPresent)
        guard read == expected, accounted == expected, now == grown else {
            throw StoreError(
                .copyDidNotCheckOut(
                    target: location.description,
                    counts: StoreError.CopyCounts(
                        expected: expected, read: read, accounted: accounted, before: before, after: now,
                        grown: grown)))
        }
        var summary = MigrationSummary(
            subscriptions: subscriptions, episodes: episodes, runs: runs, downloads: downloads,
            merged: before.subscriptions > 0,
            keptIDs: keepSubscriptionIDs && keepRunIDs)
        summary.sync = try await copySync(subscriptionIDs: subscriptionIDs, on: connection)
        summary.newFeedSettings = try await copyNewFeedSettings(on: connection)
        return summary
    }

    /// Copies the settings new subscriptions start with, unless the target has settings of its own.
    func copyNewFeedSettings(on connection: PostgresConnection) async throws -> MigrationSummary.NewFeedSettingsCarried
    {
        guard let settings = try await (source as? any NewFeedSettingsRepository)?.newFeedSettings() else {
            return .none
        }
        if try await PostgresFeedStore.newFeedSettings(on: connection, logger: logger) != nil {
            return .targetHasThem
        }
        try await PostgresFeedStore.storeNewFeedSettings(settings, on: connection, logger: logger)
        return .carried
    }

    /// Copies the source's sync set-up and everything synced, unless the target has a set-up of its own.
    func copySync(
        subscriptionIDs: [Int64: Int64], on connection: PostgresConnection
    ) async throws -> MigrationSummary.SyncCarried {
        guard let export = try await source.exportSync() else { return .none }
        for try await count in try await connection.query("SELECT count(*) FROM sync_account", logger: logger)
            .decode(Int.self) where count > 0
        {
            return .targetHasOne
        }
        let state = export.state
        try await connection.query(
            """
            INSERT INTO sync_account (server, username, device, api, password, subscriptions_cursor, actions_cursor,
              last_sync_at, last_outcome)
            VALUES (\(state.setup.server.absoluteString), \(state.setup.user), \(state.setup.device),
              \(state.setup.api.rawValue), \(syncPassword), \(state.subscriptionsCursor), \(state.actionsCursor),
              \(state.lastSyncAt?.timeIntervalSince1970), \(state.lastOutcome?.storedText))
            """, logger: logger)
        if !export.knownFeeds.isEmpty {
            try await connection.query(
                "INSERT INTO sync_known_feed (url) SELECT unnest(\(export.knownFeeds)::text[]) ON CONFLICT DO NOTHING",
                logger: logger)
        }
        let plays = export.playStates.compactMap { ref, state -> (Int64, String, EpisodePlayState)? in
            subscriptionIDs[ref.subscriptionID].map { ($0, ref.episodeKey, state) }
        }
        if !plays.isEmpty {
            try await connection.query(
                """
                INSERT INTO episode_play (\(unescaped: PostgresFeedStore.playColumns))
                SELECT * FROM unnest(
                  \(NullableArray.int8(plays.map(\.0)))::bigint[], \(NullableArray.text(plays.map(\.1)))::text[],
                  \(NullableArray.int8(plays.map { $0.2.position.map(Int64.init) }))::bigint[],
                  \(NullableArray.int8(plays.map { $0.2.total.map(Int64.init) }))::bigint[],
                  \(NullableArray.bool(plays.map(\.2.played)))::boolean[],
                  \(NullableArray.float8(plays.map { $0.2.playedAt?.timeIntervalSince1970 }))::float8[],
                  \(NullableArray.text(plays.map(\.2.lastAction.rawValue)))::text[],
                  \(NullableArray.float8(plays.map(\.2.actionAt.timeIntervalSince1970)))::float8[],
                  \(NullableArray.text(plays.map(\.2.device)))::text[])
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
        for pending in export.outbox {
            let a = pending.action
            try await connection.query(
                """
                INSERT INTO sync_action_outbox (subscription_id, episode_key, podcast, episode, guid, action, timestamp,
                  position, total)
                VALUES (\(pending.ref.flatMap { subscriptionIDs[$0.subscriptionID] }), \(pending.ref?.episodeKey),
                  \(a.podcast), \(a.episode), \(a.guid), \(a.kind.rawValue), \(a.timestamp?.timeIntervalSince1970 ?? 0),
                  \(a.position.map(Int64.init)), \(a.total.map(Int64.init)))
                """, logger: logger)
        }
        for waiting in export.waiting {
            guard let id = subscriptionIDs[waiting.subscriptionID] else { continue }
            let a = waiting.action
            try await connection.query(
                """
                INSERT INTO episode_action_waiting (subscription_id, podcast, episode, guid, action, timestamp, started,
                  position, total, device)
                VALUES (\(id), \(a.podcast), \(a.episode), \(a.guid), \(a.kind.rawValue),
                  \(a.timestamp?.timeIntervalSince1970), \(a.started.map(Int64.init)), \(a.position.map(Int64.init)),
                  \(a.total.map(Int64.init)), \(a.device))
                """, logger: logger)
        }
        return syncPassword == nil ? .carriedWithoutPassword : .carried
    }

    func counts(on connection: PostgresConnection) async throws -> TableCounts {
        let rows = try await connection.query(
            """
            SELECT (SELECT count(*) FROM subscription), (SELECT count(*) FROM episode),
              (SELECT count(*) FROM refresh_run), (SELECT count(*) FROM download)
            """, logger: logger)
        for try await (subscriptions, episodes, runs, downloads) in rows.decode((Int, Int, Int, Int).self) {
            return TableCounts(subscriptions: subscriptions, episodes: episodes, runs: runs, downloads: downloads)
        }
        return TableCounts(subscriptions: 0, episodes: 0, runs: 0, downloads: 0)
    }

    /// `count` new ids from `table`'s `bigserial` sequence, in order.
    func newIDs(_ count: Int, table: String, on connection: PostgresConnection) async throws -> [Int64] {
        guard count > 0 else { return [] }
        var ids: [Int64] = []
        ids.reserveCapacity(count)
        let rows = try await connection.query(
            "SELECT nextval(pg_get_serial_sequence(\(table), 'id')) FROM generate_series(1, \(count))",
            logger: logger)
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        return ids
    }

    /// Sets `table`'s id sequence so that the next id follows the highest stored one (kept ids were given
    /// explicitly and did not advance it).
    func moveSequencePastIDs(table: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT setval(pg_get_serial_sequence('\(table)', 'id'),
                      COALESCE((SELECT max(id) FROM \(table)), 1), (SELECT max(id) FROM \(table)) IS NOT NULL)
                    """), logger: logger)
    }

    /// Appends one row's values to `binds` and returns its `($n, …)` tuple.
    static func tuple(_ binds: inout PostgresBindings, _ append: (inout PostgresBindings) -> Void) -> String {
        let first = binds.count + 1
        append(&binds)
        return "(" + (first...binds.count).map { "$\($0)" }.joined(separator: ", ") + ")"
    }

    // MARK: - Subscriptions

    /// Writes the page's subscriptions the target does not have yet (by normalised URL) and maps every source id to
    /// its target row. - Returns: how many were written.
    func copySubscriptions(
        _ page: [Subscription], keepingIDs: Bool, into ids: inout [Int64: Int64],
        on connection: PostgresConnection
    ) async throws -> Int {
        let urls = page.map { FeedURL.normalizedString($0.url.absoluteString) }
        var present: [String: Int64] = [:]
        for try await (id, url) in try await connection.query(
            "SELECT id, url FROM subscription WHERE url = ANY(\(Array(Set(urls))))", logger: logger
        ).decode((Int64, String).self) {
            present[url] = id
        }
        var fresh: [(row: Subscription, url: String)] = []
        var freshURLs = Set<String>()
        for (row, url) in zip(page, urls) where present[url] == nil && freshURLs.insert(url).inserted {
            fresh.append((row, url))
        }
        let newIDs =
            keepingIDs ? fresh.map(\.row.id) : try await newIDs(fresh.count, table: "subscription", on: connection)
        guard !fresh.isEmpty else {
            for (row, url) in zip(page, urls) { ids[row.id] = present[url] }
            return 0
        }
        var binds = PostgresBindings()
        var tuples: [String] = []
        for ((s, url), id) in zip(fresh, newIDs) {
            present[url] = id
            tuples.append(
                Self.tuple(&binds) { b in
                    // In the order of `subscriptionColumns`.
                    b.append(id)
                    b.append(url)
                    b.append(s.title)
                    b.append(s.link?.absoluteString)
                    b.append(s.image?.absoluteString)
                    b.append(s.description)
                    b.append(s.author)
                    b.append(s.language)
                    b.append(s.addedAt.timeIntervalSince1970)
                    b.append(s.etag)
                    b.append(s.lastModified)
                    b.append(s.lastCheckedAt?.timeIntervalSince1970)
                    b.append(s.lastSuccessAt?.timeIntervalSince1970)
                    b.append(s.lastUnconditionalAt?.timeIntervalSince1970)
                    b.append(s.lastStatus)
                    b.append(s.failureCount)
                    b.append(s.lastErrorKind)
                    b.append(s.lastError)
                    b.append(s.isGone)
                    b.append(s.isComplete)
                    b.append(s.nextCheckAt?.timeIntervalSince1970)
                    b.append(s.nextCheckReason?.storedText)
                    b.append(s.movedFrom?.absoluteString)
                    b.append(s.lastBodyBytes)
                    b.append(s.ttlMinutes)
                    b.append(s.syndicationUpdatePeriod)
                    b.append(s.syndicationUpdateFrequency)
                    b.append(s.podcastUpdateFrequency)
                    b.append(s.backlog)
                    b.append(s.refusedMoveTarget?.absoluteString)
                    b.append(s.downloadsEnabled)
                    b.append(s.keepNewest)
                    b.append(s.downloadDirectory)
                    b.append(s.fileNameTemplate)
                    b.append(s.deletePlayed)
                    b.append(s.downloadFilter.storedText)
                    b.append(s.extras)
                    b.append(s.publicationModel)
                    b.append(s.endedEarly)
                    b.append(s.downloadsSince?.timeIntervalSince1970)
                    b.append(s.downloadBacklog)
                    b.append(s.tagMode.rawValue)
                })
        }
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO subscription (\(PostgresFeedStore.subscriptionColumns))
                    VALUES \(tuples.joined(separator: ", "))
                    """, binds: binds), logger: logger)
        for (row, url) in zip(page, urls) { ids[row.id] = present[url] }
        return fresh.count
    }

    // MARK: - Runs

    /// Writes the page's runs the target does not have yet, with their own ids or new ones, and maps every source id
    /// to its target row. A run counts as present when the target has one that started and ended at the same
    /// instants with the same counts (a merge repeated). - Returns: how many were written.
    func copyRuns(
        _ page: [RefreshRun], keepingIDs: Bool, into ids: inout [Int64: Int64], on connection: PostgresConnection
    ) async throws -> Int {
        var fresh: [RefreshRun] = []
        if keepingIDs {
            fresh = page
        } else {
            var present: [RunIdentity: Int64] = [:]
            for try await row in try await connection.query(
                """
                SELECT \(unescaped: PostgresFeedStore.runColumns) FROM refresh_run
                WHERE started_at = ANY(\(page.map(\.startedAt.timeIntervalSince1970)))
                """, logger: logger)
            {
                let run = try PostgresFeedStore.run(from: row)
                present[RunIdentity(run)] = run.id
            }
            for run in page {
                if let id = present[RunIdentity(run)] {
                    ids[run.id] = id
                } else {
                    fresh.append(run)
                }
            }
        }
        guard !fresh.isEmpty else { return 0 }
        let newIDs = keepingIDs ? fresh.map(\.id) : try await newIDs(fresh.count, table: "refresh_run", on: connection)
        var binds = PostgresBindings()
        var tuples: [String] = []
        for (run, id) in zip(fresh, newIDs) {
            ids[run.id] = id
            tuples.append(
                Self.tuple(&binds) { b in
                    // In the order of `runColumns`.
                    b.append(id)
                    b.append(run.startedAt.timeIntervalSince1970)
                    b.append(run.endedAt?.timeIntervalSince1970)
                    b.append(run.feedsChecked)
                    b.append(run.feedsFailed)
                    b.append(run.feedsNotModified)
                    b.append(run.newEpisodes)
                    b.append(run.bytesDownloaded)
                    b.append(run.bytesSaved)
                })
        }
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO refresh_run (\(PostgresFeedStore.runColumns))
                    VALUES \(tuples.joined(separator: ", "))
                    """, binds: binds), logger: logger)
        return fresh.count
    }

    /// A run without its id: what tells one run from another across databases.
    struct RunIdentity: Hashable {
        let run: RefreshRun

        init(_ run: RefreshRun) {
            var run = run
            run.id = 0
            self.run = run
        }
    }

    // MARK: - Episodes

    /// Writes the page's episodes the target does not have yet (same subscription, same key), under their target
    /// subscription and first run. - Returns: how many were written.
    func copyEpisodes(
        _ page: [ExportedEpisode], keepingIDs: Bool, subscriptionIDs: [Int64: Int64], runIDs: [Int64: Int64],
        on connection: PostgresConnection
    ) async throws -> Int {
        var binds = PostgresBindings()
        var tuples: [String] = []
        for e in page {
            guard let subscriptionID = subscriptionIDs[e.subscriptionID] else {
                throw StoreError(.rowWithoutSubscription(.episode(id: e.id), subscriptionID: e.subscriptionID))
            }
            // A first run the source no longer has (runs are never deleted, but the column has no foreign key)
            // becomes no run rather than a link to an unrelated one.
            let runID = e.firstSeenRunID.flatMap { runIDs[$0] }
            let f = e.fields
            tuples.append(
                Self.tuple(&binds) { b in
                    if keepingIDs { b.append(e.id) }
                    b.append(subscriptionID)
                    b.append(e.key)
                    b.append(e.fingerprint)
                    b.append(f.guid)
                    b.append(f.guidIsPermaLink)
                    b.append(f.title)
                    b.append(f.link)
                    b.append(f.description)
                    b.append(f.summary)
                    b.append(f.published)
                    b.append(f.duration)
                    b.append(f.enclosures)
                    b.append(f.episodeNumber)
                    b.append(f.season)
                    b.append(f.episodeType)
                    b.append(f.explicit)
                    b.append(f.image)
                    b.append(f.transcripts)
                    b.append(f.chapters)
                    b.append(f.persons)
                    b.append(f.alternateEnclosures)
                    b.append(f.live)
                    b.append(e.firstSeenAt)
                    b.append(e.lastSeenAt)
                    b.append(runID)
                })
        }
        guard !tuples.isEmpty else { return 0 }
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    WITH inserted AS (
                      INSERT INTO episode (\(keepingIDs ? "id, " : "")subscription_id, key, fingerprint, guid,
                        guid_is_permalink, title, link, description, summary, published, duration, enclosures,
                        episode_number, season, episode_type, explicit, image, transcripts, chapters, persons,
                        alternate_enclosures, live_item, first_seen_at, last_seen_at, first_seen_run_id)
                      VALUES \(tuples.joined(separator: ", "))
                      ON CONFLICT (subscription_id, key) DO NOTHING
                      RETURNING 1
                    )
                    SELECT count(*) FROM inserted
                    """, binds: binds), logger: logger)
        var inserted = 0
        for try await count in rows.decode(Int.self) { inserted = count }
        return inserted
    }

    // MARK: - Downloads

    /// Copies each download's extra files (transcripts, chapters, artwork podfresh saved beside it) onto the record
    /// copied for it, unless the target's record has its own: without them, retention would not know those files as
    /// podfresh's, and a later run would try to fetch them again over them.
    func copyExtraFiles(subscriptionIDs: [Int64: Int64], on connection: PostgresConnection) async throws {
        guard let downloads = source as? any DownloadRepository else { return }
        for (sourceID, targetID) in subscriptionIDs.sorted(by: { $0.key < $1.key }) {
            for (key, files) in try await downloads.extraFiles(subscriptionID: sourceID).sorted(by: { $0.key < $1.key })
            {
                let stored = ExtraFile.storedText(files)
                try await connection.query(
                    """
                    UPDATE download SET extra_files = \(stored)
                    WHERE subscription_id = \(targetID) AND episode_key = \(key) AND extra_files IS NULL
                    """, logger: logger)
            }
        }
    }

    /// Writes the page's download records the target does not have yet (same subscription, same episode key), under
    /// the subscription their episode was copied to; a record the target has is left as it is. - Returns: how many
    /// were written.
    func copyDownloads(
        _ page: [DownloadRecord], subscriptionIDs: [Int64: Int64], on connection: PostgresConnection
    ) async throws -> Int {
        var binds = PostgresBindings()
        var tuples: [String] = []
        for d in page {
            guard let subscriptionID = subscriptionIDs[d.subscriptionID] else {
                throw StoreError(
                    .rowWithoutSubscription(.download(episodeKey: d.episodeKey), subscriptionID: d.subscriptionID))
            }
            tuples.append(
                Self.tuple(&binds) { b in
                    // In the order of `downloadColumns`.
                    b.append(subscriptionID)
                    b.append(d.episodeKey)
                    b.append(d.state.rawValue)
                    b.append(d.partPath)
                    b.append(d.filePath)
                    b.append(d.bytes)
                    b.append(d.etag)
                    b.append(d.lastModified)
                    b.append(d.url?.absoluteString)
                    b.append(d.startedAt?.timeIntervalSince1970)
                    b.append(d.downloadedAt?.timeIntervalSince1970)
                    b.append(d.lastError)
                    b.append(d.deletedByUser)
                    b.append(d.removedByRetention)
                    b.append(Int64(d.permanentFailures))
                    b.append(d.retryAfter?.timeIntervalSince1970)
                    b.append(d.permanentError)
                })
        }
        guard !tuples.isEmpty else { return 0 }
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    WITH inserted AS (
                      INSERT INTO download (\(PostgresFeedStore.downloadColumns))
                      VALUES \(tuples.joined(separator: ", "))
                      ON CONFLICT (subscription_id, episode_key) DO NOTHING
                      RETURNING 1
                    )
                    SELECT count(*) FROM inserted
                    """, binds: binds), logger: logger)
        var inserted = 0
        for try await count in rows.decode(Int.self) { inserted = count }
        return inserted
    }
}
