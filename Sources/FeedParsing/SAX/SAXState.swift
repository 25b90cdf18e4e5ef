import CLibXML2
import Foundation

/// Everything one parse accumulates, driven by the SAX callbacks. Confined to the parsing task.
///
/// A value type at a fixed address owned by ``FeedParser``: the callbacks get a pointer to it, so the hot path has
/// no reference counting and no dynamic exclusivity checks. Text is kept as bytes until an element ends, and turned
/// into the value its field needs (a string, a URL's text, a date, a number) straight from those bytes.
///
/// This type keeps the document's structure, the text capture and the episodes; what an element means is up to its
/// namespace's handler (``RSSElements``, ``AtomElements``, ``ITunesElements``, ``PodcastElements``,
/// ``MediaElements``, ``ContentElements``, ``PodloveElements``), called by a switch on the namespace already resolved.
/// The handlers are static functions over this state rather than protocol conformances, so each call is direct; the
/// two that collect state while their elements are open are stored here inline (`itunes`, `podcast`).
struct SAXState {
    enum Root {
        case rss, rdf, atom
        /// A UserLand `<redirect><newLocation>…</newLocation></redirect>` document: the feed has moved.
        case redirect
    }

    struct Frame {
        var namespace: Namespace
        var name: Name
        /// Capture text of this element.
        var captures: Bool
        /// This element set an `xml:base` (pushed on `bases`).
        var ownsBase: Bool
        /// The `xml:base` in force inside this element: an index into `bases`, or -1 for the document's URL.
        var base: Int32
        /// Where this element's attributes start in `attributes`.
        var attributeStart: Int32
    }

    /// An attribute kept from a start tag, for elements whose data is in attributes.
    struct Attribute {
        var key: AttributeKey
        var value: String
    }

    let options: FeedParserOptions
    let documentURL: URL?
    let documentIsFile: Bool
    var context: xmlParserCtxtPtr?

    // Structure
    var root: Root?
    var rootName: String?
    var rootIsNotAFeed = false
    var frames: [Frame] = []
    var attributes: [Attribute] = []
    var bases: [URL] = []
    var channelDepth: Int?
    var channel = ChannelBuilder()
    var episode = EpisodeBuilder(ordinal: 0, depth: 0)
    var episodeOpen = false
    /// Items that contain the open item (illegal nesting), innermost last.
    var suspendedEpisodes: [EpisodeBuilder] = []
    var episodes: [ParsedEpisode] = []
    var episodeOrdinals: [Int] = []
    var itemCount = 0
    /// Episodes already taken out (``FeedParser/takeCompletedEpisodes()``): each key's position in the feed
    /// (0-based, first listing), how many listings were taken, and the last one's ordinal.
    var takenIDs: [String: Int] = [:]
    var takenCount = 0
    var lastTakenOrdinal = -1
    // What the namespaces collect while their elements are open
    var itunes = ITunesElements()
    var podcast = PodcastElements()
    var channelListLimitWarned = false
    /// `podcast:source` URLs left out for their scheme (`ipfs:`, `magnet:` …): one warning at the end.
    var quietlyIgnoredURLs = 0
    var quietlyIgnoredSchemes: [String] = []

    // Text capture. `text` holds the captured element's bytes from `captureStart`, and before that the bytes of the
    // open episodes' deferred fields (see ``DeferredText``); it is emptied when no episode is open.
    var text: [UInt8] = []
    var captureStart = 0
    /// The field just applied kept its bytes in `text` (a deferred field).
    var keepCapturedText = false
    var captureDepth = -1
    var fieldTruncated = false
    /// The captured element's text came (at least partly) from a CDATA section, where a feed's HTML entities
    /// (`&#8364;`, `&eacute;`) arrive as literal text.
    var capturedCDATA = false
    var xhtmlDepth = -1
    /// The element that just ended captured text (held in `text`).
    var hasValue = false

    // What libxml2's interned pointers mean
    var names = PointerCache()
    var namespaces = PointerCache()
    var undeclaredPrefixes = PointerCache()
    var attributeNames = PointerCache()

    // Problems
    var warnings: [ParseWarning] = []
    var suppressedWarnings = 0
    var firstError: (line: Int, message: String, code: Int32)?
    var sawEntityLoop = false
    var episodeLimitWarned = false
    var itemLimitWarned = false
    var sawNamespaceWarning = false

    init(options: FeedParserOptions, documentURL: URL?) {
        self.options = options
        self.documentURL = documentURL
        documentIsFile = documentURL?.isFileURL == true
        frames.reserveCapacity(32)
        text.reserveCapacity(4096)
    }

    var depth: Int { frames.count }
    var currentLine: Int { context.map { Int(xmlSAX2GetLineNumber(UnsafeMutableRawPointer($0))) } ?? 0 }

    mutating func warn(_ reason: ParseWarning.Reason, line: Int? = nil) {
        guard warnings.count < options.maxWarnings else {
            suppressedWarnings += 1
            return
        }
        warnings.append(ParseWarning(line: line ?? currentLine, reason))
    }

    // MARK: - Names

    @inline(__always)
    mutating func name(_ pointer: UnsafePointer<xmlChar>) -> Name {
        Name(rawValue: names.value(for: pointer) { (Name.table[String(cString: pointer)] ?? .other).rawValue })
            ?? .other
    }

    @inline(__always)
    mutating func namespace(uri: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?) -> Namespace {
        let code: UInt8
        if let uri {
            code = namespaces.value(for: uri) { Namespace.from(uri: String(cString: uri)).rawValue }
        } else if let prefix {
            code = undeclaredPrefixes.value(for: prefix) {
                Namespace.fromUndeclared(prefix: String(cString: prefix)).rawValue
            }
        } else {
            return .none
        }
        return Namespace(rawValue: code) ?? .other
    }

    @inline(__always)
    mutating func attributeKey(_ pointer: UnsafePointer<xmlChar>) -> AttributeKey {
        AttributeKey(
            rawValue: attributeNames.value(for: pointer) {
                (AttributeKey.table[String(cString: pointer)] ?? .other).rawValue
            })
            ?? .other
    }

    /// The value of attribute `key` of `frame` (the last one when repeated).
    func attribute(_ key: AttributeKey, of frame: Frame) -> String? {
        var i = attributes.count - 1
        let start = Int(frame.attributeStart)
        while i >= start {
            if attributes[i].key == key { return attributes[i].value }
            i -= 1
        }
        return nil
    }

    // MARK: - Start

    mutating func startElement(
        localname: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?,
        attributeCount: Int, attributes raw: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        let ns = namespace(uri: uri, prefix: prefix)
        let el = name(localname)
        let parentBase = frames.last?.base ?? -1
        let attributeStart = Int32(attributes.count)

        // Inside captured XHTML content, child elements are markup to keep.
        if xhtmlDepth >= 0 {
            var markup = "<" + String(cString: localname)
            forEachAttribute(attributeCount, raw) { name, _, value in
                markup += " \(name)=\"\(Self.escapeAttribute(value))\""
            }
            appendText(markup + ">")
            frames.append(
                Frame(
                    namespace: ns, name: .other, captures: false, ownsBase: false, base: parentBase,
                    attributeStart: attributeStart))
            return
        }

        var base = parentBase
        var ownsBase = false
        if attributeCount > 0, let raw {
            let keep = el != .other && ns != .other
            for index in 0..<attributeCount {
                let at = index * 5
                guard let localname = raw[at], let start = raw[at + 3], let end = raw[at + 4] else { continue }
                let key = attributeKey(localname)
                if key == .other || (!keep && key != .base) { continue }
                let attributeNS = namespace(uri: raw[at + 2], prefix: raw[at + 1])
                let value = AmpersandReferences.undo(UnsafeBufferPointer(start: start, count: end - start))
                switch key {
                case .base where attributeNS == .xml:
                    if let resolved = resolveURL(value, base: base, keepFile: true) {
                        bases.append(resolved)
                        base = Int32(bases.count - 1)
                        ownsBase = true
                    }
                case .base:
                    continue
                case .about:
                    if attributeNS == .rdf { attributes.append(Attribute(key: .about, value: value)) }
                default:
                    if keep { attributes.append(Attribute(key: key, value: value)) }
                }
            }
        }
        var frame = Frame(
            namespace: ns, name: el, captures: false, ownsBase: ownsBase, base: base, attributeStart: attributeStart)

        if root == nil {
            startRoot(ns: ns, el: el, localname: localname)
            frames.append(frame)
            if root == .atom { channelDepth = 0 }
            return
        }

        var captures = false
        let inEpisode = episodeOpen
        switch (ns, el) {
        case (.none, .channel), (.rss1, .channel):
            if channelDepth == nil { channelDepth = depth }
        case (.none, .item), (.rss1, .item), (.atom, .entry):
            startEpisode(about: attribute(.about, of: frame))
        case (.podcast, .liveItem) where !inEpisode:
            startEpisode(about: nil)
            LiveItems.start(frame, &self)
        case (.itunes, .category) where !inEpisode:
            ITunesElements.startCategory(frame, &self)
        case (.podcast, _):
            captures = PodcastElements.startElement(el, frame, base: base, inEpisode: inEpisode, &self)
        case (.psc, .chapter):
            PodloveElements.startChapter(frame, base: base, inEpisode: inEpisode, &self)
        default:
            captures = el != .other && ns != .other && isTextElement(ns, el)
        }
        if episodeOpen && episode.ignored { captures = false }
        if captures && captureDepth < 0 {
            captureDepth = depth
            if !episodeOpen { text.removeAll(keepingCapacity: true) }
            captureStart = text.count
            fieldTruncated = false
            capturedCDATA = false
            if ns == .atom, el == .content || el == .summary || el == .subtitle || el == .title,
                attribute(.type, of: frame) == "xhtml"
            {
                xhtmlDepth = depth
            }
        }
        frame.captures = captures
        frames.append(frame)
    }

    mutating func startRoot(ns: Namespace, el: Name, localname: UnsafePointer<xmlChar>) {
        rootName = String(cString: localname)
        switch (ns, el) {
        case (.none, .rss), (.rss1, .rss): root = .rss
        case (.rdf, .RDF): root = .rdf
        case (.atom, .feed), (.none, .feed): root = .atom
        case (.none, .redirect): root = .redirect
        default:
            rootIsNotAFeed = true
            if let context { xmlStopParser(context) }
        }
    }

    mutating func startEpisode(about: String?) {
        if episodeOpen {
            suspendedEpisodes.append(episode)
        } else if captureDepth < 0 {
            text.removeAll(keepingCapacity: true)
        }
        episode = EpisodeBuilder(ordinal: itemCount, depth: depth)
        episodeOpen = true
        itemCount += 1
        if itemCount > options.maxEpisodes {
            episode.ignored = true
            if !episodeLimitWarned {
                episodeLimitWarned = true
                warn(.tooManyEpisodes(limit: options.maxEpisodes))
            }
        }
        if let about { episode.rdfAbout = TextCleaning.cleanLine(about) }
    }

    /// Ends the open episode: it is built and kept (unless ignored), and an item it was nested in becomes open again.
    mutating func finishEpisode() {
        if !episode.ignored {
            episodes.append(episode.build(text: text))
            episodeOrdinals.append(episode.ordinal)
        }
        if let outer = suspendedEpisodes.popLast() {
            episode = outer
        } else {
            episodeOpen = false
        }
    }

    /// Forgets the items still open (a parse ended early: their fields are incomplete).
    mutating func dropOpenEpisodes() {
        suspendedEpisodes.removeAll()
        episodeOpen = false
    }

    func isTextElement(_ ns: Namespace, _ el: Name) -> Bool {
        if el.rawValue >= Name.thumbnail.rawValue { return Self.isRareTextElement(ns, el) }
        switch el {
        case .channel, .item, .entry, .feed, .rss, .RDF, .image, .textinput, .owner, .group, .enclosure:
            return false
        case .link, .author, .source:
            return ns != .atom
        default:
            return true
        }
    }

    /// ``isTextElement(_:_:)`` for the names after `thumbnail`, which few feeds use (kept off the common path).
    static func isRareTextElement(_ ns: Namespace, _ el: Name) -> Bool {
        switch el {
        case .soundbite, .txt, .trailer, .location, .license, .medium, .contentLink: return ns == .podcast
        case .newLocation: return ns == .none
        case .hiveAccount: return ns == .podcast
        default: return false  // containers and elements whose data is in attributes
        }
    }

    /// Calls `body` with each attribute's local name, namespace and value (for markup kept inside XHTML content).
    mutating func forEachAttribute(
        _ count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
        _ body: (String, Namespace, String) -> Void
    ) {
        guard let attributes else { return }
        for index in 0..<count {
            let base = index * 5
            guard let localname = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4]
            else { continue }
            let ns = namespace(uri: attributes[base + 2], prefix: attributes[base + 1])
            body(
                String(cString: localname), ns,
                AmpersandReferences.undo(UnsafeBufferPointer(start: start, count: end - start)))
        }
    }

    // MARK: - End

    mutating func endElement(localname: UnsafePointer<xmlChar>) {
        guard let frame = frames.popLast() else { return }
        defer {
            let kept = attributes.count - Int(frame.attributeStart)
            if kept > 0 { attributes.removeLast(kept) }
            if frame.ownsBase { bases.removeLast() }
        }
        if xhtmlDepth >= 0 && depth > xhtmlDepth {
            appendText("</" + String(cString: localname) + ">")
            return
        }
        hasValue = false
        if frame.captures && captureDepth == depth {
            hasValue = true
            captureDepth = -1
            xhtmlDepth = -1
        }
        defer {
            if hasValue {
                hasValue = false
                if keepCapturedText { keepCapturedText = false } else { text.removeLast(text.count - captureStart) }
            }
        }
        let ns = frame.namespace
        let el = frame.name
        if (ns == .none || ns == .rss1) && el == .item || ns == .atom && el == .entry
            || ns == .podcast && el == .liveItem
        {
            if episodeOpen && episode.depth == depth { finishEpisode() }
            return
        }
        if ns == .itunes && el == .category && !itunes.categoryStack.isEmpty && !episodeOpen {
            ITunesElements.endCategory(&self)
            return
        }
        if el.rawValue >= Name.thumbnail.rawValue && endRareElement(ns, el, frame) { return }
        if ns == .podcast && el == .alternateEnclosure && podcast.currentAlternate != nil {
            PodcastElements.endAlternateEnclosure(&self)
            return
        }
        if episodeOpen {
            guard !episode.ignored else { return }
            let episodeDepth = episode.depth
            let direct = depth == episodeDepth + 1
            let inMediaGroup =
                depth == episodeDepth + 2 && frames.last?.namespace == .media && frames.last?.name == .group
            guard
                direct || inMediaGroup || (ns == .podcast && el == .source)
                    || MediaElements.isThumbnail(ns, el, episodeDepth: episodeDepth, frames: frames)
            else { return }
            endEpisodeElement(ns, el, frame)
            return
        }
        if root == .rdf, depth == 2, frames.last?.name == .image {
            RSSElements.endRDFImageChild(el, frame, &self)
            return
        }
        guard let channelDepth else { return }
        if depth == channelDepth + 1 && (root == .atom || frames.last?.name == .channel) {
            endChannelElement(ns, el, frame)
        } else if depth == channelDepth + 2, let parent = frames.last {
            endChannelChild(parent: parent, ns, el)
        }
    }

    // MARK: - Dispatch by namespace

    /// A direct child of the channel (or of an Atom feed).
    mutating func endChannelElement(_ ns: Namespace, _ el: Name, _ frame: Frame) {
        switch ns {
        case .none, .rss1, .dc, .sy: RSSElements.endChannelElement(ns, el, frame, &self)
        case .atom: AtomElements.endChannelElement(el, frame, &self)
        case .itunes: ITunesElements.endChannelElement(el, frame, &self)
        case .podcast: PodcastElements.endChannelElement(el, frame, &self)
        default: break
        }
    }

    /// Elements one level below a channel child: `image/url`, `itunes:owner/*`, Atom `author/name`.
    mutating func endChannelChild(parent: Frame, _ ns: Namespace, _ el: Name) {
        guard hasValue else { return }
        switch ns {
        case .none, .rss1: RSSElements.endChannelChild(parent: parent, ns, el, &self)
        case .itunes: ITunesElements.endChannelChild(parent: parent, el, &self)
        case .atom: AtomElements.endChannelChild(parent: parent, el, &self)
        default: break
        }
    }

    /// A child of the open episode (or a Media RSS element inside one of its `media:group`s).
    mutating func endEpisodeElement(_ ns: Namespace, _ el: Name, _ frame: Frame) {
        switch ns {
        case .none, .rss1, .dc: RSSElements.endEpisodeElement(ns, el, frame, &self)
        case .atom: AtomElements.endEpisodeElement(el, frame, &self)
        case .itunes: ITunesElements.endEpisodeElement(el, frame, &self)
        case .podcast: PodcastElements.endEpisodeElement(el, frame, &self)
        case .media: MediaElements.endEpisodeElement(el, frame, &self)
        case .content: ContentElements.endEpisodeElement(el, &self)
        default: break
        }
    }

    /// Ends a `podcast:value`, `podcast:podping` or `podcast:hiveAccount`, or a `<redirect>`'s `newLocation`, wherever
    /// they are; false for any other element. Kept off the common path.
    @inline(never)
    mutating func endRareElement(_ ns: Namespace, _ el: Name, _ frame: Frame) -> Bool {
        if ns == .podcast && PodcastElements.endRareElement(el, frame, &self) { return true }
        return RSSElements.endNewLocation(ns, el, frame, &self)
    }

    mutating func warnItemLimit() {
        guard !itemLimitWarned else { return }
        itemLimitWarned = true
        warn(.tooManyEpisodeEntries(limit: options.maxItemsPerEpisode))
    }

    // MARK: - Shared by the namespaces

    /// Adds an `<enclosure>`, Atom `link rel="enclosure"` or `media:content` (`media`) to the episode's one list of
    /// enclosures, in document order.
    mutating func addEnclosure(_ url: String, length: String?, type: String?, base: Int32, media: Bool) {
        guard let resolved = resolve(url, base: base) else { return }
        let enclosure = Enclosure(
            urlString: resolved, length: length.flatMap(Self.positiveInt64),
            type: type.map(TextCleaning.cleanLine).flatMap(nonEmpty))
        // The identity key keeps using the first <enclosure> (else the first media:content), as it always has.
        if media {
            if episode.identityMediaURL == nil { episode.identityMediaURL = resolved }
        } else if episode.identityEnclosureURL == nil {
            episode.identityEnclosureURL = resolved
        }
        if !Self.add(enclosure, to: &episode.enclosures, limit: options.maxItemsPerEpisode) { warnItemLimit() }
    }

    /// Appends `enclosure` unless its URL is already listed, in which case it only fills in the listed one's missing
    /// length and type; false when the list is full.
    static func add(_ enclosure: Enclosure, to list: inout [Enclosure], limit: Int) -> Bool {
        if list.isEmpty {
            list.append(enclosure)
            return true
        }
        if let index = list.firstIndex(where: { $0.urlString == enclosure.urlString }) {
            if list[index].length == nil { list[index].length = enclosure.length }
            if list[index].type == nil { list[index].type = enclosure.type }
            return true
        }
        guard list.count < limit else { return false }
        list.append(enclosure)
        return true
    }

    /// An attribute's text as one cleaned line; nil when absent or empty.
    func cleanAttribute(_ key: AttributeKey, of frame: Frame) -> String? {
        attribute(key, of: frame).map(TextCleaning.cleanLine).flatMap(nonEmpty)
    }

    /// A date in an attribute; nil with a warning when it cannot be read.
    mutating func attributeDate(_ text: String, name: String) -> Date? {
        let trimmed = text.trimmedText
        guard !trimmed.isEmpty else { return nil }
        if let date = FeedDate.parse(trimmed) { return date }
        warn(.unreadableDate(text: Self.snippet(trimmed), attribute: name))
        return nil
    }

    /// Appends to one of the channel's lists, up to the per-list limit (one warning).
    mutating func appendToChannel<T>(_ item: T, _ list: WritableKeyPath<ChannelBuilder, [T]>) {
        guard channel[keyPath: list].count < options.maxItemsPerEpisode else {
            if !channelListLimitWarned {
                channelListLimitWarned = true
                warn(.tooManyChannelEntries(limit: options.maxItemsPerEpisode))
            }
            return
        }
        channel[keyPath: list].append(item)
    }

    /// ``ITunesElements/maxCategoryDepth``.
    static var maxCategoryDepth: Int { ITunesElements.maxCategoryDepth }
}
