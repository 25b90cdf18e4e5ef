public import Foundation

/// Why a document could not be read as a feed.
///
/// A document that is XML but recoverably broken is not an error: it parses with ``ParseWarning``s.
/// This error is for documents with nothing usable in them.
public struct FeedParseError: Error, Hashable, CustomStringConvertible, LocalizedError, Codable {
    /// Stable, machine-readable kinds of parse failure (stored as strings, never as indices).
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Zero bytes, or only whitespace.
        case empty
        /// Not XML at all: HTML, JSON, binary.
        case notXML = "not-xml"
        /// Well-formed XML whose root is not `rss`, `rdf:RDF` or Atom `feed`.
        case notAFeed = "not-a-feed"
        /// XML so broken that not even the root element could be read.
        case malformed
        /// An entity expansion loop or amplification (e.g. "billion laughs").
        case entityExpansion = "entity-expansion"
        /// A configured limit was exceeded (document size, nesting depth).
        case limitExceeded = "limit-exceeded"
    }

    /// The kind of failure.
    public let kind: Kind
    /// A human-readable reason, safe to print on one line.
    public let message: String
    /// The 1-based line where the problem was found, when known.
    public let line: Int?
    /// True for an OPML subscription list: not a feed, but a list of them to import.
    public let isSubscriptionList: Bool

    public init(kind: Kind, message: String, line: Int? = nil, isSubscriptionList: Bool = false) {
        self.kind = kind
        self.message = message
        self.line = line
        self.isSubscriptionList = isSubscriptionList
    }

    public var description: String {
        if let line { return "\(message) (line \(line))" }
        return message
    }

    public var errorDescription: String? { description }
}
