public import FeedModels
public import FeedParsing

/// What `podfresh migrate` prints: where the copy went, how many subscriptions, episodes, runs and download records
/// were copied (and, when merging, how many the target already had), and that the counts checked out; or with `--json`
/// one JSON object.
public struct MigrationReport: Sendable {
    /// What the copy did.
    public var summary: MigrationSummary
    /// The SQLite file copied from.
    public var source: String
    /// The PostgreSQL database copied into, without its password.
    public var target: String

    /// - Parameters:
    ///   - summary: What the copy did.
    ///   - source: The SQLite file copied from.
    ///   - target: The PostgreSQL database copied into, as printed (never with a password).
    public init(summary: MigrationSummary, source: String, target: String) {
        self.summary = summary
        self.source = source
        self.target = target
    }

    // MARK: - Text

    /// A heading line, one line per table, and the count check.
    public func lines() -> [String] {
        let verb = summary.merged ? "merged" : "copied"
        var lines = ["\(verb) \(TerminalText.sanitize(source)) into \(TerminalText.sanitize(target))"]
        lines.append("  subscriptions: \(Self.counts(summary.subscriptions))")
        lines.append("  episodes:      \(Self.counts(summary.episodes))")
        lines.append("  refresh runs:  \(Self.counts(summary.runs))")
        lines.append("  downloads:     \(Self.counts(summary.downloads))")
        switch summary.sync {
        case .none: break
        case .carried:
            lines.append(
                "  sync:          the set-up, its cursors, play states and actions to push; the password is now kept in the database, for every worker"
            )
        case .carriedWithoutPassword:
            lines.append(
                "  sync:          the set-up, its cursors, play states and actions to push, but no password was kept beside the SQLite file: run `podfresh sync setup` against the new database"
            )
        case .targetHasOne:
            lines.append("  sync:          not carried: the target has a sync set-up of its own, which it keeps")
        }
        switch summary.newFeedSettings {
        case .none: break
        case .carried:
            lines.append("  new feeds:     the settings new subscriptions start with (set --new-feeds)")
        case .targetHasThem:
            lines.append(
                "  new feeds:     settings not carried: the target has settings for new subscriptions of its own, which it keeps"
            )
        }
        lines.append(
            "counts checked: the target holds all \(summary.subscriptions.source) subscriptions, \(summary.episodes.source) episodes, \(summary.runs.source) runs and \(summary.downloads.source) download records of the source; the source was not changed"
        )
        return lines
    }

    /// "12 copied", or "3 copied, 9 already present" when the target had some.
    static func counts(_ counts: MigrationSummary.Counts) -> String {
        counts.alreadyPresent > 0
            ? "\(counts.copied) copied, \(counts.alreadyPresent) already present" : "\(counts.copied) copied"
    }

    // MARK: - JSON

    /// The `migrate --json` object, keys in a fixed order (the README documents them).
    public func json() -> String { jsonValue.serialized() }

    /// The `migrate --json` object: `source`, `target`, `merged`, `kept_ids`, then `subscriptions`, `episodes`,
    /// `runs` and `downloads`, each `{source, copied, already_present}`.
    public var jsonValue: JSONValue {
        func object(_ counts: MigrationSummary.Counts) -> JSONValue {
            .object([
                ("source", .int(counts.source)), ("copied", .int(counts.copied)),
                ("already_present", .int(counts.alreadyPresent)),
            ])
        }
        return .object([
            ("source", .string(source)), ("target", .string(target)), ("merged", .bool(summary.merged)),
            ("kept_ids", .bool(summary.keptIDs)), ("subscriptions", object(summary.subscriptions)),
            ("episodes", object(summary.episodes)), ("runs", object(summary.runs)),
            ("downloads", object(summary.downloads)), ("sync", .string(summary.sync.rawValue)),
            ("new_feed_settings", .string(summary.newFeedSettings.rawValue)),
        ])
    }

    // MARK: - Refusals

    /// `migrate` (standard error): the target already holds subscriptions and `--merge` was not given.
    public static func targetNotEmpty(target: String, subscriptionCount: Int) -> String {
        "\(TerminalText.sanitize(target)) already holds \(subscriptionCount) subscription\(subscriptionCount == 1 ? "" : "s"); nothing was copied. Give --merge to add this database's subscriptions, episodes, runs and downloads to them (subscriptions it already has keep their state), or migrate into an empty database"
    }

    /// `migrate` (usage error): the source is a PostgreSQL URL, not an SQLite file.
    public static let sourceIsPostgres =
        "migrate copies an SQLite database into PostgreSQL, and the database to copy (--database or PODFRESH_DATABASE) is a PostgreSQL URL; give the SQLite file to copy with --database"

    /// `migrate` (usage error): `--to` does not name a PostgreSQL database (the value is not repeated: it may hold a
    /// password).
    public static let targetNotPostgres =
        "--to takes the PostgreSQL database to copy into, as a postgres:// or postgresql:// URL (postgres://user:password@host:port/database)"

    /// `migrate`: there is no SQLite file to copy.
    public static func noSource(_ path: String) -> String {
        "there is no database at \(TerminalText.sanitize(path)) to copy; give the SQLite file with --database"
    }
}
