import Foundation

/// Atom 1.0 (and Atom 0.3) elements, in an Atom feed or inside RSS (`atom:link rel="self"`).
///
/// Stateless: the handlers write the channel and episode builders of the ``SAXState`` they are given. Text content
/// of `type="xhtml"` is captured as markup by ``SAXState`` itself, since it changes how every child element is read.
enum AtomElements {
    // MARK: - Channel

    static func endChannelElement(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch el {
        case .title:
            if state.channel.title == nil { state.channel.title = state.nonEmptyLine }
        case .link:
            endChannelLink(frame, &state)
        case .subtitle:
            state.channel.atomSubtitle = state.nonEmptyValue
        case .logo: if let value = state.value { state.channel.atomLogo = state.resolveURL(value, base: frame.base) }
        case .icon: if let value = state.value { state.channel.atomIcon = state.resolveURL(value, base: frame.base) }
        case .category:
            if let term = state.attribute(.label, of: frame) ?? state.attribute(.term, of: frame) {
                state.channel.addCategory(TextCleaning.cleanLine(term))
            }
        case .generator:
            state.channel.generator = state.nonEmptyLine
        case .updated:
            if state.hasValue { state.channel.lastBuildDate = state.date() }
        default: break
        }
    }

    /// `<author><name>` in the feed.
    static func endChannelChild(parent: SAXState.Frame, _ el: Name, _ state: inout SAXState) {
        if parent.namespace == .atom && parent.name == .author && el == .name {
            if state.channel.otherAuthor == nil { state.channel.otherAuthor = state.nonEmptyLine }
        }
    }

    /// `<link rel="…" href="…"/>` in the feed: its page, and the paging and self links.
    static func endChannelLink(_ frame: SAXState.Frame, _ state: inout SAXState) {
        guard let href = state.attribute(.href, of: frame), let url = state.resolveURL(href, base: frame.base) else {
            return
        }
        switch (state.attribute(.rel, of: frame) ?? "alternate").lowercased() {
        case "alternate": if state.channel.link == nil { state.channel.link = url }
        case "self": state.channel.selfURL = url
        case "next": state.channel.nextPage = url
        case "first": state.channel.firstPage = url
        case "last": state.channel.lastPage = url
        default: break
        }
    }

    // MARK: - Entry

    static func endEpisodeElement(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch el {
        case .title:
            if state.episode.title == nil { state.episode.title = state.nonEmptyLine }
        case .link:
            guard let href = state.attribute(.href, of: frame) else { return }
            let rel = (state.attribute(.rel, of: frame) ?? "alternate").lowercased()
            if rel == "enclosure" {
                state.addEnclosure(
                    href, length: state.attribute(.length, of: frame), type: state.attribute(.type, of: frame),
                    base: frame.base, media: false)
            } else if rel == "alternate", state.episode.link == nil {
                state.episode.link = state.resolve(href, base: frame.base)
            }
        case .id: state.episode.guid = state.nonEmptyLine
        case .content: state.episode.description = state.deferredValue()
        case .summary: state.episode.atomSummary = state.deferredValue()
        case .published:
            if state.hasValue { (state.episode.atomPublished, state.episode.atomPublishedOffset) = state.writtenDate() }
        case .updated:
            if state.hasValue { (state.episode.atomUpdated, state.episode.atomUpdatedOffset) = state.writtenDate() }
        default: break
        }
    }
}
