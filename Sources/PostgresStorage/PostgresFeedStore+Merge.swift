public import FeedModels
import FeedParsing
import Foundation
import PostgresNIO

extension PostgresFeedStore {
    /// Applies one feed check in one transaction, with the subscription's row locked for its length.
    ///
    /// The same merge as the SQLite store's, both carrying out the one ``MergePlan``: new episodes inserted
    /// (announced, or counted as back catalogue past ``FeedCheck/announceLimit``), changed ones updated, unchanged ones
    /// only marked seen, missing ones kept. The row lock makes two merges of one feed (two workers, or a slow worker whose check is applied twice) take turns, and
    /// the second finds the episodes the first stored, so it announces none of them again.
    ///
    /// The transaction runs in a task of its own: once started, it commits even when the caller is cancelled (a
    /// stopped refresh still stores the feeds in flight).
    public func apply(_ check: FeedCheck) async throws -> MergeSummary {
        let rows: [(fields: EpisodeFields, fingerprint: String)]
        if case .fetched(let feed, _, _, _) = check.result {
            rows = feed.episodes.map { episode in
                let fields = EpisodeFields(episode)
                return (fields, fields.fingerprint)
            }
        } else {
            rows = []
        }
        let store = self
        let state = CheckStatePlan(check)
        if state.fetched == nil, check.movedTo == nil {
            // A check without a body or a move changes one row: one statement, atomic by itself, fenced in its
            // WHERE clause (a 304 costs one round trip, not a transaction's five).
            return try await Task {
                guard
                    let row = try await store.rows(
                        Self.stateUpdate(state, id: check.subscriptionID, lease: check.lease)
                    ).first
                else {
                    throw try await store.whyNoRow(check)
                }
                // Rarely (a ping came during the check), a second statement keeps the feed due.
                if let keep = try Self.pingDuringCheck(state, updated: row) {
                    _ = try await store.rows(keep)
                }
                return MergeSummary()
            }.value
        }
        return try await Task {
            try await store.transaction { connection in
                try await store.apply(check, state: state, rows: rows, on: connection)
            }
        }.value
    }

    private func apply(
        _ check: FeedCheck, state: CheckStatePlan, rows: [(fields: EpisodeFields, fingerprint: String)],
        on connection: PostgresConnection
    ) async throws -> MergeSummary {
        let current = try await Self.lockedSubscription(id: check.subscriptionID, on: connection, store: self)
        var summary = MergeSummary()
        var lease = check.lease
        if case .fetched(let feed, _, _, _) = check.result {
            try await Self.fence(check, on: connection, store: self)
            lease = nil  // checked and cleared
            summary = try await merge(
                feed, rows: rows, into: current, checkedAt: check.checkedAt.timeIntervalSince1970,
                runID: check.runID, announceLimit: check.announceLimit, readShort: check.bodyRead == .short,
                on: connection)
            if !check.seenEarly.isEmpty {
                // Found unchanged by early merges (``FeedCheck/seenEarly``): marked seen with the check.
                try await connection.query(
                    """
                    UPDATE episode SET last_seen_at = \(check.checkedAt.timeIntervalSince1970)
                    WHERE subscription_id = \(current.id) AND key = ANY(\(check.seenEarly))
                    """, logger: logger)
            }
        }
        // The row is locked and exists, so no row back means the lease is no longer this check's.
        var updated: PostgresRow?
        for try await row in try await connection.query(
            Self.stateUpdate(state, id: current.id, lease: lease), logger: logger)
        {
            updated = row
        }
        guard let updated else { throw Self.leaseLost }
        if let keep = try Self.pingDuringCheck(state, updated: updated) {
            try await connection.query(keep, logger: logger)
        }
        if let fetched = state.fetched {
            try await connection.query(Self.feedUpdate(fetched, id: current.id), logger: logger)
            if fetched.podpingWasRead {
                try await connection.query(
                    Self.podpingDeclarationUpdate(fetched.podping, id: current.id), logger: logger)
            }
        }
        if let target = MergePlan.moveTarget(of: check, from: current) {
            var other: (id: Int64, title: String?)?
            for try await row in try await connection.query(
                "SELECT id, title FROM subscription WHERE url = \(target.absoluteString) AND id <> \(current.id)",
                logger: logger
            ).decode((Int64, String?).self) {
                other = (row.0, row.1)
            }
            if let other {
                summary.moveRefused = MergePlan.refusedMove(to: target, otherID: other.id, otherTitle: other.title)
            } else {
                try await connection.query(
                    """
                    UPDATE subscription SET url = \(target.absoluteString), moved_from = \(current.url.absoluteString)
                    WHERE id = \(current.id)
                    """, logger: logger)
                summary.movedTo = target
            }
        }
        return summary
    }

    /// Merges a feed's episodes by its ``MergePlan``: new ones inserted, changed ones updated, none deleted.
    private func merge(
        _ feed: ParsedFeed, rows: [(fields: EpisodeFields, fingerprint: String)], into subscription: Subscription,
        checkedAt: Double, runID: Int64?, announceLimit: Int?, readShort: Bool, on connection: PostgresConnection
    ) async throws -> MergeSummary {
        var stored: [String: String] = [:]
        // A body read short lists a few leading episodes of a feed that may have stored thousands: only those are
        // looked up.
        let query: PostgresQuery =
            readShort
            ? "SELECT key, fingerprint FROM episode WHERE subscription_id = \(subscription.id) AND key = ANY(\(feed.episodes.map(\.id)))"
            : "SELECT key, fingerprint FROM episode WHERE subscription_id = \(subscription.id)"
        for try await (key, fingerprint) in try await connection.query(query, logger: logger).decode(
            (String, String).self)
        {
            stored[key] = fingerprint
        }
        let plan = MergePlan(
            feed: feed, fingerprints: rows.map(\.fingerprint), stored: stored, announceLimit: announceLimit)
        // Read before the update overwrites them.
        var alreadyLive = Set<String>()
        let liveKeys = plan.updatedLiveKeys(of: feed)
        if !liveKeys.isEmpty {
            for try await (key, live) in try await connection.query(
                "SELECT key, live_item FROM episode WHERE subscription_id = \(subscription.id) AND key = ANY(\(liveKeys))",
                logger: logger
            ).decode((String, String?).self) where EpisodeFields.isLive(storedJSON: live) {
                alreadyLive.insert(key)
            }
        }
        try await carryOut(
            plan, keys: { feed.episodes[$0].id }, rows: rows, subscriptionID: subscription.id, checkedAt: checkedAt,
            runID: runID, on: connection)
        return plan.summary(
            of: feed, subscriptionID: subscription.id, checkedAt: Date(timeIntervalSince1970: checkedAt), runID: runID,
            alreadyLive: alreadyLive)
    }

    /// Carries out a merge plan: its inserts, updates and episodes marked seen, each row by its index (`key` gives its
    /// identity key, `rows` its values).
    func carryOut(
        _ plan: MergePlan, keys key: (Int) -> String, rows: [(fields: EpisodeFields, fingerprint: String)],
        subscriptionID: Int64, checkedAt: Double, runID: Int64?, on connection: PostgresConnection
    ) async throws {
        for index in plan.updates {
            let (f, fingerprint) = rows[index]
            try await connection.query(
                """
                UPDATE episode SET fingerprint = \(fingerprint), guid = \(f.guid),
                  guid_is_permalink = \(f.guidIsPermaLink), title = \(f.title), link = \(f.link),
                  description = \(f.description), summary = \(f.summary), published = \(f.published),
                  duration = \(f.duration), enclosures = \(f.enclosures), episode_number = \(f.episodeNumber),
                  season = \(f.season), episode_type = \(f.episodeType), explicit = \(f.explicit),
                  image = \(f.image), transcripts = \(f.transcripts), chapters = \(f.chapters),
                  persons = \(f.persons), alternate_enclosures = \(f.alternateEnclosures),
                  live_item = \(f.live), last_seen_at = \(checkedAt)
                WHERE subscription_id = \(subscriptionID) AND key = \(key(index))
                """, logger: logger)
        }
        let inserts = plan.inserts.map { entry in
            (
                key: key(entry.index), fields: rows[entry.index].fields,
                fingerprint: rows[entry.index].fingerprint,
                firstSeenRun: MergePlan.firstSeenRun(of: entry, runID: runID)
            )
        }
        try await insertEpisodes(inserts, subscriptionID: subscriptionID, checkedAt: checkedAt, on: connection)
        if !plan.unchanged.isEmpty {
            let unchanged = plan.unchanged.map { key($0) }
            try await connection.query(
                """
                UPDATE episode SET last_seen_at = \(checkedAt)
                WHERE subscription_id = \(subscriptionID) AND key = ANY(\(unchanged))
                """, logger: logger)
        }
    }

    /// Inserts new episodes in one statement: each column a parallel array, expanded by `unnest`. The statement's
    /// shape never changes, so the server parses and plans it once per connection, however many rows it carries.
    private func insertEpisodes(
        _ rows: [(key: String, fields: EpisodeFields, fingerprint: String, firstSeenRun: Int64?)],
        subscriptionID: Int64, checkedAt: Double, on connection: PostgresConnection
    ) async throws {
        // At most a thousand rows a statement, so a feed with thousands of episodes is not held twice in memory.
        var start = rows.startIndex
        while start < rows.endIndex {
            let end = min(rows.endIndex, start + 1000)
            try await insertEpisodeChunk(
                rows[start..<end], subscriptionID: subscriptionID, checkedAt: checkedAt, on: connection)
            start = end
        }
    }

    private func insertEpisodeChunk(
        _ rows: ArraySlice<(key: String, fields: EpisodeFields, fingerprint: String, firstSeenRun: Int64?)>,
        subscriptionID: Int64, checkedAt: Double, on connection: PostgresConnection
    ) async throws {
        let f = rows.map(\.fields)
        try await connection.query(
            """
            INSERT INTO episode (subscription_id, key, fingerprint, guid, guid_is_permalink, title, link, description,
              summary, published, duration, enclosures, episode_number, season, episode_type, explicit, image,
              transcripts, chapters, persons, alternate_enclosures, live_item, first_seen_at, last_seen_at,
              first_seen_run_id)
            SELECT \(subscriptionID), r.key, r.fingerprint, r.guid, r.guid_is_permalink, r.title, r.link, r.description,
              r.summary, r.published, r.duration, r.enclosures, r.episode_number, r.season, r.episode_type, r.explicit,
              r.image, r.transcripts, r.chapters, r.persons, r.alternate_enclosures, r.live_item, \(checkedAt),
              \(checkedAt),
              r.first_seen_run_id
            FROM unnest(
              \(NullableArray.text(rows.map(\.key)))::text[], \(NullableArray.text(rows.map(\.fingerprint)))::text[],
              \(NullableArray.text(f.map(\.guid)))::text[], \(NullableArray.bool(f.map(\.guidIsPermaLink)))::boolean[],
              \(NullableArray.text(f.map(\.title)))::text[], \(NullableArray.text(f.map(\.link)))::text[],
              \(NullableArray.text(f.map(\.description)))::text[], \(NullableArray.text(f.map(\.summary)))::text[],
              \(NullableArray.float8(f.map(\.published)))::float8[], \(NullableArray.float8(f.map(\.duration)))::float8[],
              \(NullableArray.text(f.map(\.enclosures)))::text[],
              \(NullableArray.int8(f.map { $0.episodeNumber.map(Int64.init) }))::bigint[],
              \(NullableArray.int8(f.map { $0.season.map(Int64.init) }))::bigint[],
              \(NullableArray.text(f.map(\.episodeType)))::text[], \(NullableArray.bool(f.map(\.explicit)))::boolean[],
              \(NullableArray.text(f.map(\.image)))::text[], \(NullableArray.text(f.map(\.transcripts)))::text[],
              \(NullableArray.text(f.map(\.chapters)))::text[], \(NullableArray.text(f.map(\.persons)))::text[],
              \(NullableArray.text(f.map(\.alternateEnclosures)))::text[],
              \(NullableArray.text(f.map(\.live)))::text[],
              \(NullableArray.int8(rows.map(\.firstSeenRun)))::bigint[]
            ) AS r(key, fingerprint, guid, guid_is_permalink, title, link, description, summary, published, duration,
              enclosures, episode_number, season, episode_type, explicit, image, transcripts, chapters, persons,
              alternate_enclosures, live_item, first_seen_run_id)
            """, logger: logger)
    }

    /// The one UPDATE that writes a check's ``CheckStatePlan``, fenced by `lease` when given (and then clearing it);
    /// it returns the row's id when it applied.
    static func stateUpdate(_ state: CheckStatePlan, id: Int64, lease: FeedLease?) -> PostgresQuery {
        // With a lease: cleared, and required to be current. Without: left as it is.
        let clear = lease == nil ? "" : ", lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL"
        let fenced = lease.map { " AND lease_expires_at > clock_timestamp() AND lease_token = \($0.token)" } ?? ""
        return """
            UPDATE subscription SET last_checked_at = \(state.lastCheckedAt.timeIntervalSince1970),
              last_success_at = COALESCE(\(state.lastSuccessAt?.timeIntervalSince1970), last_success_at),
              last_unconditional_at = COALESCE(\(state.lastUnconditionalAt?.timeIntervalSince1970), last_unconditional_at),
              last_status = \(state.lastStatus),
              failure_count = CASE \(state.failureCount.rawValue)
                WHEN 'reset' THEN 0 WHEN 'increment' THEN failure_count + 1 ELSE failure_count END,
              last_error_kind = \(state.lastErrorKind), last_error = \(state.lastError),
              is_gone = COALESCE(\(state.isGone), is_gone), next_check_at = \(state.nextCheckAt?.timeIntervalSince1970),
              next_check_reason = \(state.nextCheckReason?.storedText),
              last_whole_read_at = COALESCE(\(state.lastWholeReadAt?.timeIntervalSince1970), last_whole_read_at),
              last_body_digest = COALESCE(\(state.lastBodyDigest), last_body_digest),
              publication_model = COALESCE(\(state.publicationModel), publication_model),
              ended_early = COALESCE(\(state.endedEarly), ended_early)\(unescaped: clear)
            WHERE id = \(id)\(unescaped: fenced)
            RETURNING id, podping_recheck_before, podping_cooldown
            """
    }

    /// The UPDATE that keeps a feed due sooner than its check planned, when a believed ping was recorded while the
    /// check was in flight (``PodpingDuePlan/dueAfterCheck(startedAt:planned:recheckBefore:cooldown:)``); nil when
    /// none was. `updated` is the row ``stateUpdate(_:id:lease:)`` returned: it carries what a ping committed while
    /// that update waited for the row's lock, and a ping recorded after it judges this check itself
    /// (``PodpingDuePlan/dueAt(ping:now:lastCheckedAt:nextCheckAt:isGone:cooldown:)``), so none is lost between.
    static func pingDuringCheck(_ state: CheckStatePlan, updated: PostgresRow) throws -> PostgresQuery? {
        let r = RowReader(updated)
        guard state.isGone != true, let id = try r.int64("id"),
            let due = PodpingDuePlan.dueAfterCheck(
                startedAt: state.lastCheckedAt, planned: state.nextCheckAt,
                recheckBefore: try r.date("podping_recheck_before"), cooldown: try r.real("podping_cooldown"))
        else { return nil }
        return """
            UPDATE subscription SET next_check_at = \(due.timeIntervalSince1970),
              next_check_reason = \(ScheduleReason.podping.storedText)
            WHERE id = \(id) AND last_checked_at = \(state.lastCheckedAt.timeIntervalSince1970)
            """
    }

    /// The statement that writes what a fetched body says of podping: the declaration as it is, or, when the feed no
    /// longer has `podcast:podping`, nothing left of an earlier one (pings received stay recorded).
    static func podpingDeclarationUpdate(_ declaration: PodpingDeclaration?, id: Int64) -> PostgresQuery {
        guard let declaration else {
            return """
                UPDATE podping_feed SET uses_podping = NULL, hive_accounts = ''
                WHERE subscription_id = \(id) AND (uses_podping IS NOT NULL OR hive_accounts <> '')
                """
        }
        return """
            INSERT INTO podping_feed (subscription_id, uses_podping, hive_accounts)
            VALUES (\(id), \(declaration.usesPodping), \(declaration.hiveAccounts.joined(separator: "\n")))
            ON CONFLICT (subscription_id) DO UPDATE SET uses_podping = excluded.uses_podping,
              hive_accounts = excluded.hive_accounts
            """
    }

    /// The UPDATE that writes what a fetched body says of the feed.
    static func feedUpdate(_ feed: CheckStatePlan.Fetched, id: Int64) -> PostgresQuery {
        """
        UPDATE subscription SET
          title = COALESCE(\(feed.title), title), link = COALESCE(\(feed.link?.absoluteString), link),
          image = COALESCE(\(feed.image?.absoluteString), image),
          description = COALESCE(\(feed.description), description),
          author = COALESCE(\(feed.author), author), language = COALESCE(\(feed.language), language),
          etag = \(feed.etag), last_modified = \(feed.lastModified), is_complete = \(feed.isComplete),
          last_body_bytes = COALESCE(\(feed.bodyBytes), last_body_bytes), ttl_minutes = \(feed.ttlMinutes),
          syndication_update_period = \(feed.syndicationUpdatePeriod),
          syndication_update_frequency = \(feed.syndicationUpdateFrequency),
          podcast_update_frequency = \(feed.podcastUpdateFrequency)
        WHERE id = \(id)
        """
    }

    /// Why a fenced one-row update changed nothing: the feed was removed, or the check's lease is not current.
    func whyNoRow(_ check: FeedCheck) async throws -> StoreError {
        if try await subscription(id: check.subscriptionID) == nil {
            return StoreError(.noSubscription(id: check.subscriptionID))
        }
        return Self.leaseLost
    }
}
