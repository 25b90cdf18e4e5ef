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
    public func applyAsync(_ check: FeedCheck) async throws -> MergeSummary {
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
        if rows.isEmpty, check.movedTo == nil, let update = Self.stateUpdate(check) {
            // A check without episodes or a move changes one row: one statement, atomic by itself, fenced in its
            // WHERE clause (a 304 costs one round trip, not a transaction's five).
            return try await Task {
                guard try await !store.rows(update).isEmpty else {
                    throw try await store.whyNoRow(check)
                }
                return MergeSummary()
            }.value
        }
        return try await Task {
            try await store.transaction { connection in
                try await store.apply(check, rows: rows, on: connection)
            }
        }.value
    }

    private func apply(
        _ check: FeedCheck, rows: [(fields: EpisodeFields, fingerprint: String)], on connection: PostgresConnection
    ) async throws -> MergeSummary {
        let current = try await Self.lockedSubscription(id: check.subscriptionID, on: connection, store: self)
        var summary = MergeSummary()
        let checkedAt = check.checkedAt.timeIntervalSince1970
        let next = check.nextCheckAt?.timeIntervalSince1970
        switch check.result {
        case .fetched(let feed, let etag, let lastModified, let unconditional):
            try await Self.fence(check, on: connection, store: self)
            summary = try await merge(
                feed, rows: rows, into: current, checkedAt: checkedAt, runID: check.runID,
                announceLimit: check.announceLimit, on: connection)
            try await connection.query(
                """
                UPDATE subscription SET
                  title = COALESCE(\(feed.title), title), link = COALESCE(\(feed.link?.absoluteString), link),
                  image = COALESCE(\(feed.image?.absoluteString), image),
                  description = COALESCE(\(feed.description), description),
                  author = COALESCE(\(feed.author), author), language = COALESCE(\(feed.language), language),
                  etag = \(etag), last_modified = \(lastModified),
                  last_checked_at = \(checkedAt), last_success_at = \(checkedAt),
                  last_unconditional_at = CASE WHEN \(unconditional) THEN \(checkedAt) ELSE last_unconditional_at END,
                  last_status = \(check.status ?? 200), failure_count = 0, last_error_kind = NULL, last_error = NULL,
                  is_gone = false, is_complete = \(feed.complete ?? false),
                  next_check_at = \(next), next_check_reason = \(check.nextCheckReason),
                  last_body_bytes = COALESCE(\(check.bodyBytes), last_body_bytes),
                  ttl_minutes = \(feed.ttl), syndication_update_period = \(feed.syndicationUpdatePeriod),
                  syndication_update_frequency = \(feed.syndicationUpdateFrequency),
                  podcast_update_frequency = \(feed.updateFrequency)
                WHERE id = \(current.id)
                """, logger: logger)
        case .notModified, .failed, .gone:
            // The same fenced UPDATE as a check without a move (`stateUpdate`); the row is locked and exists, so no
            // row back means the lease is no longer this check's.
            guard let update = Self.stateUpdate(check) else { break }
            var applied = false
            for try await _ in try await connection.query(update, logger: logger) { applied = true }
            guard applied else { throw Self.leaseLost }
            // Only a 304 may move the feed (a permanent redirect to a body that did not change).
            guard case .notModified = check.result else { return summary }
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
        checkedAt: Double, runID: Int64?, announceLimit: Int?, on connection: PostgresConnection
    ) async throws -> MergeSummary {
        var stored: [String: String] = [:]
        for try await (key, fingerprint) in try await connection.query(
            "SELECT key, fingerprint FROM episode WHERE subscription_id = \(subscription.id)", logger: logger
        ).decode((String, String).self) {
            stored[key] = fingerprint
        }
        let plan = MergePlan(
            feed: feed, fingerprints: rows.map(\.fingerprint), stored: stored, announceLimit: announceLimit)
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
                  last_seen_at = \(checkedAt)
                WHERE subscription_id = \(subscription.id) AND key = \(feed.episodes[index].id)
                """, logger: logger)
        }
        let inserts = plan.inserts.map { entry in
            (
                key: feed.episodes[entry.index].id, fields: rows[entry.index].fields,
                fingerprint: rows[entry.index].fingerprint,
                firstSeenRun: MergePlan.firstSeenRun(of: entry, runID: runID)
            )
        }
        try await insertEpisodes(inserts, subscriptionID: subscription.id, checkedAt: checkedAt, on: connection)
        if !plan.unchanged.isEmpty {
            let unchanged = plan.unchanged.map { feed.episodes[$0].id }
            try await connection.query(
                """
                UPDATE episode SET last_seen_at = \(checkedAt)
                WHERE subscription_id = \(subscription.id) AND key = ANY(\(unchanged))
                """, logger: logger)
        }
        return plan.summary(
            of: feed, subscriptionID: subscription.id, checkedAt: Date(timeIntervalSince1970: checkedAt), runID: runID)
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
              transcripts, chapters, persons, alternate_enclosures, first_seen_at, last_seen_at, first_seen_run_id)
            SELECT \(subscriptionID), r.key, r.fingerprint, r.guid, r.guid_is_permalink, r.title, r.link, r.description,
              r.summary, r.published, r.duration, r.enclosures, r.episode_number, r.season, r.episode_type, r.explicit,
              r.image, r.transcripts, r.chapters, r.persons, r.alternate_enclosures, \(checkedAt), \(checkedAt),
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
              \(NullableArray.int8(rows.map(\.firstSeenRun)))::bigint[]
            ) AS r(key, fingerprint, guid, guid_is_permalink, title, link, description, summary, published, duration,
              enclosures, episode_number, season, episode_type, explicit, image, transcripts, chapters, persons,
              alternate_enclosures, first_seen_run_id)
            """, logger: logger)
    }

    /// The one UPDATE that records a 304, a failure or a 410, fenced by the check's lease when it has one (and then
    /// clearing it); it returns the row's id when it applied. Nil for a check with episodes.
    static func stateUpdate(_ check: FeedCheck) -> PostgresQuery? {
        let checkedAt = check.checkedAt.timeIntervalSince1970
        let next = check.nextCheckAt?.timeIntervalSince1970
        let id = check.subscriptionID
        let token = check.lease?.token
        // With a lease: cleared, and required to be current. Without: left as it is.
        let clear = token == nil ? "" : ", lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL"
        let fenced = token == nil ? "" : " AND lease_expires_at > clock_timestamp() AND lease_token = "
        switch check.result {
        case .fetched: return nil
        case .notModified:
            return """
                UPDATE subscription SET last_checked_at = \(checkedAt), last_success_at = \(checkedAt),
                  last_status = \(check.status ?? 304), failure_count = 0, last_error_kind = NULL, last_error = NULL,
                  is_gone = false, next_check_at = \(next), next_check_reason = \(check.nextCheckReason)\(unescaped: clear)
                WHERE id = \(id)\(unescaped: fenced)\(unescaped: token.map(String.init) ?? "")
                RETURNING id
                """
        case .failed(let kind, let message):
            return """
                UPDATE subscription SET last_checked_at = \(checkedAt), last_status = \(check.status),
                  failure_count = failure_count + 1, last_error_kind = \(kind), last_error = \(message),
                  next_check_at = \(next), next_check_reason = \(check.nextCheckReason)\(unescaped: clear)
                WHERE id = \(id)\(unescaped: fenced)\(unescaped: token.map(String.init) ?? "")
                RETURNING id
                """
        case .gone(let message):
            return """
                UPDATE subscription SET last_checked_at = \(checkedAt), last_status = \(check.status ?? 410),
                  is_gone = true, last_error_kind = 'gone', last_error = \(message), next_check_at = NULL,
                  next_check_reason = 'gone (410)'\(unescaped: clear)
                WHERE id = \(id)\(unescaped: fenced)\(unescaped: token.map(String.init) ?? "")
                RETURNING id
                """
        }
    }

    /// Why a fenced one-row update changed nothing: the feed was removed, or the check's lease is not current.
    func whyNoRow(_ check: FeedCheck) async throws -> StoreError {
        if try await subscription(id: check.subscriptionID) == nil {
            return StoreError(kind: .notFound, message: "no subscription with id \(check.subscriptionID)")
        }
        return Self.leaseLost
    }
}
