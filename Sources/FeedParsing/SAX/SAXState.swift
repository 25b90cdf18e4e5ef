import CLibXML2
import Foundation

/// Everything one parse accumulates, driven by the SAX callbacks. Confined to the parsing task.
final class SAXState {
    enum Root { case rss, rdf, atom }

    struct Frame {
        var namespace: Namespace
        var name: Name
        /// The `xml:base` in force inside this element.
        var base: URL?
        /// Attributes kept from the start tag, for elements whose data is in attributes.
        var attributes: [String: String]?
        /// Capture text of this element.
        var captures: Bool
    }

    let options: FeedParserOptions
    let documentURL: URL?
    var context: xmlParserCtxtPtr?

    // Structure
    var root: Root?
    var rootName: String?
    var rootIsNotAFeed = false
    var frames: [Frame] = []
    var channelDepth: Int?
    var channel = ChannelBuilder()
    var openEpisodes: [EpisodeBuilder] = []
    var finishedEpisodes: [EpisodeBuilder] = []
    var itemCount = 0
    var categoryStack: [(text: String, hasChild: Bool)] = []
    var currentPerson: [String: String]?
    var currentAlternate: AlternateEnclosure?

    // Text capture
    var text: [UInt8] = []
    var captureDepth = -1
    var fieldTruncated = false
    var xhtmlDepth = -1

    // Caches: libxml2 interns names and URIs in its dictionary, so pointers repeat within a document.
    var nameCache: [UnsafeRawPointer: Name] = [:]
    var namespaceCache: [UnsafeRawPointer: Namespace] = [:]
    var prefixCache: [UnsafeRawPointer: Namespace] = [:]

    // Problems
    var warnings: [ParseWarning] = []
    var suppressedWarnings = 0
    var firstError: (line: Int, message: String, code: Int32)?
    var sawEntityLoop = false
    var episodeLimitWarned = false
    var itemLimitWarned = false

    init(options: FeedParserOptions, documentURL: URL?) {
        self.options = options
        self.documentURL = documentURL
    }

    var depth: Int { frames.count }
    var currentLine: Int { context.map { Int(xmlSAX2GetLineNumber(UnsafeMutableRawPointer($0))) } ?? 0 }

    func warn(_ message: String, line: Int? = nil) {
        guard warnings.count < options.maxWarnings else {
            suppressedWarnings += 1
            return
        }
        warnings.append(ParseWarning(line: line ?? currentLine, message: message))
    }

    // MARK: - Names

    func name(_ pointer: UnsafePointer<xmlChar>) -> Name {
        let key = UnsafeRawPointer(pointer)
        if let cached = nameCache[key] { return cached }
        let value = Name.table[String(cString: pointer)] ?? .other
        nameCache[key] = value
        return value
    }

    func namespace(uri: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?) -> Namespace {
        if let uri {
            let key = UnsafeRawPointer(uri)
            if let cached = namespaceCache[key] { return cached }
            let value = Namespace.from(uri: String(cString: uri))
            namespaceCache[key] = value
            return value
        }
        guard let prefix else { return .none }
        let key = UnsafeRawPointer(prefix)
        if let cached = prefixCache[key] { return cached }
        let value = Namespace.fromUndeclared(prefix: String(cString: prefix))
        prefixCache[key] = value
        return value
    }

    // MARK: - Start

    func startElement(
        localname: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?,
        attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        let ns = namespace(uri: uri, prefix: prefix)
        let el = name(localname)
        let parentBase = frames.last?.base ?? documentURL

        // Inside captured XHTML content, child elements are markup to keep.
        if xhtmlDepth >= 0 {
            appendText("<" + String(cString: localname))
            forEachAttribute(attributeCount, attributes) { name, _, value in
                self.appendText(" \(name)=\"\(Self.escapeAttribute(value))\"")
            }
            appendText(">")
            frames.append(Frame(namespace: ns, name: .other, base: parentBase, attributes: nil, captures: false))
            return
        }

        var base = parentBase
        var attrs: [String: String]? = nil
        if attributeCount > 0 {
            var collected: [String: String] = [:]
            forEachAttribute(attributeCount, attributes) { name, attributeNS, value in
                if attributeNS == .xml && name == "base" {
                    base = self.resolve(value, against: parentBase, keepFile: true) ?? base
                } else if attributeNS == .rdf && name == "about" {
                    collected["rdf:about"] = value
                } else {
                    collected[name] = value
                }
            }
            attrs = collected
        }

        if root == nil {
            startRoot(ns: ns, el: el, localname: localname)
            frames.append(Frame(namespace: ns, name: el, base: base, attributes: attrs, captures: false))
            if root == .atom { channelDepth = 0 }
            return
        }

        var captures = false
        let inEpisode = !openEpisodes.isEmpty
        switch (ns, el) {
        case (.none, .channel), (.rss1, .channel):
            if channelDepth == nil { channelDepth = depth }
        case (.none, .item), (.rss1, .item), (.atom, .entry):
            startEpisode(attributes: attrs)
        case (.itunes, .category) where !inEpisode:
            let value = TextCleaning.cleanLine(attrs?["text"] ?? "")
            if let parent = categoryStack.last {
                categoryStack[categoryStack.count - 1].hasChild = true
                channel.addCategory(parent.text + "/" + value)
            }
            categoryStack.append((value, false))
        case (.podcast, .person) where inEpisode:
            currentPerson = attrs ?? [:]
            captures = true
        case (.podcast, .alternateEnclosure) where inEpisode:
            currentAlternate = AlternateEnclosure(
                url: nil, type: attrs?["type"], length: attrs?["length"].flatMap(Self.positiveInt64),
                bitrate: attrs?["bitrate"].flatMap { Double($0.trimmedText) },
                title: attrs?["title"].map(TextCleaning.cleanLine),
                isDefault: ["true", "yes"].contains(attrs?["default"]?.lowercased() ?? ""))
        case (.podcast, .source) where currentAlternate != nil:
            if currentAlternate?.url == nil, let uri = attrs?["uri"] { currentAlternate?.url = resolve(uri, against: base) }
        default:
            captures = el != .other && ns != .other && isTextElement(ns, el)
        }
        if !openEpisodes.isEmpty && openEpisodes[openEpisodes.count - 1].ignored { captures = false }
        if captures && captureDepth < 0 {
            captureDepth = depth
            text.removeAll(keepingCapacity: true)
            fieldTruncated = false
            if ns == .atom, attrs?["type"] == "xhtml", el == .content || el == .summary || el == .subtitle || el == .title {
                xhtmlDepth = depth
            }
        }
        frames.append(Frame(namespace: ns, name: el, base: base, attributes: attrs, captures: captures))
    }

    func startRoot(ns: Namespace, el: Name, localname: UnsafePointer<xmlChar>) {
        rootName = String(cString: localname)
        switch (ns, el) {
        case (.none, .rss), (.rss1, .rss): root = .rss
        case (.rdf, .RDF): root = .rdf
        case (.atom, .feed), (.none, .feed): root = .atom
        default:
            rootIsNotAFeed = true
            if let context { xmlStopParser(context) }
        }
    }

    func startEpisode(attributes: [String: String]?) {
        var episode = EpisodeBuilder(ordinal: itemCount, depth: depth)
        itemCount += 1
        if itemCount > options.maxEpisodes {
            episode.ignored = true
            if !episodeLimitWarned {
                episodeLimitWarned = true
                warn("more than \(options.maxEpisodes) episodes: the rest were ignored")
            }
        }
        if let about = attributes?["rdf:about"] { episode.rdfAbout = TextCleaning.cleanLine(about) }
        openEpisodes.append(episode)
    }

    func isTextElement(_ ns: Namespace, _ el: Name) -> Bool {
        switch el {
        case .channel, .item, .entry, .feed, .rss, .RDF, .image, .textinput, .owner, .group, .enclosure:
            return false
        case .link, .author, .source:
            return ns != .atom
        default:
            return true
        }
    }

    // MARK: - Text

    func characters(_ bytes: UnsafePointer<xmlChar>, _ length: Int) {
        guard captureDepth >= 0 else { return }
        let room = options.maxFieldBytes - text.count
        if length > room {
            if room > 0 { text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: room)) }
            if !fieldTruncated {
                fieldTruncated = true
                warn("a field longer than \(options.maxFieldBytes) bytes was cut")
            }
            return
        }
        text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
    }

    func appendText(_ string: String) {
        guard captureDepth >= 0, text.count + string.utf8.count <= options.maxFieldBytes else { return }
        text.append(contentsOf: string.utf8)
    }

    /// The captured text, cleaned of forbidden characters and trimmed, straight from the bytes.
    func takeText() -> String {
        let string = text.withUnsafeBufferPointer { TextCleaning.string(from: $0, collapse: false) }
        text.removeAll(keepingCapacity: true)
        return string
    }

    // MARK: - End

    func endElement(localname: UnsafePointer<xmlChar>) {
        guard let frame = frames.popLast() else { return }
        if xhtmlDepth >= 0 && depth > xhtmlDepth {
            appendText("</" + String(cString: localname) + ">")
            return
        }
        var value: String?
        if frame.captures && captureDepth == depth {
            value = takeText()
            captureDepth = -1
            xhtmlDepth = -1
        }
        let ns = frame.namespace
        let el = frame.name
        if (ns == .none || ns == .rss1) && el == .item || ns == .atom && el == .entry {
            if !openEpisodes.isEmpty && openEpisodes[openEpisodes.count - 1].depth == depth {
                let episode = openEpisodes.removeLast()
                if !episode.ignored { finishedEpisodes.append(episode) }
            }
            return
        }
        if ns == .itunes && el == .category && !categoryStack.isEmpty && openEpisodes.isEmpty {
            let category = categoryStack.removeLast()
            if !category.hasChild && categoryStack.isEmpty { channel.addCategory(category.text) }
            return
        }
        if ns == .podcast && el == .alternateEnclosure, let alternate = currentAlternate {
            currentAlternate = nil
            if !openEpisodes.isEmpty {
                let last = openEpisodes.count - 1
                if openEpisodes[last].alternateEnclosures.count < options.maxItemsPerEpisode {
                    openEpisodes[last].alternateEnclosures.append(alternate)
                } else {
                    warnItemLimit()
                }
            }
            return
        }
        if !openEpisodes.isEmpty {
            // Index, never copy: an EpisodeBuilder holds dozens of references.
            let last = openEpisodes.count - 1
            guard !openEpisodes[last].ignored else { return }
            let episodeDepth = openEpisodes[last].depth
            let direct = depth == episodeDepth + 1
            let inMediaGroup = depth == episodeDepth + 2 && frames.last?.namespace == .media && frames.last?.name == .group
            guard direct || inMediaGroup || (ns == .podcast && el == .source) else { return }
            applyEpisode(ns, el, value, frame, &openEpisodes[last])
            return
        }
        if root == .rdf, depth == 2, frames.last?.name == .image {
            // RSS 1.0: <image> is a sibling of <channel>.
            if el == .url, let value { channel.rssImage = channel.rssImage ?? resolve(value, against: frame.base) }
            return
        }
        guard let channelDepth else { return }
        if depth == channelDepth + 1 && (root == .atom || frames.last?.name == .channel) {
            applyChannel(ns, el, value, frame)
        } else if depth == channelDepth + 2, let parent = frames.last {
            applyChannelChild(parent: parent, ns, el, value)
        }
    }

    func warnItemLimit() {
        guard !itemLimitWarned else { return }
        itemLimitWarned = true
        warn("an episode has more than \(options.maxItemsPerEpisode) enclosures, transcripts or persons: the rest were ignored")
    }

    // MARK: - Channel fields

    func applyChannel(_ ns: Namespace, _ el: Name, _ value: String?, _ frame: Frame) {
        let attrs = frame.attributes
        switch (ns, el) {
        case (.none, .title), (.rss1, .title), (.atom, .title):
            if channel.title == nil { channel.title = value.map(TextCleaning.cleanLine).flatMap(nonEmpty) }
        case (.none, .link), (.rss1, .link):
            if channel.link == nil, let value { channel.link = resolve(value, against: frame.base) }
        case (.atom, .link):
            applyAtomLinkChannel(attrs, base: frame.base)
        case (.none, .description), (.rss1, .description):
            if channel.description == nil { channel.description = value.flatMap(nonEmpty) }
        case (.atom, .subtitle):
            channel.atomSubtitle = value.flatMap(nonEmpty)
        case (.itunes, .summary): channel.itunesSummary = value.flatMap(nonEmpty)
        case (.itunes, .subtitle): channel.itunesSubtitle = value.flatMap(nonEmpty)
        case (.none, .language), (.dc, .language), (.rss1, .language):
            if channel.language == nil { channel.language = value.map(TextCleaning.cleanLine).flatMap(nonEmpty) }
        case (.itunes, .image):
            if let href = attrs?["href"] ?? value { channel.itunesImage = channel.itunesImage ?? resolve(href, against: frame.base) }
        case (.atom, .logo): if let value { channel.atomLogo = resolve(value, against: frame.base) }
        case (.atom, .icon): if let value { channel.atomIcon = resolve(value, against: frame.base) }
        case (.itunes, .author): channel.itunesAuthor = value.map(TextCleaning.cleanLine).flatMap(nonEmpty)
        case (.none, .managingEditor), (.dc, .creator):
            if channel.otherAuthor == nil { channel.otherAuthor = value.map(TextCleaning.cleanLine).flatMap(nonEmpty) }
        case (.none, .category), (.rss1, .category):
            if let value { channel.addCategory(TextCleaning.cleanLine(value)) }
        case (.atom, .category):
            if let term = attrs?["label"] ?? attrs?["term"] { channel.addCategory(TextCleaning.cleanLine(term)) }
        case (.itunes, .explicit): channel.explicit = value.flatMap(Self.explicitFlag)
        case (.itunes, .type): channel.type = value.flatMap { PodcastType(rawValue: $0.trimmedText.lowercased()) }
        case (.itunes, .newFeedURL): if let value { channel.newFeedURL = resolve(value, against: frame.base) }
        case (.itunes, .block): channel.block = value.map(Self.yes)
        case (.itunes, .complete): channel.complete = value.map(Self.yes)
        case (.podcast, .guid): channel.podcastGUID = value.map(TextCleaning.cleanLine).flatMap(nonEmpty)
        case (.podcast, .locked): channel.locked = value.flatMap(Self.boolean)
        case (.podcast, .funding):
            if let url = attrs?["url"].flatMap({ resolve($0, against: frame.base) }) {
                channel.funding.append(Funding(url: url, text: value.map(TextCleaning.cleanLine).flatMap(nonEmpty)))
            }
        case (.podcast, .updateFrequency):
            channel.updateFrequency = attrs?["rrule"].map(TextCleaning.cleanLine) ?? value.map(TextCleaning.cleanLine).flatMap(nonEmpty)
        case (.none, .generator), (.atom, .generator):
            channel.generator = value.map(TextCleaning.cleanLine).flatMap(nonEmpty)
        case (.none, .lastBuildDate), (.atom, .updated):
            if let value { channel.lastBuildDate = date(value) }
        case (.none, .ttl): channel.ttl = value.flatMap { Int($0.trimmedText) }.flatMap { $0 > 0 ? $0 : nil }
        case (.sy, .updatePeriod): channel.syPeriod = value.map { TextCleaning.cleanLine($0).lowercased() }.flatMap(nonEmpty)
        case (.sy, .updateFrequency): channel.syFrequency = value.flatMap { Int($0.trimmedText) }
        default: break
        }
    }

    /// Elements one level below a channel child: `image/url`, `itunes:owner/*`, Atom `author/name`.
    func applyChannelChild(parent: Frame, _ ns: Namespace, _ el: Name, _ value: String?) {
        guard let value else { return }
        switch (parent.namespace, parent.name, ns, el) {
        case (.none, .image, .none, .url), (.rss1, .image, .rss1, .url):
            channel.rssImage = channel.rssImage ?? resolve(value, against: parent.base)
        case (.itunes, .owner, .itunes, .name): channel.ownerName = nonEmpty(TextCleaning.cleanLine(value))
        case (.itunes, .owner, .itunes, .email): channel.ownerEmail = nonEmpty(TextCleaning.cleanLine(value))
        case (.atom, .author, .atom, .name):
            if channel.otherAuthor == nil { channel.otherAuthor = nonEmpty(TextCleaning.cleanLine(value)) }
        default: break
        }
    }

    func applyAtomLinkChannel(_ attrs: [String: String]?, base: URL?) {
        guard let href = attrs?["href"], let url = resolve(href, against: base) else { return }
        switch (attrs?["rel"] ?? "alternate").lowercased() {
        case "alternate": if channel.link == nil { channel.link = url }
        case "self": channel.selfURL = url
        case "next": channel.nextPage = url
        case "first": channel.firstPage = url
        case "last": channel.lastPage = url
        default: break
        }
    }

    // MARK: - Episode fields

    func applyEpisode(_ ns: Namespace, _ el: Name, _ value: String?, _ frame: Frame, _ e: inout EpisodeBuilder) {
        let attrs = frame.attributes
        switch (ns, el) {
        case (.none, .title), (.rss1, .title), (.atom, .title), (.dc, .title):
            if e.title == nil { e.title = value.map(TextCleaning.cleanLine).flatMap(nonEmpty) }
        case (.itunes, .title): e.itunesTitle = value.map(TextCleaning.cleanLine).flatMap(nonEmpty)
        case (.none, .link), (.rss1, .link):
            if e.link == nil, let value { e.link = resolve(value, against: frame.base) }
        case (.atom, .link):
            guard let href = attrs?["href"] else { return }
            let rel = (attrs?["rel"] ?? "alternate").lowercased()
            if rel == "enclosure" {
                addEnclosure(href, length: attrs?["length"], type: attrs?["type"], base: frame.base, to: &e.enclosures)
            } else if rel == "alternate", e.link == nil {
                e.link = resolve(href, against: frame.base)
            }
        case (.none, .guid), (.rss1, .guid):
            e.guid = value.map(TextCleaning.cleanLine).flatMap(nonEmpty)
            if let permaLink = attrs?["isPermaLink"] { e.guidIsPermaLink = permaLink.lowercased() != "false" }
        case (.atom, .id): e.guid = value.map(TextCleaning.cleanLine).flatMap(nonEmpty)
        case (.content, .encoded): e.contentEncoded = value.flatMap(nonEmpty)
        case (.none, .description), (.rss1, .description), (.atom, .content):
            e.description = value.flatMap(nonEmpty)
        case (.atom, .summary): e.atomSummary = value.flatMap(nonEmpty)
        case (.itunes, .summary): e.itunesSummary = value.flatMap(nonEmpty)
        case (.itunes, .subtitle): e.itunesSubtitle = value.flatMap(nonEmpty)
        case (.none, .pubDate): if let value { e.pubDate = date(value) }
        case (.dc, .date): if let value { e.dcDate = date(value) }
        case (.atom, .published): if let value { e.atomPublished = date(value) }
        case (.atom, .updated): if let value { e.atomUpdated = date(value) }
        case (.none, .enclosure), (.rss1, .enclosure):
            if let url = attrs?["url"] {
                addEnclosure(url, length: attrs?["length"], type: attrs?["type"], base: frame.base, to: &e.enclosures)
            }
        case (.media, .content):
            if let url = attrs?["url"] {
                addEnclosure(url, length: attrs?["fileSize"], type: attrs?["type"], base: frame.base, to: &e.mediaContents)
            }
        case (.itunes, .duration):
            if let value, !value.trimmedText.isEmpty {
                e.duration = EpisodeDuration.parse(value)
                if e.duration == nil { warn("unreadable itunes:duration \"\(Self.snippet(value))\"") }
            }
        case (.itunes, .episode): e.itunesEpisode = value.flatMap(Self.number)
        case (.itunes, .season): e.itunesSeason = value.flatMap(Self.number)
        case (.podcast, .episode): e.podcastEpisode = value.flatMap(Self.number)
        case (.podcast, .season): e.podcastSeason = value.flatMap(Self.number)
        case (.itunes, .episodeType):
            e.episodeType = value.flatMap { EpisodeType(rawValue: $0.trimmedText.lowercased()) }
        case (.itunes, .explicit): e.explicit = value.flatMap(Self.explicitFlag)
        case (.itunes, .image):
            if let href = attrs?["href"] ?? value { e.image = resolve(href, against: frame.base) }
        case (.podcast, .transcript):
            guard let url = attrs?["url"].flatMap({ resolve($0, against: frame.base) }) else { return }
            guard e.transcripts.count < options.maxItemsPerEpisode else { return warnItemLimit() }
            e.transcripts.append(Transcript(url: url, type: attrs?["type"], language: attrs?["language"], rel: attrs?["rel"]))
        case (.podcast, .chapters):
            if e.chapters == nil { e.chapters = attrs?["url"].flatMap { resolve($0, against: frame.base) } }
        case (.podcast, .person):
            let attributes = currentPerson ?? [:]
            currentPerson = nil
            guard let name = value.map(TextCleaning.cleanLine), !name.isEmpty else { return }
            guard e.persons.count < options.maxItemsPerEpisode else { return warnItemLimit() }
            e.persons.append(
                Person(
                    name: name, role: (attributes["role"] ?? "host").lowercased(), group: attributes["group"]?.lowercased(),
                    href: attributes["href"].flatMap { resolve($0, against: frame.base) },
                    image: attributes["img"].flatMap { resolve($0, against: frame.base) }))
        default:
            break
        }
    }

    func addEnclosure(_ url: String, length: String?, type: String?, base: URL?, to list: inout [Enclosure]) {
        guard let resolved = resolve(url, against: base) else { return }
        guard list.count < options.maxItemsPerEpisode else { return warnItemLimit() }
        guard !list.contains(where: { $0.url == resolved }) else { return }
        let mime = type.map(TextCleaning.cleanLine).flatMap(nonEmpty)
        list.append(Enclosure(url: resolved, length: length.flatMap(Self.positiveInt64), type: mime))
    }

    // MARK: - Values

    func date(_ value: String) -> Date? {
        let trimmed = value.trimmedText
        guard !trimmed.isEmpty else { return nil }
        if let date = FeedDate.parse(trimmed) { return date }
        warn("unreadable date \"\(Self.snippet(trimmed))\"")
        return nil
    }

    /// Resolves a URL from the feed: trims it, undoes libxml2's `&#38;`, resolves it against `xml:base` or the
    /// document's URL, and keeps only http(s) (and file URLs inside a local file's feed).
    func resolve(_ raw: String, against base: URL?, keepFile: Bool = false) -> URL? {
        var text = TextCleaning.clean(raw)
        if text.utf8.contains(0x26), text.contains("&#38;") { text = text.replacingOccurrences(of: "&#38;", with: "&") }
        guard !text.isEmpty, text.utf8.count <= 8192 else { return nil }
        var url = URL(string: text)
        if url == nil, let escaped = text.addingPercentEncoding(withAllowedCharacters: Self.urlAllowed) {
            url = URL(string: escaped)
        }
        guard var resolved = url else { return nil }
        if resolved.scheme == nil {
            guard let base, let absolute = URL(string: resolved.relativeString, relativeTo: base)?.absoluteURL else {
                return nil
            }
            resolved = absolute
        }
        let scheme = resolved.scheme?.lowercased() ?? ""
        if scheme == "http" || scheme == "https" { return resolved.host?.isEmpty == false ? resolved : nil }
        if scheme == "file", keepFile || documentURL?.isFileURL == true { return resolved }
        warn("ignored a \(scheme): URL (only http and https are followed)")
        return nil
    }

    static let urlAllowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.insert(charactersIn: "#%")
        return set
    }()

    static func positiveInt64(_ text: String) -> Int64? {
        guard let value = Int64(text.trimmedText), value > 0 else { return nil }
        return value
    }

    static func number(_ text: String) -> Int? {
        let trimmed = text.trimmedText
        if let value = Int(trimmed), value >= 0, value < 1_000_000 { return value }
        if let value = Double(trimmed), value.isFinite, value >= 0, value < 1_000_000, value == value.rounded() { return Int(value) }
        return nil
    }

    static func explicitFlag(_ text: String) -> Bool? {
        switch text.trimmedText.lowercased() {
        case "true", "yes", "explicit": return true
        case "false", "no", "clean": return false
        default: return nil
        }
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.trimmedText.lowercased() {
        case "yes", "true": return true
        case "no", "false": return false
        default: return nil
        }
    }

    static func yes(_ text: String) -> Bool { boolean(text) == true }

    static func snippet(_ text: String) -> String {
        let cleaned = TextCleaning.cleanLine(text)
        return cleaned.count > 60 ? String(cleaned.prefix(60)) + "…" : cleaned
    }

    static func escapeAttribute(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }

    func forEachAttribute(
        _ count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
        _ body: (String, Namespace, String) -> Void
    ) {
        guard let attributes else { return }
        for index in 0..<count {
            let base = index * 5
            guard let localname = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4]
            else { continue }
            let ns = namespace(uri: attributes[base + 2], prefix: attributes[base + 1])
            body(String(cString: localname), ns == .none ? .none : ns, Self.attributeValue(UnsafeBufferPointer(start: start, count: end - start)))
        }
    }

    /// An attribute's text. Without entity substitution libxml2 leaves `&amp;` as the literal `&#38;`: undo that.
    static func attributeValue(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(0x26) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x26, i + 4 < bytes.count, bytes[i + 1] == 0x23, bytes[i + 2] == 0x33, bytes[i + 3] == 0x38, bytes[i + 4] == 0x3B {
                out.append(0x26)
                i += 5
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Errors

    func recordError(_ error: UnsafePointer<xmlError>) {
        let code = Int32(error.pointee.code)
        let line = Int(error.pointee.line)
        var message = error.pointee.message.map { String(cString: $0) } ?? "XML error \(code)"
        message = TextCleaning.cleanLine(message)
        if code == XML_ERR_ENTITY_LOOP.rawValue { sawEntityLoop = true }
        if firstError == nil { firstError = (line, message, code) }
        // Namespace warnings for undeclared well-known prefixes are handled, not worth a warning each.
        if error.pointee.domain == Int32(XML_FROM_NAMESPACE.rawValue) && code == XML_NS_ERR_UNDEFINED_NAMESPACE.rawValue {
            if warnings.contains(where: { $0.message.hasPrefix("namespace prefix") }) { return }
            warn("namespace prefix used without a declaration (\(message)); read by its well-known meaning", line: line)
            return
        }
        warn(message, line: line)
    }

    // MARK: - Result

    func makeFeed(format: FeedFormat) -> ParsedFeed {
        var all = finishedEpisodes + openEpisodes.filter { !$0.ignored }
        openEpisodes.removeAll()
        all.sort { $0.ordinal < $1.ordinal }
        let episodes = all.map { $0.build() }
        var seen: [String: Int] = [:]
        for (index, episode) in episodes.enumerated() {
            if let first = seen[episode.id] {
                warn("items \(first + 1) and \(index + 1) share the episode id \"\(Self.snippet(episode.id))\"; the first is kept", line: 0)
            } else {
                seen[episode.id] = index
            }
        }
        if suppressedWarnings > 0 {
            warnings.append(ParseWarning(line: 0, message: "\(suppressedWarnings) more warnings not shown"))
        }
        let c = channel
        return ParsedFeed(
            format: format,
            title: c.title,
            link: c.link,
            description: c.description ?? c.atomSubtitle ?? c.itunesSummary ?? c.itunesSubtitle,
            subtitle: c.itunesSubtitle,
            language: c.language,
            image: c.itunesImage ?? c.rssImage ?? c.atomLogo ?? c.atomIcon,
            author: c.itunesAuthor ?? c.otherAuthor,
            owner: c.ownerName == nil && c.ownerEmail == nil ? nil : Owner(name: c.ownerName, email: c.ownerEmail),
            categories: c.categories,
            explicit: c.explicit,
            type: c.type,
            newFeedURL: c.newFeedURL,
            block: c.block,
            complete: c.complete,
            podcastGUID: c.podcastGUID,
            locked: c.locked,
            funding: c.funding,
            updateFrequency: c.updateFrequency,
            generator: c.generator,
            lastBuildDate: c.lastBuildDate,
            ttl: c.ttl,
            syndicationUpdatePeriod: c.syPeriod,
            syndicationUpdateFrequency: c.syFrequency,
            selfURL: c.selfURL,
            nextPage: c.nextPage,
            firstPage: c.firstPage,
            lastPage: c.lastPage,
            episodes: episodes,
            warnings: warnings)
    }
}

private func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }
