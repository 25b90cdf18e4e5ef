import CLibXML2
import Foundation

/// Everything one parse accumulates, driven by the SAX callbacks. Confined to the parsing task.
///
/// A value type at a fixed address owned by ``FeedParser``: the callbacks get a pointer to it, so the hot path has
/// no reference counting and no dynamic exclusivity checks. Text is kept as bytes until an element ends, and turned
/// into the value its field needs (a string, a URL's text, a date, a number) straight from those bytes.
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

    struct PersonAttributes {
        var role: String?
        var group: String?
        var href: String?
        var img: String?
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
    /// Open `itunes:category` elements, outermost first.
    var categoryStack: [(text: String, hasChild: Bool)] = []
    var currentPerson: PersonAttributes?
    var currentAlternate: AlternateEnclosure?
    /// The open `podcast:value` and whether it belongs to the open episode (else to the channel).
    var currentValue: ValueBlock?
    var currentValueInEpisode = false
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
        case (.itunes, .category) where !inEpisode:
            // Each innermost category becomes one path when it ends ("Business/Entrepreneurship/Ecommerce").
            if !categoryStack.isEmpty { categoryStack[categoryStack.count - 1].hasChild = true }
            categoryStack.append((TextCleaning.cleanLine(attribute(.text, of: frame) ?? ""), false))
        case (.podcast, .person) where inEpisode:
            currentPerson = PersonAttributes(
                role: attribute(.role, of: frame), group: attribute(.group, of: frame),
                href: attribute(.href, of: frame),
                img: attribute(.img, of: frame))
            captures = true
        case (.podcast, .alternateEnclosure) where inEpisode:
            currentAlternate = AlternateEnclosure(
                url: nil, type: attribute(.type, of: frame),
                length: attribute(.length, of: frame).flatMap(Self.positiveInt64),
                bitrate: attribute(.bitrate, of: frame).flatMap { Double($0.trimmedText) },
                title: attribute(.title, of: frame).map(TextCleaning.cleanLine),
                isDefault: ["true", "yes"].contains(attribute(.isDefault, of: frame)?.lowercased() ?? ""),
                height: attribute(.height, of: frame).flatMap(Self.number), language: cleanAttribute(.lang, of: frame),
                rel: cleanAttribute(.rel, of: frame), codecs: cleanAttribute(.codecs, of: frame))
        case (.podcast, .source) where currentAlternate != nil:
            // Every source with an http(s) URL, in order; the first is also the alternate's `url`. Sources on other
            // transports (IPFS, torrents, onion) are normal here: they are counted in one warning, not one each.
            guard var alternate = currentAlternate, let uri = attribute(.uri, of: frame) else { break }
            let contentType = cleanAttribute(.contentType, of: frame)
            if alternate.url == nil {
                if let url = resolveURL(uri, base: base, quiet: true) {
                    alternate.url = url
                    alternate.sources.append(
                        AlternateEnclosure.Source(uriString: url.absoluteString, contentType: contentType))
                }
            } else if let url = resolve(uri, base: base, quiet: true),
                alternate.sources.count < options.maxItemsPerEpisode,
                !alternate.sources.contains(where: { $0.uriString == url })
            {
                alternate.sources.append(AlternateEnclosure.Source(uriString: url, contentType: contentType))
            }
            currentAlternate = alternate
        case (.podcast, .value), (.podcast, .valueRecipient), (.podcast, .remoteItem), (.psc, .chapter):
            startAttributeElement(ns, el, frame, base: base, inEpisode: inEpisode)
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

    /// Podcast namespace and Podlove elements whose data is all in attributes, read at their start tag.
    mutating func startAttributeElement(_ ns: Namespace, _ el: Name, _ frame: Frame, base: Int32, inEpisode: Bool) {
        switch (ns, el) {
        case (.podcast, .value) where inEpisode ? depth == episode.depth + 1 : depth == (channelDepth ?? -2) + 1:
            currentValue = ValueBlock(
                type: cleanAttribute(.type, of: frame), method: cleanAttribute(.method, of: frame),
                suggested: cleanAttribute(.suggested, of: frame))
            currentValueInEpisode = inEpisode
        case (.podcast, .valueRecipient) where currentValue != nil && frames.last?.name == .value:
            guard (currentValue?.recipients.count ?? 0) < options.maxItemsPerEpisode else { return }
            let recipient = ValueRecipient(
                name: cleanAttribute(.name, of: frame), type: cleanAttribute(.type, of: frame),
                address: cleanAttribute(.address, of: frame),
                split: attribute(.split, of: frame).flatMap { Double($0.trimmedText) }.flatMap {
                    $0.isFinite && $0 >= 0 ? $0 : nil
                },
                fee: attribute(.fee, of: frame).map(Self.yes) ?? false,
                customKey: cleanAttribute(.customKey, of: frame),
                customValue: cleanAttribute(.customValue, of: frame))
            currentValue?.recipients.append(recipient)
        case (.podcast, .remoteItem)
        where !inEpisode && frames.last?.namespace == .podcast && frames.last?.name == .podroll:
            let item = RemoteItem(
                feedGUID: cleanAttribute(.feedGuid, of: frame),
                feedURLString: attribute(.feedUrl, of: frame).flatMap { resolve($0, base: base) },
                itemGUID: cleanAttribute(.itemGuid, of: frame), medium: cleanAttribute(.medium, of: frame),
                title: cleanAttribute(.title, of: frame))
            if item.feedGUID != nil || item.feedURLString != nil { appendToChannel(item, \.podroll) }
        case (.psc, .chapter)
        where inEpisode && !episode.ignored && depth == episode.depth + 2 && frames.last?.namespace == .psc
            && frames.last?.name == .chapters:
            guard let start = attribute(.start, of: frame).flatMap(EpisodeDuration.parse),
                let title = cleanAttribute(.title, of: frame)
            else { return }
            guard episode.extras.simpleChapters.count < options.maxItemsPerEpisode else {
                warnItemLimit()
                return
            }
            episode.extras.simpleChapters.append(
                SimpleChapter(
                    start: start, title: title,
                    hrefString: attribute(.href, of: frame).flatMap { resolve($0, base: base) },
                    imageString: attribute(.image, of: frame).flatMap { resolve($0, base: base) }))
        default:
            break
        }
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
        case .soundbite, .txt, .trailer, .location, .license, .medium: return ns == .podcast
        case .newLocation: return ns == .none
        case .hiveAccount: return ns == .podcast
        default: return false  // containers and elements whose data is in attributes
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
        if (ns == .none || ns == .rss1) && el == .item || ns == .atom && el == .entry {
            if episodeOpen && episode.depth == depth { finishEpisode() }
            return
        }
        if ns == .itunes && el == .category && !categoryStack.isEmpty && !episodeOpen {
            if !categoryStack[categoryStack.count - 1].hasChild { channel.addCategory(categoryPath()) }
            categoryStack.removeLast()
            return
        }
        if el.rawValue >= Name.thumbnail.rawValue && endRareElement(ns, el, frame) { return }
        if ns == .podcast && el == .alternateEnclosure, let alternate = currentAlternate {
            currentAlternate = nil
            if episodeOpen {
                if episode.alternateEnclosures.count < options.maxItemsPerEpisode {
                    episode.alternateEnclosures.append(alternate)
                } else {
                    warnItemLimit()
                }
            }
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
                    || isMediaThumbnail(ns, el, episodeDepth: episodeDepth)
            else { return }
            applyEpisode(ns, el, frame)
            return
        }
        if root == .rdf, depth == 2, frames.last?.name == .image {
            // RSS 1.0: <image> is a sibling of <channel>.
            if el == .url, let value { channel.rssImage = channel.rssImage ?? resolveURL(value, base: frame.base) }
            return
        }
        guard let channelDepth else { return }
        if depth == channelDepth + 1 && (root == .atom || frames.last?.name == .channel) {
            applyChannel(ns, el, frame)
        } else if depth == channelDepth + 2, let parent = frames.last {
            applyChannelChild(parent: parent, ns, el)
        }
    }

    mutating func warnItemLimit() {
        guard !itemLimitWarned else { return }
        itemLimitWarned = true
        warn(.tooManyEpisodeEntries(limit: options.maxItemsPerEpisode))
    }

    // MARK: - Channel fields

    mutating func applyChannel(_ ns: Namespace, _ el: Name, _ frame: Frame) {
        switch (ns, el) {
        case (.none, .title), (.rss1, .title), (.atom, .title):
            if channel.title == nil { channel.title = nonEmptyLine }
        case (.none, .link), (.rss1, .link):
            if channel.link == nil, let value { channel.link = resolveURL(value, base: frame.base) }
        case (.atom, .link):
            applyAtomLinkChannel(frame)
        case (.none, .description), (.rss1, .description):
            if channel.description == nil { channel.description = nonEmptyValue }
        case (.atom, .subtitle):
            channel.atomSubtitle = nonEmptyValue
        case (.itunes, .summary): channel.itunesSummary = nonEmptyValue
        case (.itunes, .subtitle): channel.itunesSubtitle = nonEmptyValue
        case (.none, .language), (.dc, .language), (.rss1, .language):
            if channel.language == nil { channel.language = nonEmptyLine }
        case (.itunes, .image):
            if let href = attribute(.href, of: frame) ?? value {
                channel.itunesImage = channel.itunesImage ?? resolveURL(href, base: frame.base)
            }
        case (.atom, .logo): if let value { channel.atomLogo = resolveURL(value, base: frame.base) }
        case (.atom, .icon): if let value { channel.atomIcon = resolveURL(value, base: frame.base) }
        case (.itunes, .author): channel.itunesAuthor = nonEmptyLine
        case (.none, .managingEditor), (.dc, .creator):
            if channel.otherAuthor == nil { channel.otherAuthor = nonEmptyLine }
        case (.none, .category), (.rss1, .category):
            if let line { channel.addCategory(line) }
        case (.atom, .category):
            if let term = attribute(.label, of: frame) ?? attribute(.term, of: frame) {
                channel.addCategory(TextCleaning.cleanLine(term))
            }
        case (.itunes, .explicit): channel.explicit = value.flatMap(Self.explicitFlag)
        case (.itunes, .type): channel.type = value.flatMap { PodcastType(rawValue: $0.lowercased()) }
        case (.itunes, .newFeedURL): if let value { channel.newFeedURL = resolveURL(value, base: frame.base) }
        case (.itunes, .block): channel.block = value.map(Self.yes)
        case (.itunes, .complete): channel.complete = value.map(Self.yes)
        case (.podcast, .guid): channel.podcastGUID = nonEmptyLine
        case (.podcast, .locked): channel.locked = value.flatMap(Self.boolean)
        case (.podcast, .funding):
            if let url = attribute(.url, of: frame).flatMap({ resolveURL($0, base: frame.base) }) {
                channel.funding.append(Funding(url: url, text: nonEmptyLine))
            }
        case (.podcast, .updateFrequency):
            channel.updateFrequency = attribute(.rrule, of: frame).map(TextCleaning.cleanLine) ?? nonEmptyLine
            channel.podcastUpdateFrequency = UpdateFrequency(
                text: nonEmptyLine, rrule: cleanAttribute(.rrule, of: frame),
                complete: attribute(.complete, of: frame).flatMap(Self.boolean),
                start: attribute(.dtstart, of: frame).flatMap {
                    attributeDate($0, name: "podcast:updateFrequency dtstart")
                })
        case (.podcast, .medium): channel.medium = nonEmptyLine
        case (.podcast, .license): channel.license = license(frame) ?? channel.license
        case (.podcast, .location): if let location = location(frame) { appendToChannel(location, \.locations) }
        case (.podcast, .txt): if let txt = podcastText(frame) { appendToChannel(txt, \.txt) }
        case (.podcast, .trailer):
            guard let url = attribute(.url, of: frame).flatMap({ resolve($0, base: frame.base) }) else { return }
            appendToChannel(
                Trailer(
                    urlString: url, title: nonEmptyLine,
                    published: attribute(.pubdate, of: frame).flatMap {
                        attributeDate($0, name: "podcast:trailer pubdate")
                    },
                    length: attribute(.length, of: frame).flatMap(Self.positiveInt64),
                    type: cleanAttribute(.type, of: frame), season: attribute(.season, of: frame).flatMap(Self.number)),
                \.trailers)
        case (.none, .generator), (.atom, .generator):
            channel.generator = nonEmptyLine
        case (.none, .lastBuildDate), (.atom, .updated):
            if hasValue { channel.lastBuildDate = date() }
        case (.none, .ttl): channel.ttl = value.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
        case (.sy, .updatePeriod): channel.syPeriod = line.map { $0.lowercased() }.flatMap(nonEmpty)
        case (.sy, .updateFrequency): channel.syFrequency = value.flatMap { Int($0) }
        default: break
        }
    }

    /// Elements one level below a channel child: `image/url`, `itunes:owner/*`, Atom `author/name`.
    mutating func applyChannelChild(parent: Frame, _ ns: Namespace, _ el: Name) {
        guard hasValue else { return }
        switch (parent.namespace, parent.name, ns, el) {
        case (.none, .image, .none, .url), (.rss1, .image, .rss1, .url):
            if let value { channel.rssImage = channel.rssImage ?? resolveURL(value, base: parent.base) }
        case (.itunes, .owner, .itunes, .name): channel.ownerName = nonEmptyLine
        case (.itunes, .owner, .itunes, .email): channel.ownerEmail = nonEmptyLine
        case (.atom, .author, .atom, .name):
            if channel.otherAuthor == nil { channel.otherAuthor = nonEmptyLine }
        default: break
        }
    }

    mutating func applyAtomLinkChannel(_ frame: Frame) {
        guard let href = attribute(.href, of: frame), let url = resolveURL(href, base: frame.base) else { return }
        switch (attribute(.rel, of: frame) ?? "alternate").lowercased() {
        case "alternate": if channel.link == nil { channel.link = url }
        case "self": channel.selfURL = url
        case "next": channel.nextPage = url
        case "first": channel.firstPage = url
        case "last": channel.lastPage = url
        default: break
        }
    }

    // MARK: - Episode fields

    mutating func applyEpisode(_ ns: Namespace, _ el: Name, _ frame: Frame) {
        switch (ns, el) {
        case (.none, .title), (.rss1, .title), (.atom, .title), (.dc, .title):
            if episode.title == nil { episode.title = nonEmptyLine }
        case (.itunes, .title):
            // Used only when the item has no plain title.
            if episode.title == nil { episode.itunesTitle = nonEmptyLine }
        case (.none, .link), (.rss1, .link):
            if episode.link == nil && hasValue { episode.link = resolveText(base: frame.base) }
        case (.atom, .link):
            guard let href = attribute(.href, of: frame) else { return }
            let rel = (attribute(.rel, of: frame) ?? "alternate").lowercased()
            if rel == "enclosure" {
                addEnclosure(
                    href, length: attribute(.length, of: frame), type: attribute(.type, of: frame), base: frame.base,
                    media: false)
            } else if rel == "alternate", episode.link == nil {
                episode.link = resolve(href, base: frame.base)
            }
        case (.none, .guid), (.rss1, .guid):
            episode.guid = nonEmptyLine
            let permaLink = attribute(.isPermaLink, of: frame)?.trimmedText.lowercased()
            if let permaLink { episode.guidIsPermaLink = permaLink != "false" }
            episode.guidLink = nil
            if episode.guidIsPermaLink != false { setGuidLink(frame, saidOutright: permaLink == "true") }
        case (.atom, .id): episode.guid = nonEmptyLine
        case (.content, .encoded): episode.contentEncoded = deferredValue()
        case (.none, .description), (.rss1, .description), (.atom, .content):
            episode.description = deferredValue()
        case (.atom, .summary): episode.atomSummary = deferredValue()
        case (.itunes, .summary): episode.itunesSummary = deferredValue()
        case (.itunes, .subtitle): episode.itunesSubtitle = deferredValue()
        case (.none, .pubDate): if hasValue { episode.pubDate = date() }
        case (.dc, .date): if hasValue { episode.dcDate = date() }
        case (.atom, .published): if hasValue { episode.atomPublished = date() }
        case (.atom, .updated): if hasValue { episode.atomUpdated = date() }
        case (.none, .enclosure), (.rss1, .enclosure):
            if let url = attribute(.url, of: frame) {
                addEnclosure(
                    url, length: attribute(.length, of: frame), type: attribute(.type, of: frame), base: frame.base,
                    media: false)
            }
        case (.media, .content):
            addMediaContent(frame)
        case (.itunes, .duration):
            guard hasValue else { return }
            if let quick = withTrimmedText(EpisodeDuration.parseClock(_:)) {
                episode.duration = quick
                return
            }
            guard let value, !value.isEmpty else { return }
            episode.duration = EpisodeDuration.parse(value)
            if episode.duration == nil { warn(.unreadableDuration(text: Self.snippet(value))) }
        case (.itunes, .episode): episode.itunesEpisode = number()
        case (.itunes, .season): episode.itunesSeason = number()
        case (.podcast, .episode): episode.podcastEpisode = number()
        case (.podcast, .season): episode.podcastSeason = number()
        case (.itunes, .episodeType):
            guard hasValue else { return }
            episode.episodeType =
                withTrimmedText { bytes -> EpisodeType? in
                    if Self.asciiLowercaseEquals(bytes, "full") { return .full }
                    if Self.asciiLowercaseEquals(bytes, "trailer") { return .trailer }
                    if Self.asciiLowercaseEquals(bytes, "bonus") { return .bonus }
                    return nil
                } ?? value.flatMap { EpisodeType(rawValue: $0.lowercased()) }
        case (.itunes, .explicit):
            guard hasValue else { return }
            episode.explicit = withTrimmedText(Self.explicitFlag(bytes:)) ?? value.flatMap(Self.explicitFlag)
        case (.itunes, .image):
            if let href = attribute(.href, of: frame) {
                episode.image = resolve(href, base: frame.base)
            } else if hasValue {
                episode.image = resolveText(base: frame.base)
            }
        case (.podcast, .transcript):
            guard let url = attribute(.url, of: frame).flatMap({ resolve($0, base: frame.base) }) else { return }
            guard episode.transcripts.count < options.maxItemsPerEpisode else { return warnItemLimit() }
            episode.transcripts.append(
                Transcript(
                    urlString: url, type: attribute(.type, of: frame), language: attribute(.language, of: frame),
                    rel: attribute(.rel, of: frame)))
        case (.podcast, .chapters):
            if episode.chapters == nil {
                episode.chapters = attribute(.url, of: frame).flatMap { resolve($0, base: frame.base) }
            }
        case (.podcast, .person):
            let attributes = currentPerson ?? PersonAttributes()
            currentPerson = nil
            guard let name = line, !name.isEmpty else { return }
            guard episode.persons.count < options.maxItemsPerEpisode else { return warnItemLimit() }
            episode.persons.append(
                Person(
                    name: name, role: (attributes.role ?? "host").lowercased(), group: attributes.group?.lowercased(),
                    hrefString: attributes.href.flatMap { resolve($0, base: frame.base) },
                    imageString: attributes.img.flatMap { resolve($0, base: frame.base) }))
        default:
            if el.rawValue >= Name.thumbnail.rawValue { applyRareEpisodeElement(ns, el, frame) }
        }
    }

    // MARK: - Rarer elements (kept out of the per-element functions above, which stay small for the common path)

    /// Ends a `podcast:value` or a `<redirect>`'s `newLocation`; false for any other element.
    @inline(never)
    mutating func endRareElement(_ ns: Namespace, _ el: Name, _ frame: Frame) -> Bool {
        if ns == .podcast && (el == .podping || el == .hiveAccount) { return endPodping(el, frame) }
        if ns == .podcast && el == .value, let value = currentValue {
            currentValue = nil
            if currentValueInEpisode {
                if episodeOpen && !episode.ignored {
                    if episode.extras.value.count < options.maxItemsPerEpisode {
                        episode.extras.value.append(value)
                    } else {
                        warnItemLimit()
                    }
                }
            } else if !episodeOpen {
                appendToChannel(value, \.value)
            }
            return true
        }
        if ns == .none && el == .newLocation && !episodeOpen && frames.last?.namespace == Namespace.none
            && frames.last?.name == .redirect
        {
            // A UserLand redirect, as the document or inside the feed: read like itunes:new-feed-url.
            if channel.redirectLocation == nil, let value = nonEmptyValue {
                channel.redirectLocation = resolveURL(value, base: frame.base)
            }
            return true
        }
        return false
    }

    /// `<podcast:podping usesPodping="true"><podcast:hiveAccount account="podping.aaa"/></podcast:podping>` in the
    /// channel: whether the host pings, and the Hive accounts that send its pings (an account may also be the
    /// element's text, or a `hiveAccount` attribute of `podcast:podping`, as feeds in the wild write
    /// `<podcast:podping hiveAccount="podping.spk"/>`, one element per account). Inside an episode it is ignored.
    mutating func endPodping(_ el: Name, _ frame: Frame) -> Bool {
        guard !episodeOpen else { return true }
        if el == .podping {
            channel.declaresPodping = true
            if let uses = attribute(.usesPodping, of: frame).flatMap(Self.boolean) { channel.usesPodping = uses }
            if let account = attribute(.hiveAccount, of: frame).map(TextCleaning.cleanLine), !account.isEmpty,
                channel.hiveAccounts.count < 16, !channel.hiveAccounts.contains(account)
            {
                channel.hiveAccounts.append(account)
            }
        } else if frames.last?.namespace == .podcast, frames.last?.name == .podping,
            let account = (attribute(.account, of: frame).map(TextCleaning.cleanLine) ?? nonEmptyLine),
            !account.isEmpty, channel.hiveAccounts.count < 16, !channel.hiveAccounts.contains(account)
        {
            channel.hiveAccounts.append(account)
        }
        return true
    }

    /// A permalink guid (the default) is the episode's page when it has no <link>: an absolute http(s) URL, since
    /// many guids that are not links leave isPermaLink at its default. A relative guid is a link only when
    /// `isPermaLink="true"` is said outright; it is resolved against `xml:base` or the feed's URL.
    @inline(never)
    mutating func setGuidLink(_ frame: Frame, saidOutright: Bool) {
        guard let guid = episode.guid else { return }
        if URLText.hasHTTPScheme(guid) {
            episode.guidLink = resolve(guid, base: frame.base)
        } else if saidOutright, !guid.contains(":"), !guid.contains(where: \.isWhitespace),
            let link = resolve(guid, base: frame.base), URLText.hasHTTPScheme(link)
        {
            episode.guidLink = link
        }
    }

    /// `media:content`: an enclosure, or the episode's image when it is one (`medium="image"` or an `image/*` type).
    @inline(never)
    mutating func addMediaContent(_ frame: Frame) {
        guard let url = attribute(.url, of: frame) else { return }
        let medium = attribute(.medium, of: frame)?.trimmedText.lowercased()
        let type = attribute(.type, of: frame)?.trimmedText.lowercased()
        if medium == "image" || (medium == nil && type?.hasPrefix("image/") == true) {
            // An image, not a media file: the episode's image when it has no itunes:image. (The identity key
            // still counts it, as it did when it was listed as an enclosure.)
            guard let resolved = resolve(url, base: frame.base) else { return }
            if episode.mediaImage == nil { episode.mediaImage = resolved }
            if episode.identityMediaURL == nil { episode.identityMediaURL = resolved }
            return
        }
        addEnclosure(
            url, length: attribute(.fileSize, of: frame), type: attribute(.type, of: frame), base: frame.base,
            media: true)
    }

    /// Episode elements that few feeds have: `media:thumbnail`, and the Podcast Index soundbite, license, location
    /// and txt.
    @inline(never)
    mutating func applyRareEpisodeElement(_ ns: Namespace, _ el: Name, _ frame: Frame) {
        switch (ns, el) {
        case (.media, .thumbnail):
            if episode.mediaImage == nil, let url = attribute(.url, of: frame) {
                episode.mediaImage = resolve(url, base: frame.base)
            }
        case (.podcast, .soundbite):
            guard let start = attribute(.startTime, of: frame).flatMap(EpisodeDuration.parse),
                let duration = attribute(.duration, of: frame).flatMap(EpisodeDuration.parse), duration > 0
            else {
                warn(.unreadableSoundbite)
                return
            }
            guard episode.extras.soundbites.count < options.maxItemsPerEpisode else { return warnItemLimit() }
            episode.extras.soundbites.append(Soundbite(start: start, duration: duration, title: nonEmptyLine))
        case (.podcast, .license): if let license = license(frame) { episode.extras.license = license }
        case (.podcast, .location):
            guard let location = location(frame) else { return }
            guard episode.extras.locations.count < options.maxItemsPerEpisode else { return warnItemLimit() }
            episode.extras.locations.append(location)
        case (.podcast, .txt):
            guard let txt = podcastText(frame) else { return }
            guard episode.extras.txt.count < options.maxItemsPerEpisode else { return warnItemLimit() }
            episode.extras.txt.append(txt)
        default:
            break
        }
    }

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

    // MARK: - Podcast namespace values

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

    /// `podcast:license`: its text and `url`.
    mutating func license(_ frame: Frame) -> License? {
        let license = License(
            name: nonEmptyLine, urlString: attribute(.url, of: frame).flatMap { resolve($0, base: frame.base) })
        return license.name == nil && license.urlString == nil ? nil : license
    }

    /// `podcast:location`: its text (required) and attributes.
    func location(_ frame: Frame) -> Location? {
        guard let name = nonEmptyLine else { return nil }
        return Location(
            name: name, rel: cleanAttribute(.rel, of: frame)?.lowercased(), geo: cleanAttribute(.geo, of: frame),
            osm: cleanAttribute(.osm, of: frame), country: cleanAttribute(.country, of: frame))
    }

    /// `podcast:txt`: its text (required, line breaks kept) and `purpose`.
    func podcastText(_ frame: Frame) -> PodcastText? {
        guard let text = nonEmptyValue else { return nil }
        return PodcastText(purpose: cleanAttribute(.purpose, of: frame), text: text)
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

    /// Categories nest at most this deep; deeper levels share their ancestor's path.
    static let maxCategoryDepth = 8

    /// The path of the innermost open `itunes:category`: its ancestors' and its own text, empty levels left out.
    func categoryPath() -> String {
        var path = ""
        for entry in categoryStack.prefix(Self.maxCategoryDepth) where !entry.text.isEmpty {
            if !path.isEmpty { path += "/" }
            path += entry.text
        }
        return path
    }

    /// A `media:thumbnail` inside the item's `media:group` or `media:content` (directly inside the item is a
    /// direct child, read anyway).
    func isMediaThumbnail(_ ns: Namespace, _ el: Name, episodeDepth: Int) -> Bool {
        guard ns == .media, el == .thumbnail, depth > episodeDepth + 1, depth <= episodeDepth + 3 else { return false }
        for index in (episodeDepth + 1)..<depth {
            let ancestor = frames[index]
            guard ancestor.namespace == .media, ancestor.name == .group || ancestor.name == .content else {
                return false
            }
        }
        return true
    }

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
}
