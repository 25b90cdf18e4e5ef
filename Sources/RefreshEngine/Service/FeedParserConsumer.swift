public import FeedFetching
import FeedModels
public import FeedParsing
import Foundation

/// Streams a response body straight into the push parser as it arrives, so a feed is parsed while it downloads.
///
/// A refresh's consumer (``init(head:options:plan:)``) also keeps the body's digest as it streams (``BodyDigest``),
/// and by its ``BodyReadPlan`` may stop once the leading episodes are all known (``LeadingItemsCheck``), or hold a
/// small body unparsed until its end shows whether it is identical to the last one read whole.
public final class FeedParserConsumer: FeedBodyConsumer {
    private let parser: FeedParser
    private var digest = XXH64Stream()
    /// The last whole body's digest, to compare with.
    private let last: BodyDigest?
    /// The body so far, unparsed, while it may still be identical to the last one; nil once it is being parsed.
    private var held: [UInt8]?
    /// Compares the leading episodes with the stored ones until it decides; nil when the body is read whole.
    private var leading: LeadingItemsCheck?
    /// Episodes already handed to `leading`.
    private var examined = 0
    private var stopped = false
    /// Stores a long body's episodes as it is read; nil when they are all merged at the end.
    private let early: EarlyMerging?

    /// A parser for the body behind `head`: relative URLs resolve against the final URL, and the transport's charset
    /// overrides the document's. Reads the body whole.
    public convenience init(head: FeedResponseHead, options: FeedParserOptions = .init()) {
        self.init(head: head, options: options, plan: BodyReadPlan())
    }

    /// A parser for the body behind `head` that reads it as `plan` says.
    init(head: FeedResponseHead, options: FeedParserOptions, plan: BodyReadPlan) {
        parser = FeedParser(baseURL: head.url, charset: head.charset, options: options)
        last = plan.lastDigest
        leading = plan.leading
        early = plan.early.map(EarlyMerging.init)
        if plan.leading == nil, let last = plan.lastDigest, last.byteCount <= BodyReadPlan.holdLimit {
            held = []
            held?.reserveCapacity(last.byteCount)
        }
    }

    public func consume(_ bytes: UnsafeRawBufferPointer) throws {
        // Read short: what still arrives (the rest of a read, or of an inflated piece) is neither parsed nor digested.
        guard !stopped else { return }
        digest.update(bytes)
        if held != nil {
            if digest.byteCount <= last?.byteCount ?? 0 {
                held?.append(contentsOf: bytes)
                return
            }
            // Longer than the last body: not identical, so parse what was held and go on streaming.
            try releaseHeld()
        }
        early?.counted(bytes.count)
        guard leading != nil else {
            try parser.parse(bytes)
            return
        }
        // While the leading episodes are compared, the bytes are parsed a slice at a time, so that parsing stops
        // near the end of the known run rather than at the end of a read, which may hold a hundred episodes once
        // inflated.
        var offset = 0
        while offset < bytes.count, leading != nil {
            let end = min(offset + Self.sliceWhileComparing, bytes.count)
            try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
            offset = end
            examineLeadingEpisodes()
        }
        if !stopped, offset < bytes.count {
            try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
    }

    /// Merges the episodes read so far once enough of a long body was read (``EarlyMerging``); never while the body
    /// may still be read short or be identical to the last one.
    public func afterChunk() async throws {
        guard let early, early.isDue, leading == nil, held == nil, !stopped else { return }
        try await early.merge(parser.takeCompletedEpisodes())
    }

    /// What early merges did; nil when none was made.
    var earlyMerged: EarlyMerging? { early?.didMerge == true ? early : nil }

    /// The most bytes parsed between two looks at the leading episodes: a few items' worth.
    static let sliceWhileComparing = 8 * 1024

    public var wantsMoreBody: Bool { !stopped }

    /// True when the body was read only up to its known leading episodes.
    var readShort: Bool { stopped }

    private func releaseHeld() throws {
        guard let bytes = held else { return }
        held = nil
        try bytes.withUnsafeBytes { try parser.parse($0) }
    }

    private func examineLeadingEpisodes() {
        while examined < parser.completedEpisodeCount, var check = leading {
            let verdict = check.next(parser.completedEpisode(at: examined))
            examined += 1
            switch verdict {
            case .readOn:
                leading = check
            case .readWhole:
                leading = nil
            case .stop:
                leading = nil
                // Items nested illegally end out of document order: then the run proves nothing.
                stopped = parser.episodesEndedInOrder
            }
        }
    }

    /// Ends the document. - Throws: ``FeedParseError`` when nothing usable was found.
    public func finish() throws -> ParsedFeed {
        try releaseHeld()
        if stopped { return try parser.finishEarly() }
        var feed = try parser.finish()
        if let early, early.didMerge { feed.episodes = early.heldEpisodes + feed.episodes }
        return feed
    }

    /// Ends the document, saying how much of it was read: identical to the last body read whole (same digest and
    /// length: then not parsed when it was held, and not merged either way), read short, or read whole with its
    /// digest. - Throws: ``FeedParseError`` when nothing usable was found.
    func finishRead() throws -> ReadBody {
        if stopped { return .parsed(try parser.finishEarly(), read: .short) }
        let whole = BodyDigest(hash: digest.finalize(), byteCount: digest.byteCount)
        if whole == last, early?.didMerge != true { return .identical }
        try releaseHeld()
        var feed = try parser.finish()
        if let early, early.didMerge { feed.episodes = early.heldEpisodes + feed.episodes }
        return .parsed(feed, read: .whole(digest: whole.storedText))
    }
}

/// How a refresh reads a feed's body (issue #36).
struct BodyReadPlan: Sendable {
    /// The largest last body held unparsed to tell an identical one: held bodies live in memory while they arrive,
    /// one per processing slot at most.
    static let holdLimit = 1 << 20

    /// Set when the body may be read short: the feed's newest stored episodes.
    var leading: LeadingItemsCheck?
    /// The digest of the last body read whole.
    var lastDigest: BodyDigest?
    /// Set when a long body's episodes are stored as it is read.
    var early: EarlyMerging.Plan?
}

/// What a refresh's consumer read.
enum ReadBody {
    /// The same bytes as the body last read whole.
    case identical
    /// A feed, read short or whole.
    case parsed(ParsedFeed, read: BodyRead)
}
