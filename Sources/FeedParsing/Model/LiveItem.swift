public import Foundation

/// A `podcast:liveItem`: a live stream the show announces, pending, live or ended. Its `enclosure` is the stream,
/// which is never downloaded; once the show publishes the recording as an ordinary `item` (same guid), that is an
/// episode like any other.
public struct LiveItem: Sendable, Hashable {
    /// `status`.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// Not started yet (upcoming); also what an unknown or missing status is read as.
        case pending
        /// Streaming now.
        case live
        /// Over.
        case ended
    }

    /// A `podcast:contentLink`: where else the stream can be watched or heard.
    public struct ContentLink: Sendable, Hashable {
        /// `href`, as absolute URL text.
        public var hrefString: String
        /// The element's text.
        public var text: String?

        public var href: URL? { URL(string: hrefString) }

        public init(hrefString: String, text: String? = nil) {
            self.hrefString = hrefString
            self.text = text
        }
    }

    public var status: Status
    /// `start` and `end` (ISO 8601).
    public var start: Date?
    public var end: Date?
    public var contentLinks: [ContentLink]

    public init(status: Status, start: Date? = nil, end: Date? = nil, contentLinks: [ContentLink] = []) {
        self.status = status
        self.start = start
        self.end = end
        self.contentLinks = contentLinks
    }
}
