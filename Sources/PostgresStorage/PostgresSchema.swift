import FeedModels
import Logging
import PostgresNIO

/// The PostgreSQL schema's versioned migrations, applied on first use.
///
/// `podfresh_schema` holds one row, the version. Every worker that starts runs ``migrate(on:location:logger:)`` in one
/// transaction that first takes a transaction-scoped advisory lock (`pg_advisory_xact_lock`): workers starting at once
/// migrate one after the other, and the later ones find the work done. A database whose version is newer than this
/// binary's is refused untouched. A shipped migration is never edited: changes come as new ones.
enum PostgresSchema {
    /// The advisory lock key for migrations (an arbitrary constant: "podfresh" read as bytes, cut to 63 bits).
    static let migrationLock: Int64 = 0x706f_6466_7265_7368

    /// The migrations, in order; the schema version is the number applied.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE subscription (
              id bigserial PRIMARY KEY,
              url text NOT NULL UNIQUE,
              title text, link text, image text, description text, author text, language text,
              added_at double precision NOT NULL,
              etag text, last_modified text,
              last_checked_at double precision, last_success_at double precision,
              last_unconditional_at double precision,
              last_status bigint,
              failure_count bigint NOT NULL DEFAULT 0,
              last_error_kind text, last_error text,
              is_gone boolean NOT NULL DEFAULT false,
              is_complete boolean NOT NULL DEFAULT false,
              next_check_at double precision, next_check_reason text,
              moved_from text,
              last_body_bytes bigint,
              ttl_minutes bigint, syndication_update_period text, syndication_update_frequency bigint,
              podcast_update_frequency text,
              backlog bigint,
              refused_move_target text
            )
            """,
            "CREATE INDEX subscription_due ON subscription (next_check_at) WHERE NOT is_gone",
            """
            CREATE TABLE episode (
              id bigserial PRIMARY KEY,
              subscription_id bigint NOT NULL REFERENCES subscription (id) ON DELETE CASCADE,
              key text NOT NULL,
              fingerprint text NOT NULL,
              guid text, guid_is_permalink boolean, title text, link text, description text, summary text,
              published double precision, duration double precision,
              enclosures text NOT NULL,
              episode_number bigint, season bigint, episode_type text, explicit boolean, image text,
              transcripts text NOT NULL, chapters text, persons text NOT NULL, alternate_enclosures text NOT NULL,
              first_seen_at double precision NOT NULL,
              last_seen_at double precision NOT NULL,
              first_seen_run_id bigint,
              UNIQUE (subscription_id, key)
            )
            """,
            "CREATE INDEX episode_by_feed_date ON episode (subscription_id, published)",
            "CREATE INDEX episode_by_run ON episode (first_seen_run_id)",
            """
            CREATE TABLE refresh_run (
              id bigserial PRIMARY KEY,
              started_at double precision NOT NULL,
              ended_at double precision,
              feeds_checked bigint NOT NULL DEFAULT 0,
              feeds_failed bigint NOT NULL DEFAULT 0,
              feeds_not_modified bigint NOT NULL DEFAULT 0,
              new_episodes bigint NOT NULL DEFAULT 0,
              bytes_downloaded bigint NOT NULL DEFAULT 0,
              bytes_saved bigint NOT NULL DEFAULT 0
            )
            """,
        ],
        // 2: leases for a fleet of workers. A claim writes the worker, a token from the sequence and an expiry by the
        // database's clock; the host (of the URL, "local" for files) is derived for the fleet-wide per-host limit.
        [
            """
            ALTER TABLE subscription
              ADD COLUMN lease_owner text,
              ADD COLUMN lease_token bigint,
              ADD COLUMN lease_expires_at timestamptz,
              ADD COLUMN host text NOT NULL GENERATED ALWAYS AS (
                coalesce(nullif(lower(substring(url FROM '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?(\\[[^]]*\\]|[^/?#:]*)')), ''), 'local')
              ) STORED
            """,
            "CREATE SEQUENCE podfresh_lease_token",
            "CREATE INDEX subscription_leases ON subscription (host) WHERE lease_expires_at IS NOT NULL",
        ],
        // 3: claims walk the feeds that are not gone in the order they became due.
        [
            "CREATE INDEX subscription_claim_order ON subscription (next_check_at NULLS FIRST, id) WHERE NOT is_gone"
        ],
        // 4: downloads. Per-feed settings, and one record per episode identity (feed and key): a changed enclosure URL
        // is the same episode. A record goes with its episode (and so with its subscription).
        [
            """
            ALTER TABLE subscription
              ADD COLUMN downloads_enabled boolean NOT NULL DEFAULT false,
              ADD COLUMN keep_newest bigint,
              ADD COLUMN download_directory text,
              ADD COLUMN file_name_template text
            """,
            """
            CREATE TABLE download (
              subscription_id bigint NOT NULL,
              episode_key text NOT NULL,
              state text NOT NULL,
              part_path text, file_path text, bytes bigint, etag text, last_modified text, url text,
              started_at double precision, downloaded_at double precision, last_error text,
              deleted_by_user boolean NOT NULL DEFAULT false,
              removed_by_retention boolean NOT NULL DEFAULT false,
              PRIMARY KEY (subscription_id, episode_key),
              FOREIGN KEY (subscription_id, episode_key) REFERENCES episode (subscription_id, key)
                ON DELETE CASCADE ON UPDATE CASCADE
            )
            """,
        ],
        // 5: broken links wait. Permanent download failures in a row, when the download is tried again, and the last
        // such failure's message.
        [
            """
            ALTER TABLE download
              ADD COLUMN permanent_failures bigint NOT NULL DEFAULT 0,
              ADD COLUMN retry_after double precision,
              ADD COLUMN permanent_error text
            """
        ],
        // 6: download leases, as feeds have: a worker claims an episode before downloading it. A lease row outlives
        // neither its episode nor its expiry's use (an expired one is taken over in place).
        [
            """
            CREATE TABLE download_lease (
              subscription_id bigint NOT NULL,
              episode_key text NOT NULL,
              owner text NOT NULL,
              token bigint NOT NULL,
              expires_at timestamptz NOT NULL,
              PRIMARY KEY (subscription_id, episode_key),
              FOREIGN KEY (subscription_id, episode_key) REFERENCES episode (subscription_id, key)
                ON DELETE CASCADE ON UPDATE CASCADE
            )
            """
        ],
        // 7: the fleet's runs over every feed (`refresh --all`, `--force`) or named feeds: workers of one run share
        // its start, so each feed is checked once per run.
        [
            """
            CREATE TABLE check_pass (
              selection text PRIMARY KEY,
              started_at double precision NOT NULL,
              touched_at timestamptz NOT NULL,
              ended boolean NOT NULL DEFAULT false
            )
            """
        ],
        // 8: podping (issue #23). Per feed, what it says of podping and its last believed ping; once, the cursor into
        // the Hive chain and the lease of the one worker that reads it.
        [
            """
            CREATE TABLE podping_feed (
              subscription_id bigint PRIMARY KEY REFERENCES subscription (id) ON DELETE CASCADE,
              uses_podping boolean,
              hive_accounts text NOT NULL DEFAULT '',
              last_ping_at double precision, last_ping_reason text, last_ping_block bigint,
              ping_count bigint NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE podping_cursor (
              singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
              block bigint, updated_at double precision,
              holder text, lease_expires_at double precision
            )
            """,
        ],
        // 9: a ping during a check. A check that started before `podping_recheck_before` may have missed the last
        // believed ping: its merge leaves the feed due again `podping_cooldown` seconds after it started. On the
        // subscription row, so a check's one-statement update (a 304) sees the value a ping committed while the
        // update waited for the row's lock.
        [
            """
            ALTER TABLE subscription ADD COLUMN podping_recheck_before double precision,
              ADD COLUMN podping_cooldown double precision
            """
        ],
        // 10: sync with a gPodder-API server (issue #35). The set-up (one row) with its cursor, last outcome and the
        // lease of the one worker that syncs for the fleet; the password too, since every worker of a fleet needs it
        // and whoever can read this database can already change everything in it; the feeds the server is known to
        // hold for this device.
        [
            """
            CREATE TABLE sync_account (
              singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
              server text NOT NULL, username text NOT NULL, device text NOT NULL, api text NOT NULL,
              password text,
              subscriptions_cursor bigint, last_sync_at double precision, last_outcome text,
              holder text, lease_expires_at double precision
            )
            """,
            "CREATE TABLE sync_known_feed (url text PRIMARY KEY)",
        ],
        // 11: episode actions (issue #35, part 3). The cursor of the server's episode actions; per episode, where it
        // stands on the user's other devices (the latest action applied; gone with its episode); the outbox of
        // actions to push (a download completed here), each deleted in the transaction that records the server took
        // it; the actions waiting for their episode to be stored; and the per-feed switch that deletes a played
        // episode's file.
        [
            "ALTER TABLE sync_account ADD COLUMN actions_cursor bigint",
            "ALTER TABLE subscription ADD COLUMN delete_played boolean NOT NULL DEFAULT false",
            """
            CREATE TABLE episode_play (
              subscription_id bigint NOT NULL,
              episode_key text NOT NULL,
              position bigint, total bigint,
              played boolean NOT NULL DEFAULT false,
              played_at double precision,
              last_action text NOT NULL,
              action_at double precision NOT NULL,
              device text,
              PRIMARY KEY (subscription_id, episode_key),
              FOREIGN KEY (subscription_id, episode_key) REFERENCES episode (subscription_id, key)
                ON DELETE CASCADE ON UPDATE CASCADE
            )
            """,
            """
            CREATE TABLE sync_action_outbox (
              id bigserial PRIMARY KEY,
              subscription_id bigint, episode_key text,
              podcast text NOT NULL, episode text NOT NULL, guid text, action text NOT NULL,
              timestamp double precision NOT NULL, position bigint, total bigint
            )
            """,
            """
            CREATE TABLE episode_action_waiting (
              id bigserial PRIMARY KEY,
              subscription_id bigint NOT NULL REFERENCES subscription (id) ON DELETE CASCADE,
              podcast text NOT NULL, episode text NOT NULL, guid text, action text NOT NULL,
              timestamp double precision, started bigint, position bigint, total bigint, device text
            )
            """,
        ],
        // 12: download filters and extras (issue #37, items 3 and 4). A feed's filters (JSON; NULL: none) and its
        // switch for the files beside an episode; per download, the extra files podfresh wrote or tried (JSON).
        [
            """
            ALTER TABLE subscription ADD COLUMN download_filter text,
              ADD COLUMN extras boolean NOT NULL DEFAULT false
            """,
            "ALTER TABLE download ADD COLUMN extra_files text",
        ],
        // 13: the steady state (issue #36). The digest of the last body read whole and when a body was last read
        // whole (a short read stops at the known leading episodes), and per run how many feeds were read short.
        [
            """
            ALTER TABLE subscription ADD COLUMN last_body_digest text,
              ADD COLUMN last_whole_read_at double precision
            """,
            "ALTER TABLE refresh_run ADD COLUMN feeds_read_short bigint NOT NULL DEFAULT 0",
        ],
        // 14: when a feed publishes: its publication model (the scheduler's JSON), learned at each check.
        ["ALTER TABLE subscription ADD COLUMN publication_model text"],
        // 15: a feed whose last body read to its end broke off before its root element closed.
        [
            "ALTER TABLE subscription ADD COLUMN ended_early boolean NOT NULL DEFAULT false"
        ],
        // 16: downloads from now on: turning a feed's downloads on takes the episodes first seen after that time, and
        // of those before only the newest download_backlog (1 by default); a feed keeps a NULL downloads_since, every
        // episode as before.
        [
            """
            ALTER TABLE subscription ADD COLUMN downloads_since double precision,
              ADD COLUMN download_backlog bigint DEFAULT 1
            """
        ],
        // 17: tags written into each downloaded file after it is verified: 'off', 'on' (replace the host's) or
        // 'merge'.
        ["ALTER TABLE subscription ADD COLUMN tag_mode text NOT NULL DEFAULT 'off'"],
        // 18: a podcast:liveItem is kept as an episode with its status, start, end and content links (JSON); NULL for
        // an ordinary item.
        ["ALTER TABLE episode ADD COLUMN live_item text"],
        // 19: the download settings every subscription made from now on starts with (`set --new-feeds`): one row or
        // none (the defaults); columns as the subscription's own, a NULL download_backlog taking every episode.
        [
            """
            CREATE TABLE new_feed_settings (
              singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
              downloads_enabled boolean NOT NULL DEFAULT false, keep_newest bigint, download_directory text,
              file_name_template text, delete_played boolean NOT NULL DEFAULT false, download_filter text,
              extras boolean NOT NULL DEFAULT false, download_backlog bigint,
              tag_mode text NOT NULL DEFAULT 'off'
            )
            """
        ],
    ]

    /// The version this binary writes and understands.
    static var currentVersion: Int { migrations.count }

    /// Creates or upgrades the schema in one transaction, under the migration lock.
    ///
    /// - Throws: ``StoreError`` `.database` when the database was written by a newer podfresh, or holds another
    ///   program's `subscription` table.
    static func migrate(on connection: PostgresConnection, location: PostgresLocation, logger: Logger) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            let version = try await installedVersion(on: connection, location: location, logger: logger)
            if version > currentVersion {
                throw StoreError(
                    .newerSchema(database: location.description, version: version, known: currentVersion))
            }
            for index in version..<currentVersion {
                for statement in migrations[index] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("UPDATE podfresh_schema SET version = \(index + 1)", logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// The schema version stored in the database: 0 for a database podfresh has not set up yet (its version table
    /// is created then).
    private static func installedVersion(
        on connection: PostgresConnection, location: PostgresLocation, logger: Logger
    ) async throws -> Int {
        let tables = try await connection.query(
            """
            SELECT coalesce(to_regclass('podfresh_schema') IS NOT NULL, false),
                   coalesce(to_regclass('subscription') IS NOT NULL, false)
            """, logger: logger)
        var haveVersion = false
        var haveSubscriptions = false
        for try await (version, subscriptions) in tables.decode((Bool, Bool).self) {
            haveVersion = version
            haveSubscriptions = subscriptions
        }
        if !haveVersion {
            guard !haveSubscriptions else {
                throw StoreError(.foreignTables(database: location.description))
            }
            try await connection.query(
                """
                CREATE TABLE podfresh_schema (
                  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                  version bigint NOT NULL
                )
                """, logger: logger)
            try await connection.query("INSERT INTO podfresh_schema (version) VALUES (0)", logger: logger)
            return 0
        }
        var version = 0
        for try await value in try await connection.query("SELECT version FROM podfresh_schema", logger: logger)
            .decode(Int.self)
        {
            version = value
        }
        return version
    }
}
