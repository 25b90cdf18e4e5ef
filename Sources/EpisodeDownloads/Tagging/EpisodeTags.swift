public import Foundation

/// The tags written into a downloaded episode's file: what a music player or an audiobook server shows.
public struct EpisodeTags: Sendable, Hashable {
    /// The episode's title.
    public var title: String?
    /// The podcast, as the album.
    public var album: String?
    /// The episode's author, else the podcast's, as the artist.
    public var artist: String?
    /// `itunes:episode`, as the track number.
    public var track: Int?
    /// `itunes:season`, as the disc number.
    public var disc: Int?
    /// When the episode was published.
    public var date: Date?
    /// The show notes as plain text, at most ``descriptionLimit`` characters.
    public var description: String?
    /// Always "Podcast".
    public var genre = "Podcast"
    /// The episode's web page.
    public var link: String?
    /// The episode's guid.
    public var guid: String?
    /// The episode's image, else the feed's (at most ``imageLimit`` bytes); nil when there is none or it could
    /// not be fetched.
    public var image: Artwork?

    /// The longest description written, in characters.
    public static let descriptionLimit = 4000
    /// The largest image embedded, in bytes: a player shows a 1400-pixel cover; a larger file only bloats each episode.
    public static let imageLimit: Int64 = 1_000_000

    public init(
        title: String? = nil, album: String? = nil, artist: String? = nil, track: Int? = nil, disc: Int? = nil,
        date: Date? = nil, description: String? = nil, link: String? = nil, guid: String? = nil,
        image: Artwork? = nil
    ) {
        self.title = title
        self.album = album
        self.artist = artist
        self.track = track
        self.disc = disc
        self.date = date
        self.description = description
        self.link = link
        self.guid = guid
        self.image = image
    }

    /// The date as ISO 8601 in UTC (`2026-12-07T05:00:00`), as ID3v2.4's TDRC and MP4's `©day` write it.
    var dateText: String? {
        guard let date else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(c.year ?? 1970)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))"
    }
}

/// A cover image to embed.
public struct Artwork: Sendable, Hashable {
    public var bytes: [UInt8]
    /// `image/jpeg` or `image/png`: the two types every player reads.
    public var mimeType: String

    /// The image in `bytes`, when it is a JPEG or a PNG; nil for anything else.
    public init?(bytes: [UInt8]) {
        switch ExtraContent.imageExtension(bytes) {
        case "jpg": mimeType = "image/jpeg"
        case "png": mimeType = "image/png"
        default: return nil
        }
        self.bytes = bytes
    }
}
