public import Foundation

/// Limits that keep a hostile document from using unbounded time or memory.
public struct FeedParserOptions: Sendable, Hashable {
    /// Episodes beyond this count are dropped with one warning.
    public var maxEpisodes: Int
    /// A single text field (title, description …) is cut at this many bytes, with a warning.
    public var maxFieldBytes: Int
    /// Enclosures, transcripts and persons beyond this count on one episode are dropped, with a warning.
    public var maxItemsPerEpisode: Int
    /// Warnings beyond this count are summarised in one final warning.
    public var maxWarnings: Int

    public init(maxEpisodes: Int = 50_000, maxFieldBytes: Int = 1 << 20, maxItemsPerEpisode: Int = 100, maxWarnings: Int = 200) {
        self.maxEpisodes = maxEpisodes
        self.maxFieldBytes = maxFieldBytes
        self.maxItemsPerEpisode = maxItemsPerEpisode
        self.maxWarnings = maxWarnings
    }
}

/// A streaming RSS/Atom parser built on libxml2's SAX2 push parser.
///
/// Feed it bytes as they arrive with ``parse(_:)`` and call ``finish()`` once; the result does not depend on
/// how the bytes were split. The parser never builds a DOM, never loads external entities or DTDs, and its
/// memory is bounded by the largest single field. It is confined to one task.
public final class FeedParser {
    /// Creates a parser for one document.
    ///
    /// - Parameters:
    ///   - baseURL: The document's own URL, against which relative URLs are resolved (after `xml:base`).
    ///   - charset: A charset named by the transport (HTTP `Content-Type`), which overrides the document's.
    ///   - options: Limits.
    public init(baseURL: URL? = nil, charset: String? = nil, options: FeedParserOptions = .init()) {
        fatalError("not implemented")
    }

    /// Feeds the next bytes of the document.
    ///
    /// - Throws: ``FeedParseError`` when the document is already known not to be a feed.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws {
        fatalError("not implemented")
    }

    /// Ends the document and returns the feed.
    ///
    /// - Throws: ``FeedParseError`` when nothing usable was found.
    public func finish() throws -> ParsedFeed {
        fatalError("not implemented")
    }
}

@available(*, unavailable)
extension FeedParser: Sendable {}

extension FeedParser {
    /// Parses a whole document held in memory.
    public static func parse(
        _ bytes: some Collection<UInt8>,
        baseURL: URL? = nil,
        charset: String? = nil,
        options: FeedParserOptions = .init()
    ) throws -> ParsedFeed {
        let parser = FeedParser(baseURL: baseURL, charset: charset, options: options)
        try Array(bytes).withUnsafeBytes { try parser.parse($0) }
        return try parser.finish()
    }
}
