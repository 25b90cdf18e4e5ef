/// What copying one store into another did (`podfresh migrate`): for subscriptions, episodes, runs and download
/// records, how many the source held, how many were copied, and how many the target already had.
///
/// The copy checks its counts before it commits, so a summary is only ever returned for a copy in which
/// `copied + alreadyPresent == source` for every table.
public struct MigrationSummary: Sendable, Hashable {
    /// The counts for one table.
    public struct Counts: Sendable, Hashable {
        /// Rows the source held.
        public var source: Int
        /// Rows written into the target.
        public var copied: Int
        /// Rows of the source the target already held (same feed URL; same feed and episode key; same run; a record
        /// for the same feed and episode key), left as they were.
        public var alreadyPresent: Int

        /// Counts for one table.
        public init(source: Int = 0, copied: Int = 0, alreadyPresent: Int = 0) {
            self.source = source
            self.copied = copied
            self.alreadyPresent = alreadyPresent
        }
    }

    /// Subscriptions.
    public var subscriptions: Counts
    /// Episodes.
    public var episodes: Counts
    /// Refresh runs (present: the target has a run with the same start, end and counts, from an earlier copy).
    public var runs: Counts
    /// Download records (present: the target already has a record for that feed and episode key, which it keeps).
    public var downloads: Counts
    /// True when the copy was merged into a target that already held subscriptions.
    public var merged: Bool
    /// True when the rows kept the source's ids (the target held none before).
    public var keptIDs: Bool
    /// What became of the source's sync set-up.
    public var sync: SyncCarried = .none
    /// What became of the source's settings for new subscriptions (`set --new-feeds`).
    public var newFeedSettings: NewFeedSettingsCarried = .none

    /// What `migrate` did with the source's settings for new subscriptions.
    public enum NewFeedSettingsCarried: String, Sendable, Hashable {
        /// The source has none (new subscriptions start with the defaults).
        case none
        /// Carried: new subscriptions made on the target start with them.
        case carried
        /// The target has settings of its own, which it keeps.
        case targetHasThem = "target_has_them"
    }

    /// What `migrate` did with the source's sync set-up.
    public enum SyncCarried: String, Sendable, Hashable {
        /// The source has none.
        case none
        /// Carried with its cursors, known list, play states and outbox, and the password.
        case carried
        /// Carried, but the source had no password to carry: `sync setup` must be run again.
        case carriedWithoutPassword = "carried_without_password"
        /// The target has a set-up of its own, which it keeps.
        case targetHasOne = "target_has_one"
    }

    /// A summary of these counts.
    public init(
        subscriptions: Counts, episodes: Counts, runs: Counts, downloads: Counts = Counts(), merged: Bool,
        keptIDs: Bool
    ) {
        self.subscriptions = subscriptions
        self.episodes = episodes
        self.runs = runs
        self.downloads = downloads
        self.merged = merged
        self.keptIDs = keptIDs
    }
}
