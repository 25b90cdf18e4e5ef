import CLibXML2
public import Foundation

/// Limits that keep a hostile document from using unbounded time or memory.
public struct FeedParserOptions: Sendable, Hashable {
    /// Episodes beyond this count are dropped with one warning.
    public var maxEpisodes: Int
    /// A single text field (title, description …) is cut at this many bytes, with a warning.
    public var maxFieldBytes: Int
    /// Enclosures, transcripts, persons and alternate enclosures beyond this count on one episode are dropped.
    public var maxItemsPerEpisode: Int
    /// Warnings beyond this count are summarised in one final warning.
    public var maxWarnings: Int

    public init(
        maxEpisodes: Int = 50_000, maxFieldBytes: Int = 1 << 20, maxItemsPerEpisode: Int = 100, maxWarnings: Int = 200
    ) {
        self.maxEpisodes = maxEpisodes
        self.maxFieldBytes = maxFieldBytes
        self.maxItemsPerEpisode = maxItemsPerEpisode
        self.maxWarnings = maxWarnings
    }
}

/// A streaming RSS/Atom parser built on libxml2's SAX2 push parser.
///
/// Feed it bytes as they arrive with ``parse(_:)`` and call ``finish()`` once; the result does not depend on how the
/// bytes were split. The parser never builds a DOM, never loads external entities or DTDs, and its memory is bounded
/// by the largest single field. It is confined to one task.
///
/// Encodings: a byte order mark wins; otherwise a charset named by the transport overrides the document's declared
/// encoding (except that a bare `utf-8` label never overrides an explicit other declaration: servers add it blindly);
/// otherwise the declaration; otherwise UTF-8. A label that names no character set known here is skipped with a
/// warning (the next one in that order is used). Every character set the system's iconv knows is read, under its
/// common aliases, by converting to UTF-8 before libxml2 (see ``CharsetDecoder``); ISO-8859-1 is read as
/// Windows-1252. Bytes that are not valid in a document read as UTF-8 are taken as Windows-1252, with a warning, so
/// the feed still parses; byte sequences not valid in another declared character set become U+FFFD, with a warning.
public final class FeedParser {
    /// The parse state, at a fixed address the SAX callbacks receive as their context.
    private let state: UnsafeMutablePointer<SAXState>
    private let transportCharset: String?
    private var handler = FeedParser.makeHandler()
    private var context: xmlParserCtxtPtr?
    /// Bytes held until the encoding decision can be made (BOM and XML declaration).
    private var prefix: [UInt8] = []
    private var decided = false
    private var sanitizer: UTF8Sanitizer?
    /// Converts a document in another character set to UTF-8 (then checked by `sanitizer`).
    private var decoder: CharsetDecoder?
    private var sawNonWhitespace = false
    private var firstBytes: [UInt8] = []
    private var finished = false
    private var totalBytes = 0

    /// Creates a parser for one document.
    ///
    /// - Parameters:
    ///   - baseURL: The document's own URL, against which relative URLs are resolved (after `xml:base`).
    ///   - charset: A charset named by the transport (HTTP `Content-Type`).
    ///   - options: Limits.
    public init(baseURL: URL? = nil, charset: String? = nil, options: FeedParserOptions = .init()) {
        _ = libxml2Ready
        state = .allocate(capacity: 1)
        state.initialize(to: SAXState(options: options, documentURL: baseURL))
        transportCharset =
            charset?.trimmingCharacters(in: .whitespacesAndNewlines.union(["\"", "'"])).lowercased()
            .nilIfEmpty
    }

    deinit {
        if let context { xmlFreeParserCtxt(context) }
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Feeds the next bytes of the document.
    ///
    /// - Throws: ``FeedParseError`` `.notAFeed` as soon as the root element shows the document is not a feed.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws {
        guard !finished, !bytes.isEmpty else { return }
        totalBytes += bytes.count
        if firstBytes.count < 64 { firstBytes.append(contentsOf: bytes.prefix(64 - firstBytes.count)) }
        if !decided {
            prefix.append(contentsOf: bytes)
            // Wait for the end of the XML declaration (or enough bytes to know there is none).
            if prefix.count < 1024 && !prefix.contains(0x3E) { return }
            decide()
            let held = prefix
            prefix = []
            try held.withUnsafeBytes { try feed($0, final: false) }
            return
        }
        try feed(bytes, final: false)
    }

    /// Ends the document and returns the feed.
    ///
    /// - Throws: ``FeedParseError`` when nothing usable was found: an empty body, something that is not XML, XML
    ///   whose root is not a feed, or XML broken before its root element.
    public func finish() throws -> ParsedFeed {
        guard !finished else { throw FeedParseError(.alreadyFinished) }
        if !decided {
            decide()
            let held = prefix
            prefix = []
            try held.withUnsafeBytes { try feed($0, final: false) }
        }
        try feed(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
        finished = true
        if let dropped = sanitizer?.droppedControls, dropped > 0 {
            insertFirstWarning(
                ParseWarning(line: 0, .controlCharactersRemoved(count: dropped)))
        }
        if let replaced = sanitizer?.replacedBytes, replaced > 0 {
            insertFirstWarning(
                ParseWarning(line: 0, .readAsWindows1252(count: replaced)))
        }
        if let decoder, decoder.invalidSequences > 0 {
            insertFirstWarning(
                ParseWarning(line: 0, .invalidSequences(count: decoder.invalidSequences, encoding: decoder.name)))
        }
        // The root element still open at the end of the input: the document was cut off (a dropped connection, a
        // server that stopped writing). Said first, so no other warning crowds it out.
        if state.pointee.depth > 0, state.pointee.root != nil, !state.pointee.rootIsNotAFeed {
            insertFirstWarning(ParseWarning(line: 0, .documentEndedEarly(root: state.pointee.rootName ?? "?")))
        }
        return try result()
    }

    /// How many episodes have been read to their end so far (their closing tag parsed), in the order they ended.
    ///
    /// A caller that pushes bytes may look at them between pushes (``completedEpisode(at:)``) and stop with
    /// ``finishEarly()`` once it has read enough: the hot path is unchanged, and nothing is read past the last push.
    public var completedEpisodeCount: Int { state.pointee.episodes.count }

    /// The episode that ended `index`-th (see ``completedEpisodeCount``).
    public func completedEpisode(at index: Int) -> ParsedEpisode { state.pointee.episodes[index] }

    /// Takes out the episodes read to their end so far, in document order, so a caller can store a big feed's
    /// episodes as it goes instead of holding them all to the end (issue #36). Each key is handed on once, as its
    /// first listing: a later listing of a key taken out earlier is left out (with the same ``ParseWarning`` as
    /// ever), also from what ``finish()`` returns, which holds only episodes not taken out. An episode that ended
    /// before an item still open, or out of document order (illegal nesting), stays until it can be placed.
    public func takeCompletedEpisodes() -> [ParsedEpisode] { state.pointee.takeEpisodes() }

    /// True while the episodes ended in document order (false once an item nested in another ended first).
    public var episodesEndedInOrder: Bool {
        let ordinals = state.pointee.episodeOrdinals
        return zip(ordinals, ordinals.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// Ends the parse where it stands, without reading the rest of the document: the feed holds its channel's fields
    /// read so far and the episodes read to their end; an item still open is left out (its fields are incomplete),
    /// and nothing is said of what was not read (no warning for the document ending early).
    ///
    /// - Throws: ``FeedParseError`` when what was read is not a feed (as ``finish()`` would).
    public func finishEarly() throws -> ParsedFeed {
        guard !finished else { throw FeedParseError(.alreadyFinished) }
        finished = true
        if let context { xmlStopParser(context) }
        state.pointee.dropOpenEpisodes()
        return try result()
    }

    /// Puts a warning first while keeping ``FeedParserOptions/maxWarnings``: when the list is full, its last warning
    /// moves into the "more warnings not shown" count.
    private func insertFirstWarning(_ warning: ParseWarning) {
        if state.pointee.warnings.count >= state.pointee.options.maxWarnings, !state.pointee.warnings.isEmpty {
            state.pointee.warnings.removeLast()
            state.pointee.suppressedWarnings += 1
        }
        state.pointee.warnings.insert(warning, at: 0)
    }

    /// Bytes of captured text the parser holds right now (for tests of its memory bound).
    var heldTextBytes: Int { state.pointee.text.count }

    // MARK: - Input

    private func decide() {
        decided = true
        let declaration = InputDecoding.sniff(prefix)
        guard !declaration.isWide else { return }
        // The labels to try, best first.
        var labels: [(label: String, source: ParseWarning.EncodingSource)] = []
        if declaration.hasUTF8BOM {
            labels.append(("utf-8", .byteOrderMark))
        } else if let transport = transportCharset {
            let genericUTF8 = InputDecoding.isUTF8(transport)
            if !(genericUTF8 && declaration.encoding.map { !InputDecoding.isUTF8($0) } == true) {
                labels.append((transport, .server))
            }
        }
        if let declared = declaration.encoding { labels.append((declared, .document)) }
        var effective = "utf-8"
        var unknown: [(label: String, source: ParseWarning.EncodingSource)] = []
        var chosen: String?
        choosing: for (label, source) in labels {
            switch CharsetDecoder.resolve(label) {
            case .utf8:
                effective = "utf-8"
            case .wide:
                effective = label
            case .decoder(let found):
                effective = label
                decoder = found
            case .unknown:
                guard Self.libxml2Knows(label) else {
                    unknown.append((label, source))
                    continue choosing
                }
                effective = label
            }
            chosen = label
            break choosing
        }
        for (label, source) in unknown {
            state.pointee.warn(
                .unknownEncoding(label: SAXState.snippet(label), source: source, readAs: chosen.map(SAXState.snippet)),
                line: 0)
        }
        if decoder != nil {
            // The decoder hands libxml2 UTF-8: say so in the declaration (without one, UTF-8 is the default).
            if let range = declaration.valueRange { prefix.replaceSubrange(range, with: Array("UTF-8".utf8)) }
            sanitizer = UTF8Sanitizer()
            return
        }
        let wanted = InputDecoding.isUTF8(effective) ? "UTF-8" : effective
        if let range = declaration.valueRange {
            let declared = declaration.encoding ?? ""
            if declared.caseInsensitiveCompare(wanted) != .orderedSame
                && !(InputDecoding.isUTF8(declared) && wanted == "UTF-8")
            {
                prefix.replaceSubrange(range, with: Array(wanted.utf8))
            }
        } else if wanted != "UTF-8" {
            // No declaration to rewrite: add one so libxml2 reads the transport's charset.
            prefix.insert(contentsOf: Array("<?xml version=\"1.0\" encoding=\"\(wanted)\"?>".utf8), at: 0)
        }
        if wanted == "UTF-8" { sanitizer = UTF8Sanitizer() }
    }

    private func feed(_ raw: UnsafeRawBufferPointer, final: Bool) throws {
        if decoder != nil, let decoded = decoder?.decode(raw, final: final) {
            try decoded.withUnsafeBytes { try sanitizeAndPush($0, final: final) }
            return
        }
        try sanitizeAndPush(raw, final: final)
    }

    /// True when libxml2 has its own converter for `label` (what is left to it when iconv has none).
    private static func libxml2Knows(_ label: String) -> Bool {
        guard label.utf8.count <= 64, !label.contains("/") else { return false }
        guard let handler = xmlFindCharEncodingHandler(label) else { return false }
        xmlCharEncCloseFunc(handler)
        return true
    }

    private func sanitizeAndPush(_ raw: UnsafeRawBufferPointer, final: Bool) throws {
        if var sanitizer {
            let replaced = sanitizer.process(raw, final: final)
            self.sanitizer = sanitizer
            if let replaced {
                try replaced.withUnsafeBytes { try push($0, final: final) }
                return
            }
        }
        try push(raw, final: final)
    }

    private func push(_ bytes: UnsafeRawBufferPointer, final: Bool) throws {
        if !sawNonWhitespace {
            sawNonWhitespace = bytes.contains { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        }
        let pointer = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        var offset = 0
        if context == nil {
            guard bytes.count > 0 || final else { return }
            let initial = min(4, bytes.count)
            context = xmlCreatePushParserCtxt(&handler, UnsafeMutableRawPointer(state), pointer, Int32(initial), nil)
            guard let context else { return }
            // No XML_PARSE_NOCDATA: with it libxml2 hands CDATA sections to `characters`, and one-line text must know
            // which text came from CDATA (where a feed's HTML references arrive as literal text). `cdataBlock`
            // captures the same bytes and marks them.
            xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue))
            state.pointee.context = context
            offset = initial
        }
        guard let context else { return }
        var remaining = bytes.count - offset
        // xmlParseChunk takes an Int32 size.
        repeat {
            let size = min(remaining, 1 << 30)
            let chunk = pointer.map { $0 + offset }
            let isLast = final && size == remaining
            _ = xmlParseChunk(context, size > 0 ? chunk : nil, Int32(size), isLast ? 1 : 0)
            offset += size
            remaining -= size
        } while remaining > 0
        if state.pointee.rootIsNotAFeed { throw notAFeedError() }
    }

    // MARK: - Result

    private func result() throws -> ParsedFeed {
        if state.pointee.rootIsNotAFeed { throw notAFeedError() }
        guard let root = state.pointee.root else {
            throw noRootError()
        }
        if root == .redirect && state.pointee.channel.redirectLocation == nil {
            throw FeedParseError(.redirectWithoutLocation)
        }
        let format: FeedFormat
        switch root {
        case .rss, .redirect: format = .rss2
        case .rdf: format = .rss1
        case .atom: format = .atom
        }
        let feed = state.pointee.makeFeed(format: format)
        if state.pointee.sawEntityLoop && feed.episodes.isEmpty && feed.title == nil {
            throw FeedParseError(.entityLoop(line: state.pointee.firstError?.line))
        }
        return feed
    }

    private func notAFeedError() -> FeedParseError {
        let root = state.pointee.rootName ?? "?"
        switch root.lowercased() {
        case "html", "head", "body":
            return FeedParseError(.htmlPage)
        case "opml":
            return FeedParseError(.subscriptionList)
        default:
            return FeedParseError(.rootNotAFeed(root: root))
        }
    }

    private func noRootError() -> FeedParseError {
        if totalBytes == 0 || !sawNonWhitespace {
            return FeedParseError(.empty)
        }
        let start = firstBytes.drop {
            $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF
        }
        if let first = start.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return FeedParseError(.json)
        }
        if firstBytes.contains(0) || firstBytes.filter({ $0 < 0x09 || ($0 > 0x0D && $0 < 0x20) }).count > 2 {
            return FeedParseError(.binary)
        }
        if state.pointee.sawEntityLoop {
            return FeedParseError(.entityLoop(line: state.pointee.firstError?.line))
        }
        // `<!doctype html>` in lower case is not XML, so libxml2 finds no root at all; HTML says its name in any case.
        let opening = String(decoding: start.prefix(15), as: UTF8.self).lowercased()
        if opening.hasPrefix("<!doctype html") || opening.hasPrefix("<html") {
            return FeedParseError(.htmlPage)
        }
        if start.first != UInt8(ascii: "<") {
            return FeedParseError(
                .notXML(start: SAXState.snippet(String(decoding: start.prefix(24), as: UTF8.self))))
        }
        return FeedParseError(
            .notWellFormed(
                libxml2Message: state.pointee.firstError?.message, line: state.pointee.firstError?.line))
    }

    // MARK: - SAX handler

    private static func makeHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localname, prefix, uri, _, _, attributeCount, _, attributes in
            guard let context, let localname else { return }
            context.assumingMemoryBound(to: SAXState.self).pointee.startElement(
                localname: localname, prefix: prefix, uri: uri, attributeCount: Int(attributeCount),
                attributes: attributes)
        }
        handler.endElementNs = { context, localname, _, _ in
            guard let context, let localname else { return }
            context.assumingMemoryBound(to: SAXState.self).pointee.endElement(localname: localname)
        }
        handler.characters = { context, bytes, length in
            guard let context, let bytes, length > 0 else { return }
            context.assumingMemoryBound(to: SAXState.self).pointee.characters(bytes, Int(length))
        }
        handler.cdataBlock = { context, bytes, length in
            guard let context, let bytes, length > 0 else { return }
            context.assumingMemoryBound(to: SAXState.self).pointee.cdata(bytes, Int(length))
        }
        handler.serror = { context, error in
            guard let context, let error else { return }
            context.assumingMemoryBound(to: SAXState.self).pointee.recordError(error)
        }
        return handler
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

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
