import GRDB

/// The schema's versioned migrations. A shipped migration is never edited: changes come as new ones.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "subscription") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("url", .text).notNull().unique()
                t.column("title", .text)
                t.column("link", .text)
                t.column("image", .text)
                t.column("description", .text)
                t.column("author", .text)
                t.column("language", .text)
                t.column("addedAt", .double).notNull()
                t.column("etag", .text)
                t.column("lastModified", .text)
                t.column("lastCheckedAt", .double)
                t.column("lastSuccessAt", .double)
                t.column("lastUnconditionalAt", .double)
                t.column("lastStatus", .integer)
                t.column("failureCount", .integer).notNull().defaults(to: 0)
                t.column("lastErrorKind", .text)
                t.column("lastError", .text)
                t.column("isGone", .boolean).notNull().defaults(to: false)
                t.column("isComplete", .boolean).notNull().defaults(to: false)
                t.column("nextCheckAt", .double)
                t.column("nextCheckReason", .text)
                t.column("movedFrom", .text)
                t.column("lastBodyBytes", .integer)
            }
            try db.create(table: "episode") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("subscriptionId", .integer).notNull().references("subscription", onDelete: .cascade)
                t.column("key", .text).notNull()
                t.column("fingerprint", .text).notNull()
                t.column("guid", .text)
                t.column("guidIsPermaLink", .boolean)
                t.column("title", .text)
                t.column("link", .text)
                t.column("description", .text)
                t.column("summary", .text)
                t.column("published", .double)
                t.column("duration", .double)
                t.column("enclosures", .text).notNull()
                t.column("episodeNumber", .integer)
                t.column("season", .integer)
                t.column("episodeType", .text)
                t.column("explicit", .boolean)
                t.column("image", .text)
                t.column("transcripts", .text).notNull()
                t.column("chapters", .text)
                t.column("persons", .text).notNull()
                t.column("alternateEnclosures", .text).notNull()
                t.column("firstSeenAt", .double).notNull()
                t.column("lastSeenAt", .double).notNull()
                t.column("firstSeenRunId", .integer)
                t.uniqueKey(["subscriptionId", "key"])
            }
            try db.create(index: "episode_by_feed_date", on: "episode", columns: ["subscriptionId", "published"])
            try db.create(index: "episode_by_run", on: "episode", columns: ["firstSeenRunId"])
            try db.create(table: "refreshRun") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("startedAt", .double).notNull()
                t.column("endedAt", .double)
                t.column("feedsChecked", .integer).notNull().defaults(to: 0)
                t.column("feedsFailed", .integer).notNull().defaults(to: 0)
                t.column("feedsNotModified", .integer).notNull().defaults(to: 0)
                t.column("newEpisodes", .integer).notNull().defaults(to: 0)
                t.column("bytesDownloaded", .integer).notNull().defaults(to: 0)
                t.column("bytesSaved", .integer).notNull().defaults(to: 0)
            }
        }
        migrator.registerMigration("v2: scheduling hints") { db in
            // What the feed itself asked for (ttl, sy:*, podcast:updateFrequency), kept so a 304 still honours it.
            try db.alter(table: "subscription") { t in
                t.add(column: "ttlMinutes", .integer)
                t.add(column: "syndicationUpdatePeriod", .text)
                t.add(column: "syndicationUpdateFrequency", .integer)
                t.add(column: "podcastUpdateFrequency", .text)
            }
        }
        migrator.registerMigration("v3: back catalogue and undone moves") { db in
            try db.alter(table: "subscription") { t in
                t.add(column: "backlog", .integer)
                t.add(column: "refusedMoveTarget", .text)
            }
        }
        migrator.registerMigration("normalised subscription URLs") { db in
            // URLs differing only in scheme/host case or a fragment are one feed. Rows stored before podfresh
            // normalised them get the one spelling; duplicates merge into the oldest subscription, keeping every
            // episode either of them stored (a key both have keeps the oldest subscription's row).
            var kept: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, url FROM subscription ORDER BY id") {
                let id: Int64 = row["id"]
                let url: String = row["url"]
                let normalised = normalisedURLv3(url)
                if let keep = kept[normalised] {
                    try db.execute(
                        sql: "UPDATE OR IGNORE episode SET subscriptionId = ? WHERE subscriptionId = ?",
                        arguments: [keep, id])
                    try db.execute(sql: "DELETE FROM episode WHERE subscriptionId = ?", arguments: [id])
                    try db.execute(
                        sql:
                            "UPDATE subscription SET title = COALESCE(title, (SELECT title FROM subscription WHERE id = ?)) WHERE id = ?",
                        arguments: [id, keep])
                    try db.execute(sql: "DELETE FROM subscription WHERE id = ?", arguments: [id])
                } else {
                    kept[normalised] = id
                }
            }
            for (normalised, id) in kept {
                try db.execute(
                    sql: "UPDATE subscription SET url = ? WHERE id = ? AND url <> ?",
                    arguments: [normalised, id, normalised])
            }
        }
        migrator.registerMigration("v5: downloads") { db in
            // Per-feed download settings, and one record per episode identity (feed and key): a changed enclosure URL
            // is the same episode. A record goes with its episode (and so with its subscription).
            try db.alter(table: "subscription") { t in
                t.add(column: "downloadsEnabled", .boolean).notNull().defaults(to: false)
                t.add(column: "keepNewest", .integer)
                t.add(column: "downloadDirectory", .text)
                t.add(column: "fileNameTemplate", .text)
            }
            try db.create(table: "download") { t in
                t.column("subscriptionId", .integer).notNull()
                t.column("episodeKey", .text).notNull()
                t.column("state", .text).notNull()
                t.column("partPath", .text)
                t.column("filePath", .text)
                t.column("bytes", .integer)
                t.column("etag", .text)
                t.column("lastModified", .text)
                t.column("url", .text)
                t.column("startedAt", .double)
                t.column("downloadedAt", .double)
                t.column("lastError", .text)
                t.column("deletedByUser", .boolean).notNull().defaults(to: false)
                t.column("removedByRetention", .boolean).notNull().defaults(to: false)
                t.primaryKey(["subscriptionId", "episodeKey"])
                t.foreignKey(
                    ["subscriptionId", "episodeKey"], references: "episode", columns: ["subscriptionId", "key"],
                    onDelete: .cascade, onUpdate: .cascade)
            }
        }
        migrator.registerMigration("v6: broken links wait") { db in
            // Permanent failures in a row, when the download is tried again, and the last such failure's message.
            try db.alter(table: "download") { t in
                t.add(column: "permanentFailures", .integer).notNull().defaults(to: 0)
                t.add(column: "retryAfter", .double)
                t.add(column: "permanentError", .text)
            }
        }
        migrator.registerMigration("podping") { db in
            // Issue #23: per feed, what it says of podping and its last believed ping (kept beside the subscription,
            // gone with it); once, the cursor into the Hive chain and the lease of the worker that reads it.
            try db.create(table: "podpingFeed") { t in
                t.primaryKey("subscriptionId", .integer).references("subscription", onDelete: .cascade)
                t.column("usesPodping", .boolean)
                t.column("hiveAccounts", .text).notNull().defaults(to: "")
                t.column("lastPingAt", .double)
                t.column("lastPingReason", .text)
                t.column("lastPingBlock", .integer)
                t.column("pingCount", .integer).notNull().defaults(to: 0)
            }
            try db.create(table: "podpingCursor") { t in
                t.primaryKey("singleton", .integer).check { $0 == 1 }
                t.column("block", .integer)
                t.column("updatedAt", .double)
                t.column("holder", .text)
                t.column("leaseExpiresAt", .double)
            }
        }
        migrator.registerMigration("podping: pings during a check") { db in
            // A check that started before `recheckBefore` may have missed the last believed ping: its merge leaves the
            // feed due again `recheckCooldown` seconds after the check started (PodpingDuePlan.dueAfterCheck).
            try db.alter(table: "podpingFeed") { t in
                t.add(column: "recheckBefore", .double)
                t.add(column: "recheckCooldown", .double)
            }
        }
        migrator.registerMigration("sync") { db in
            // Issue #35: the gPodder-API set-up (one row), its cursor, the last outcome and the lease of the worker that
            // syncs; and the feeds the server is known to hold for this device (normalised URLs), which a sync compares
            // the subscriptions with. The password is not stored here (a file beside the database, mode 0600).
            try db.create(table: "syncAccount") { t in
                t.primaryKey("singleton", .integer).check { $0 == 1 }
                t.column("server", .text).notNull()
                t.column("user", .text).notNull()
                t.column("device", .text).notNull()
                t.column("api", .text).notNull()
                t.column("subscriptionsCursor", .integer)
                t.column("lastSyncAt", .double)
                t.column("lastOutcome", .text)
                t.column("holder", .text)
                t.column("leaseExpiresAt", .double)
            }
            try db.create(table: "syncKnownFeed") { t in
                t.primaryKey("url", .text)
            }
        }
        migrator.registerMigration("sync: episode actions") { db in
            // Issue #35, part 3: the cursor of the server's episode actions; per episode, where it stands on the
            // user's other devices (the latest action applied; gone with its episode); the outbox of actions to push
            // (a download completed here), each deleted in the transaction that records the server took it; and the
            // per-feed switch that deletes a played episode's file.
            try db.alter(table: "syncAccount") { t in
                t.add(column: "actionsCursor", .integer)
            }
            try db.alter(table: "subscription") { t in
                t.add(column: "deletePlayed", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "episodePlay") { t in
                t.column("subscriptionId", .integer).notNull()
                t.column("episodeKey", .text).notNull()
                t.column("position", .integer)
                t.column("total", .integer)
                t.column("played", .boolean).notNull().defaults(to: false)
                t.column("playedAt", .double)
                t.column("lastAction", .text).notNull()
                t.column("actionAt", .double).notNull()
                t.column("device", .text)
                t.primaryKey(["subscriptionId", "episodeKey"])
                t.foreignKey(
                    ["subscriptionId", "episodeKey"], references: "episode", columns: ["subscriptionId", "key"],
                    onDelete: .cascade, onUpdate: .cascade)
            }
            try db.create(table: "syncActionOutbox") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("subscriptionId", .integer)
                t.column("episodeKey", .text)
                t.column("podcast", .text).notNull()
                t.column("episode", .text).notNull()
                t.column("guid", .text)
                t.column("action", .text).notNull()
                t.column("timestamp", .double).notNull()
                t.column("position", .integer)
                t.column("total", .integer)
            }
            // Actions the server gave for a feed subscribed here but an episode not stored yet: matched again at each
            // sync and before downloads, applied once the episode is stored; gone with their feed.
            try db.create(table: "episodeActionWaiting") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("subscriptionId", .integer).notNull().references("subscription", onDelete: .cascade)
                t.column("podcast", .text).notNull()
                t.column("episode", .text).notNull()
                t.column("guid", .text)
                t.column("action", .text).notNull()
                t.column("timestamp", .double)
                t.column("started", .integer)
                t.column("position", .integer)
                t.column("total", .integer)
                t.column("device", .text)
            }
        }
        migrator.registerMigration("downloads: filters and extras") { db in
            // Issue #37, items 3 and 4: a feed's download filters (JSON: include and exclude patterns, what they
            // match, the shortest duration; NULL: none) and its switch for the files beside an episode; per download,
            // the extra files podfresh wrote or tried (JSON: kind, URL, path, failures and backoff).
            try db.alter(table: "subscription") { t in
                t.add(column: "downloadFilter", .text)
                t.add(column: "extras", .boolean).notNull().defaults(to: false)
            }
            try db.alter(table: "download") { t in
                t.add(column: "extraFiles", .text)
            }
        }
        // Issue #36: what lets an unchanged feed cost next to nothing. The digest of the last body read whole and when a
        // body was last read whole (a short read stops at the known leading episodes), and per run how many feeds
        // were read short.
        migrator.registerMigration("steady state: body digest, whole reads, short reads") { db in
            try db.alter(table: "subscription") { t in
                t.add(column: "lastBodyDigest", .text)
                t.add(column: "lastWholeReadAt", .double)
            }
            try db.alter(table: "refreshRun") { t in
                t.add(column: "feedsReadShort", .integer).notNull().defaults(to: 0)
            }
        }
        // When a feed publishes: its publication model (the scheduler's JSON), learned at each check.
        migrator.registerMigration("publication model") { db in
            try db.alter(table: "subscription") { t in
                t.add(column: "publicationModel", .text)
            }
        }
        // A feed whose last body read to its end broke off before its root element closed: reported in `list` and
        // `status` instead of `ok`. Existing feeds start unflagged; their next whole read sets it.
        migrator.registerMigration("document ended early") { db in
            try db.alter(table: "subscription") { t in
                t.add(column: "endedEarly", .boolean).notNull().defaults(to: false)
            }
        }
        // Downloads from now on: turning a feed's downloads on takes the episodes first seen after that time, and of
        // those before only the newest `downloadBacklog` (1 by default). A feed keeps a NULL `downloadsSince`, every
        // episode as before, so a feed whose downloads are on downloads what it did.
        migrator.registerMigration("downloads from now on") { db in
            try db.alter(table: "subscription") { t in
                t.add(column: "downloadsSince", .double)
                t.add(column: "downloadBacklog", .integer).defaults(to: 1)
            }
        }
        // Tags written into each downloaded file after it is verified: 'off', 'on' (replace the host's) or 'merge'.
        migrator.registerMigration("downloads: tags") { db in
            try db.alter(table: "subscription") { t in
                t.add(column: "tagMode", .text).notNull().defaults(to: "off")
            }
        }
        // A `podcast:liveItem` is kept as an episode with its status, start, end and content links (JSON); NULL for an
        // ordinary item, which every stored episode is.
        migrator.registerMigration("episodes: live items") { db in
            try db.alter(table: "episode") { t in
                t.add(column: "liveItem", .text)
            }
        }
        // The download settings every subscription made from now on starts with (`set --new-feeds`): one row or
        // none (the defaults). Columns as the subscription's own; `downloadBacklog` NULL takes every episode.
        migrator.registerMigration("settings for new feeds") { db in
            try db.create(table: "newFeedSettings") { t in
                t.column("id", .integer).primaryKey().check { $0 == 1 }
                t.column("downloadsEnabled", .boolean).notNull().defaults(to: false)
                t.column("keepNewest", .integer)
                t.column("downloadDirectory", .text)
                t.column("fileNameTemplate", .text)
                t.column("deletePlayed", .boolean).notNull().defaults(to: false)
                t.column("downloadFilter", .text)
                t.column("extras", .boolean).notNull().defaults(to: false)
                t.column("downloadBacklog", .integer)
                t.column("tagMode", .text).notNull().defaults(to: "off")
            }
        }
        return migrator
    }

    /// The URL normalisation as this migration shipped it (a migration never changes, so it keeps its own copy of
    /// `FeedURL.normalizedString`): scheme and host lowercased, fragment dropped, everything else kept.
    private static func normalisedURLv3(_ text: String) -> String {
        var text = Substring(text)
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        guard let colon = text.firstIndex(of: ":") else { return String(text) }
        let scheme = text[..<colon]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else {
            return String(text)
        }
        var result = scheme.lowercased() + ":"
        var rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return result + rest }
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map(authority.index(after:)) ?? authority.startIndex
        result += "//" + authority[..<hostStart] + authority[hostStart...].lowercased()
        return result + rest[authorityEnd...]
    }
}
