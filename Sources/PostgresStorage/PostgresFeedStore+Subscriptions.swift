public import FeedModels
public import Foundation
import PostgresNIO

extension PostgresFeedStore {
    /// The `subscription` table's columns, in the order ``subscription(from:)`` reads and a copy writes them (the
    /// lease columns are a worker's, not the feed's).
    static let subscriptionColumns = """
        id, url, title, link, image, description, author, language, added_at, etag, last_modified, last_checked_at,
        last_success_at, last_unconditional_at, last_status, failure_count, last_error_kind, last_error, is_gone,
        is_complete, next_check_at, next_check_reason, moved_from, last_body_bytes, ttl_minutes,
        syndication_update_period, syndication_update_frequency, podcast_update_frequency, backlog,
        refused_move_target, downloads_enabled, keep_newest, download_directory, file_name_template, delete_played,
        download_filter, extras, publication_model, ended_early, downloads_since, download_backlog, tag_mode
        """

    /// What ``subscription(from:)`` reads: ``subscriptionColumns`` and the steady-state columns (issue #36: the last
    /// whole body's digest, when a body was last read whole), which a copy from SQLite leaves to the first refresh.
    static let subscriptionReadColumns =
        subscriptionColumns + ", last_body_digest, last_whole_read_at"

    public func addSubscription(url: URL, title: String?, at date: Date, backlog: Int?) async throws -> Subscription {
        let url = FeedURL.normalized(url)
        return try await transaction { connection in
            var id: Int64?
            for try await row in try await connection.query(
                """
                INSERT INTO subscription (url, title, added_at, backlog)
                VALUES (\(url.absoluteString), \(title), \(date.timeIntervalSince1970), \(backlog))
                ON CONFLICT (url) DO NOTHING
                RETURNING id
                """, logger: logger)
            {
                id = try RowReader(row).int64("id")
            }
            guard let id else { throw StoreError(.alreadySubscribed(url: url, subscriptionID: nil)) }
            let added = Subscription(id: id, url: url, title: title, addedAt: date, backlog: backlog)
            guard let settings = try await Self.newFeedSettings(on: connection, logger: logger) else { return added }
            return try await applyDownloadSettings(settings.changeForNewFeed(at: date), to: added, on: connection)
        }
    }

    public func moveSubscription(id: Int64, to url: URL) async throws -> Subscription {
        let url = FeedURL.normalized(url)
        return try await transaction { connection in
            let current = try await Self.lockedSubscription(id: id, on: connection, store: self)
            guard url != current.url else { return current }
            try await Self.refuseTakenURL(url, except: id, on: connection, store: self)
            try await connection.query(
                """
                UPDATE subscription SET url = \(url.absoluteString), moved_from = \(current.url.absoluteString),
                  refused_move_target = NULL, etag = NULL, last_modified = NULL, next_check_at = NULL,
                  next_check_reason = NULL
                WHERE id = \(id)
                """, logger: logger)
            return try await Self.lockedSubscription(id: id, on: connection, store: self)
        }
    }

    public func undoMove(id: Int64) async throws -> Subscription {
        try await transaction { connection in
            let current = try await Self.lockedSubscription(id: id, on: connection, store: self)
            guard let previous = current.movedFrom else {
                throw StoreError(.noMoveToUndo(subscriptionID: id))
            }
            try await Self.refuseTakenURL(previous, except: id, on: connection, store: self)
            try await connection.query(
                """
                UPDATE subscription SET url = \(previous.absoluteString), moved_from = NULL,
                  refused_move_target = \(current.url.absoluteString), etag = NULL, last_modified = NULL,
                  next_check_at = NULL, next_check_reason = NULL
                WHERE id = \(id)
                """, logger: logger)
            return try await Self.lockedSubscription(id: id, on: connection, store: self)
        }
    }

    @discardableResult
    public func removeSubscription(id: Int64) async throws -> Bool {
        let rows = try await rows("DELETE FROM subscription WHERE id = \(id) RETURNING id")
        return !rows.isEmpty
    }

    public func subscriptions() async throws -> [Subscription] {
        try await rows("SELECT \(unescaped: Self.subscriptionReadColumns) FROM subscription ORDER BY id")
            .compactMap(Self.subscription(from:))
    }

    public func subscription(id: Int64) async throws -> Subscription? {
        try await rows("SELECT \(unescaped: Self.subscriptionReadColumns) FROM subscription WHERE id = \(id)")
            .compactMap(Self.subscription(from:)).first
    }

    public func subscription(url: URL) async throws -> Subscription? {
        let normalized = FeedURL.normalizedString(url.absoluteString)
        return try await rows(
            "SELECT \(unescaped: Self.subscriptionReadColumns) FROM subscription WHERE url = \(normalized)"
        )
        .compactMap(Self.subscription(from:)).first
    }

    /// Subscriptions due at `date` that no worker holds a lease on now (those are being checked).
    public func dueSubscriptions(at date: Date) async throws -> [Subscription] {
        try await rows(
            """
            SELECT \(unescaped: Self.subscriptionReadColumns) FROM subscription
            WHERE NOT is_gone AND (next_check_at IS NULL OR next_check_at <= \(date.timeIntervalSince1970))
              AND (lease_expires_at IS NULL OR lease_expires_at <= now())
            ORDER BY id
            """
        ).compactMap(Self.subscription(from:))
    }

    // MARK: - Inside transactions

    /// The subscription with `id`, its row locked until the transaction ends.
    static func lockedSubscription(
        id: Int64, on connection: PostgresConnection, store: PostgresFeedStore
    )
        async throws -> Subscription
    {
        let rows = try await connection.query(
            "SELECT \(unescaped: subscriptionReadColumns) FROM subscription WHERE id = \(id) FOR UPDATE",
            logger: store.logger)
        for try await row in rows {
            if let subscription = try subscription(from: row) { return subscription }
        }
        throw StoreError(.noSubscription(id: id))
    }

    static func refuseTakenURL(
        _ url: URL, except id: Int64, on connection: PostgresConnection, store: PostgresFeedStore
    ) async throws {
        let rows = try await connection.query(
            "SELECT id FROM subscription WHERE url = \(url.absoluteString) AND id <> \(id)", logger: store.logger)
        for try await other in rows.decode(Int64.self) {
            throw StoreError(.alreadySubscribed(url: url, subscriptionID: other))
        }
    }

    static func subscription(from row: PostgresRow) throws -> Subscription? {
        let r = RowReader(row)
        guard let id = try r.int64("id"), let url = try r.url("url"), let addedAt = try r.date("added_at") else {
            return nil
        }
        var subscription = Subscription(
            id: id, url: url, title: try r.text("title"), link: try r.url("link"), image: try r.url("image"),
            description: try r.text("description"), author: try r.text("author"), language: try r.text("language"),
            addedAt: addedAt, etag: try r.text("etag"), lastModified: try r.text("last_modified"),
            lastCheckedAt: try r.date("last_checked_at"), lastSuccessAt: try r.date("last_success_at"),
            lastUnconditionalAt: try r.date("last_unconditional_at"), lastStatus: try r.integer("last_status"),
            failureCount: try r.integer("failure_count") ?? 0, lastErrorKind: try r.text("last_error_kind"),
            lastError: try r.text("last_error"), isGone: try r.bool("is_gone") ?? false,
            isComplete: try r.bool("is_complete") ?? false, nextCheckAt: try r.date("next_check_at"),
            nextCheckReason: ScheduleReason(storedText: try r.text("next_check_reason")),
            movedFrom: try r.url("moved_from"),
            lastBodyBytes: try r.integer("last_body_bytes"), ttlMinutes: try r.integer("ttl_minutes"),
            syndicationUpdatePeriod: try r.text("syndication_update_period"),
            syndicationUpdateFrequency: try r.integer("syndication_update_frequency"),
            podcastUpdateFrequency: try r.text("podcast_update_frequency"), backlog: try r.integer("backlog"),
            refusedMoveTarget: try r.url("refused_move_target"),
            downloadsEnabled: try r.bool("downloads_enabled") ?? false, keepNewest: try r.integer("keep_newest"),
            downloadDirectory: try r.text("download_directory"), fileNameTemplate: try r.text("file_name_template"),
            deletePlayed: try r.bool("delete_played") ?? false,
            downloadFilter: DownloadFilter(storedText: try r.text("download_filter")),
            extras: try r.bool("extras") ?? false)
        subscription.lastBodyDigest = try r.text("last_body_digest")
        subscription.publicationModel = try r.text("publication_model")
        subscription.lastWholeReadAt = try r.date("last_whole_read_at")
        subscription.endedEarly = try r.bool("ended_early") ?? false
        subscription.downloadsSince = try r.date("downloads_since")
        subscription.downloadBacklog = try r.integer("download_backlog")
        subscription.tagMode = try r.text("tag_mode").flatMap(TagMode.init(rawValue:)) ?? .off
        return subscription
    }
}
