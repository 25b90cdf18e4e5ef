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
        return migrator
    }
}
