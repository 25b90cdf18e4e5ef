/// Why a document could not be read as a feed: a typed ``Reason`` (the facts), from which its ``kind`` follows.
/// ConsoleOutput words it (`FeedParseErrorText`); the parser builds no sentence.
///
/// A document that is XML but recoverably broken is not an error: it parses with ``ParseWarning``s.
/// This error is for documents with nothing usable in them. `Codable` because a subscription stores its last
/// failure (`RefreshFailure.Cause.parse`).
public struct FeedParseError: Error, Hashable, CustomStringConvertible, Codable {
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

    /// What the document is instead of a feed, as facts.
    public enum Reason: Sendable, Hashable, Codable {
        /// Zero bytes, or only whitespace.
        case empty
        /// A JSON document.
        case json
        /// Binary data.
        case binary
        /// Not XML: it starts with `start` (its first characters, made printable).
        case notXML(start: String)
        /// An HTML page.
        case htmlPage
        /// An OPML subscription list: not a feed, but a list of them to import.
        case subscriptionList
        /// Well-formed XML whose root element (`root`) is not `rss`, `rdf:RDF` or Atom `feed`.
        case rootNotAFeed(root: String)
        /// A `<redirect>` document without a usable `<newLocation>`.
        case redirectWithoutLocation
        /// Entities that expand without bound (an entity loop), found at `line` when known.
        case entityLoop(line: Int?)
        /// XML broken before its root element: libxml2's own message for its first error, and its line.
        case notWellFormed(libxml2Message: String?, line: Int?)
        /// ``FeedParser/finish()`` was called twice (a podfresh bug).
        case alreadyFinished
        /// An OPML file with nothing in it.
        case emptySubscriptionList
        /// An OPML file that is not XML.
        case subscriptionListNotXML
        /// An OPML file whose root element (`root`) is not `<opml>`.
        case rootNotOPML(root: String)
        /// Read back from a subscription an older podfresh stored with its sentence: shown as it was stored.
        case stored(kind: Kind, message: String, line: Int?, isSubscriptionList: Bool)
    }

    /// What went wrong.
    public let reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// The kind of failure: follows from the reason.
    public var kind: Kind {
        switch reason {
        case .empty, .emptySubscriptionList: .empty
        case .json, .binary, .notXML, .subscriptionListNotXML: .notXML
        case .htmlPage, .subscriptionList, .rootNotAFeed, .redirectWithoutLocation, .rootNotOPML: .notAFeed
        case .entityLoop: .entityExpansion
        case .notWellFormed, .alreadyFinished: .malformed
        case .stored(let kind, _, _, _): kind
        }
    }

    /// The 1-based line where the problem was found, when known.
    public var line: Int? {
        switch reason {
        case .entityLoop(let line), .notWellFormed(_, let line), .stored(_, _, let line, _): line
        default: nil
        }
    }

    /// True for an OPML subscription list: not a feed, but a list of them to import.
    public var isSubscriptionList: Bool {
        switch reason {
        case .subscriptionList: true
        case .stored(_, _, _, let isSubscriptionList): isSubscriptionList
        default: false
        }
    }

    /// For logs and debugging only; ConsoleOutput words the reason for users.
    public var description: String { "FeedParseError.\(kind.rawValue)(\(reason))" }

    // MARK: - Codable

    private enum CodingKeys: String, CodingKey {
        case reason
        // As an older podfresh wrote it.
        case kind, message, line, isSubscriptionList
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let reason = try container.decodeIfPresent(Reason.self, forKey: .reason) {
            self.reason = reason
        } else {
            reason = .stored(
                kind: try container.decode(Kind.self, forKey: .kind),
                message: try container.decode(String.self, forKey: .message),
                line: try container.decodeIfPresent(Int.self, forKey: .line),
                isSubscriptionList: try container.decodeIfPresent(Bool.self, forKey: .isSubscriptionList) ?? false)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reason, forKey: .reason)
    }
}
