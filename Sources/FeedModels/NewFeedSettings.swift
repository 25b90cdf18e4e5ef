public import Foundation

/// The download settings every subscription made from now on starts with (`set --new-feeds`), whether it comes from
/// `add`, `import` or a sync: downloads on or off, how many files to keep, where, named how, whether played episodes'
/// files go, the filters, the files beside an episode, the tags written into its files, and how many episodes from
/// before downloads began are taken.
///
/// A store keeps one set or none (``NewFeedSettingsRepository``); none means every new subscription starts with the
/// defaults, as ``NewFeedSettings/init()`` holds them. A subscription starts with them in the transaction that adds
/// it, as though `set FEED` had given them at that moment (``changeForNewFeed(at:)``): with downloads on, it downloads
/// the episodes that arrive from then on and the newest `backlog` of those its first check finds.
public struct NewFeedSettings: Sendable, Hashable {
    /// Downloads on.
    public var downloadsEnabled = false
    /// Keep only the newest N files; nil keeps every one.
    public var keepNewest: Int?
    /// Where the feed's files go; nil: the default download directory.
    public var directory: String?
    /// How the feed's files are named; nil: the default template.
    public var fileNameTemplate: String?
    /// Delete a file once its episode was played to the end on any device.
    public var deletePlayed = false
    /// Which episodes are downloaded.
    public var filter = DownloadFilter.none
    /// Save transcripts, chapters and artwork beside the media.
    public var extras = false
    /// Of the episodes there before downloads began, how many of the newest are downloaded; nil: every one.
    public var backlog: Int? = 1
    /// Tags written into each file after it is verified.
    public var tagMode = TagMode.off

    /// The defaults: what a new subscription starts with when none were set.
    public init() {}

    /// True when these are the defaults (a store then keeps none).
    public var isDefault: Bool { self == NewFeedSettings() }

    /// These settings with `change` made to them, as `set FEED` makes it to a feed's (fields the change leaves nil
    /// are kept; `clearFilters` empties the filters first).
    public func changed(by change: DownloadSettings) -> NewFeedSettings {
        let template = asSubscription
        var result = self
        let (enabled, keep, directory, nameTemplate) = change.applied(to: template)
        result.downloadsEnabled = enabled
        result.keepNewest = keep
        result.directory = directory
        result.fileNameTemplate = nameTemplate
        result.deletePlayed = change.deletesPlayed(template)
        result.filter = change.filter(after: template)
        result.extras = change.savesExtras(template)
        result.tagMode = change.tagMode(template)
        switch change.backlog {
        case nil: break
        case .all?: result.backlog = nil
        case .newest(let count)?: result.backlog = count
        }
        return result
    }

    /// The change that gives a subscription added at `date` these settings (applied to it in the transaction that adds
    /// it): with downloads on, they begin at `date`, so the first check's episodes count as "from before" and only
    /// the newest ``backlog`` of them are downloaded, then every episode that arrives after.
    public func changeForNewFeed(at date: Date) -> DownloadSettings {
        var change = DownloadSettings(
            enabled: downloadsEnabled, keepNewest: keepNewest.map { .set($0) },
            directory: directory.map { .set($0) }, fileNameTemplate: fileNameTemplate.map { .set($0) },
            deletePlayed: deletePlayed)
        change.include = filter.include
        change.exclude = filter.exclude
        change.match = filter.match
        change.minimumDuration = filter.minimumDuration.map { .set($0) }
        change.extras = extras
        change.tags = tagMode
        change.backlog = backlog.map { DownloadBacklog.newest($0) } ?? .all
        change.changedAt = date
        return change
    }

    /// A subscription that holds these settings, for the rules ``DownloadSettings`` applies to a feed's.
    private var asSubscription: Subscription {
        var subscription = Subscription(id: 0, url: URL(fileURLWithPath: "/"), addedAt: Date(timeIntervalSince1970: 0))
        subscription.downloadsEnabled = downloadsEnabled
        subscription.keepNewest = keepNewest
        subscription.downloadDirectory = directory
        subscription.fileNameTemplate = fileNameTemplate
        subscription.deletePlayed = deletePlayed
        subscription.downloadFilter = filter
        subscription.extras = extras
        subscription.downloadBacklog = backlog
        subscription.tagMode = tagMode
        return subscription
    }
}

/// The settings new subscriptions start with, for either store. ``SubscriptionRepository/addSubscription(url:title:at:backlog:)``
/// gives them to each subscription it adds, in the same transaction.
public protocol NewFeedSettingsRepository: Sendable {
    /// The settings new subscriptions start with; nil when none were set (the defaults).
    func newFeedSettings() async throws -> NewFeedSettings?
    /// Makes `change` to the settings new subscriptions start with (to the defaults when none were set) and returns
    /// them as stored. Existing subscriptions are not changed.
    @discardableResult func updateNewFeedSettings(_ change: DownloadSettings) async throws -> NewFeedSettings
    /// Forgets them: new subscriptions start with the defaults again. - Returns: false when none were set.
    @discardableResult func resetNewFeedSettings() async throws -> Bool
}
