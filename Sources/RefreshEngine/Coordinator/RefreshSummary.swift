public import Foundation

/// The totals of one refresh run, and the exit status they call for.
public struct RefreshSummary: Sendable, Hashable {
    public var outcomes: [RefreshOutcome]
    public var startedAt: Date
    public var endedAt: Date
    /// True when every network fetch failed to resolve or connect: the network is down, and no feed was blamed.
    public var networkOffline: Bool
    /// True when the run was stopped (SIGINT/SIGTERM) before every feed finished.
    public var wasCancelled: Bool
    /// The downloads of `refresh --download` / `watch --download`, nil without.
    public var downloads: DownloadSummary?
    /// When a run of due feeds found none due among its subscriptions: when the first is due next (nil when none ever
    /// will be: every feed is gone or complete). Nil for any other run.
    public var nothingDue: NothingDue?

    /// Why a run of due feeds checked nothing.
    public enum NothingDue: Sendable, Hashable {
        /// The first feed is due at this time.
        case nextAt(Date)
        /// No feed will be due again: every one is gone or complete.
        case never
    }

    public init(
        outcomes: [RefreshOutcome], startedAt: Date, endedAt: Date, networkOffline: Bool = false,
        wasCancelled: Bool = false
    ) {
        self.outcomes = outcomes
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.networkOffline = networkOffline
        self.wasCancelled = wasCancelled
    }

    public var newEpisodeCount: Int { outcomes.reduce(0) { $0 + $1.newEpisodeCount } }
    public var failedCount: Int { outcomes.filter(\.isFailure).count }
    public var notModifiedCount: Int { outcomes.filter { $0.result == .notModified }.count }
    public var updatedCount: Int {
        outcomes.filter { if case .updated = $0.result { return true } else { return false } }.count
    }
    /// The feeds whose check stored a change (``RefreshOutcome/storedChanges``): what a person reads as "updated".
    public var changedCount: Int { outcomes.count(where: \.storedChanges) }
    /// The feeds that answered without a change: 304, a body identical to the last, or one merged (read short or
    /// whole) that changed nothing.
    public var unchangedCount: Int { notModifiedCount + updatedCount - changedCount }
}
