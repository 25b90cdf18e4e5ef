import Foundation

/// RSS 2.0 and RSS 1.0 elements (no namespace, or RSS 1.0's), with the RSS 1.0 modules Dublin Core (`dc:`) and
/// Syndication (`sy:`), and UserLand's `<redirect>`.
///
/// Stateless: the handlers write the channel and episode builders of the ``SAXState`` they are given.
enum RSSElements {
    // MARK: - Channel

    /// A channel field; `ns` is `.none`, `.rss1`, `.dc` or `.sy`.
    static func endChannelElement(_ ns: Namespace, _ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch (ns, el) {
        case (.none, .title), (.rss1, .title):
            if state.channel.title == nil { state.channel.title = state.nonEmptyLine }
        case (.none, .link), (.rss1, .link):
            if state.channel.link == nil, let value = state.value {
                state.channel.link = state.resolveURL(value, base: frame.base)
            }
        case (.none, .description), (.rss1, .description):
            if state.channel.description == nil { state.channel.description = state.nonEmptyValue }
        case (.none, .language), (.dc, .language), (.rss1, .language):
            if state.channel.language == nil { state.channel.language = state.nonEmptyLine }
        case (.none, .managingEditor), (.dc, .creator):
            if state.channel.otherAuthor == nil { state.channel.otherAuthor = state.nonEmptyLine }
        case (.none, .category), (.rss1, .category):
            if let line = state.line { state.channel.addCategory(line) }
        case (.none, .generator):
            state.channel.generator = state.nonEmptyLine
        case (.none, .lastBuildDate):
            if state.hasValue { state.channel.lastBuildDate = state.date() }
        case (.none, .ttl): state.channel.ttl = state.value.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
        case (.sy, .updatePeriod): state.channel.syPeriod = state.line.map { $0.lowercased() }.flatMap(nonEmpty)
        case (.sy, .updateFrequency): state.channel.syFrequency = state.value.flatMap { Int($0) }
        default: break
        }
    }

    /// `<image><url>` in the channel; `ns` is `.none` or `.rss1`.
    static func endChannelChild(
        parent: SAXState.Frame, _ ns: Namespace, _ el: Name, _ state: inout SAXState
    ) {
        switch (parent.namespace, parent.name, ns, el) {
        case (.none, .image, .none, .url), (.rss1, .image, .rss1, .url):
            if let value = state.value {
                state.channel.rssImage = state.channel.rssImage ?? state.resolveURL(value, base: parent.base)
            }
        default: break
        }
    }

    /// RSS 1.0: `<image>` is a sibling of `<channel>`, and its `<url>` the channel's image.
    static func endRDFImageChild(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        if el == .url, let value = state.value {
            state.channel.rssImage = state.channel.rssImage ?? state.resolveURL(value, base: frame.base)
        }
    }

    /// A UserLand redirect's `<newLocation>`, as the document or inside the feed: read like `itunes:new-feed-url`.
    /// False for any other element.
    static func endNewLocation(_ ns: Namespace, _ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) -> Bool {
        guard
            ns == .none && el == .newLocation && !state.episodeOpen
                && state.frames.last?.namespace == Namespace.none && state.frames.last?.name == .redirect
        else { return false }
        if state.channel.redirectLocation == nil, let value = state.nonEmptyValue {
            state.channel.redirectLocation = state.resolveURL(value, base: frame.base)
        }
        return true
    }

    // MARK: - Episode

    /// An episode field; `ns` is `.none`, `.rss1` or `.dc`.
    static func endEpisodeElement(_ ns: Namespace, _ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch (ns, el) {
        case (.none, .title), (.rss1, .title), (.dc, .title):
            if state.episode.title == nil { state.episode.title = state.nonEmptyLine }
        case (.none, .link), (.rss1, .link):
            if state.episode.link == nil && state.hasValue { state.episode.link = state.resolveText(base: frame.base) }
        case (.none, .guid), (.rss1, .guid):
            state.episode.guid = state.nonEmptyLine
            let permaLink = state.attribute(.isPermaLink, of: frame)?.trimmedText.lowercased()
            if let permaLink { state.episode.guidIsPermaLink = permaLink != "false" }
            state.episode.guidLink = nil
            if state.episode.guidIsPermaLink != false { setGuidLink(frame, saidOutright: permaLink == "true", &state) }
        case (.none, .description), (.rss1, .description):
            state.episode.description = state.deferredValue()
        case (.none, .pubDate):
            if state.hasValue { (state.episode.pubDate, state.episode.pubDateOffset) = state.writtenDate() }
        case (.dc, .date):
            if state.hasValue { (state.episode.dcDate, state.episode.dcDateOffset) = state.writtenDate() }
        case (.none, .enclosure), (.rss1, .enclosure):
            if let url = state.attribute(.url, of: frame) {
                state.addEnclosure(
                    url, length: state.attribute(.length, of: frame), type: state.attribute(.type, of: frame),
                    base: frame.base, media: false)
            }
        default: break
        }
    }

    /// A permalink guid (the default) is the episode's page when it has no <link>: an absolute http(s) URL, since
    /// many guids that are not links leave isPermaLink at its default. A relative guid is a link only when
    /// `isPermaLink="true"` is said outright; it is resolved against `xml:base` or the feed's URL.
    @inline(never)
    static func setGuidLink(_ frame: SAXState.Frame, saidOutright: Bool, _ state: inout SAXState) {
        guard let guid = state.episode.guid else { return }
        if URLText.hasHTTPScheme(guid) {
            state.episode.guidLink = state.resolve(guid, base: frame.base)
        } else if saidOutright, !guid.contains(":"), !guid.contains(where: \.isWhitespace),
            let link = state.resolve(guid, base: frame.base), URLText.hasHTTPScheme(link)
        {
            state.episode.guidLink = link
        }
    }
}
