public import FeedFetching
public import FeedParsing
import Foundation

/// Streams a response body straight into the push parser as it arrives, so a feed is parsed while it downloads.
public final class FeedParserConsumer: FeedBodyConsumer {
    private let parser: FeedParser

    /// A parser for the body behind `head`: relative URLs resolve against the final URL, and the transport's charset
    /// overrides the document's.
    public init(head: FeedResponseHead, options: FeedParserOptions = .init()) {
        parser = FeedParser(baseURL: head.url, charset: head.charset, options: options)
    }

    public func consume(_ bytes: UnsafeRawBufferPointer) throws {
        try parser.parse(bytes)
    }

    /// Ends the document. - Throws: ``FeedParseError`` when nothing usable was found.
    public func finish() throws -> ParsedFeed {
        try parser.finish()
    }
}
