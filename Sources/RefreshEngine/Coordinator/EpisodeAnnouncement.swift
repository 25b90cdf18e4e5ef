public import FeedParsing
public import Foundation

/// What the engine says about an episode stored for the first time: the few fields output and hooks use, not the
/// bulky ones (show notes, persons, transcripts). A run over many feeds keeps every outcome until it ends, so this
/// type is what keeps its memory flat; the store has the full episode.
public struct EpisodeAnnouncement: Sendable, Hashable {
    /// The subscription the episode belongs to.
    public var feedID: Int64
    /// The feed-scoped identity key (``ParsedEpisode/id``).
    public var key: String
    public var guid: String?
    public var title: String?
    /// The episode's web page, as written in the feed and as a URL.
    public var linkString: String?
    public var link: URL?
    public var published: Date?
    /// Seconds.
    public var duration: Double?
    /// The media file (``ParsedEpisode/chosenEnclosure``: the audio, else video, one), else the first enclosure.
    public var enclosure: Enclosure?

    /// The announcement of `episode` of subscription `feedID`.
    public init(feedID: Int64, episode: ParsedEpisode) {
        self.feedID = feedID
        self.key = episode.id
        self.guid = episode.guid
        self.title = episode.title
        self.linkString = episode.linkString
        self.link = episode.link
        self.published = episode.published
        self.duration = episode.duration
        self.enclosure = episode.chosenEnclosure?.enclosure ?? episode.enclosures.first
    }
}
