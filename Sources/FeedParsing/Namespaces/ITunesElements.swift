import Foundation

/// Apple Podcasts' `itunes:` elements, and the `itunes:category` tree they collect while it is open.
///
/// The parse's ``SAXState`` owns one, inline, as `itunes`; the handlers are static because they also write the
/// state's channel and episode builders.
struct ITunesElements {
    /// Open `itunes:category` elements, outermost first.
    var categoryStack: [(text: String, hasChild: Bool)] = []

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

    // MARK: - Channel

    /// `<itunes:category text="Business">` in the channel opens one level of the category tree.
    static func startCategory(_ frame: SAXState.Frame, _ state: inout SAXState) {
        // Each innermost category becomes one path when it ends ("Business/Entrepreneurship/Ecommerce").
        if !state.itunes.categoryStack.isEmpty {
            state.itunes.categoryStack[state.itunes.categoryStack.count - 1].hasChild = true
        }
        state.itunes.categoryStack.append((TextCleaning.cleanLine(state.attribute(.text, of: frame) ?? ""), false))
    }

    /// Ends a channel's `itunes:category`: an innermost one adds its path.
    static func endCategory(_ state: inout SAXState) {
        if !state.itunes.categoryStack[state.itunes.categoryStack.count - 1].hasChild {
            state.channel.addCategory(state.itunes.categoryPath())
        }
        state.itunes.categoryStack.removeLast()
    }

    static func endChannelElement(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch el {
        case .summary: state.channel.itunesSummary = state.nonEmptyValue
        case .subtitle: state.channel.itunesSubtitle = state.nonEmptyValue
        case .image:
            if let href = state.attribute(.href, of: frame) ?? state.value {
                state.channel.itunesImage = state.channel.itunesImage ?? state.resolveURL(href, base: frame.base)
            }
        case .author: state.channel.itunesAuthor = state.nonEmptyLine
        case .explicit: state.channel.explicit = state.value.flatMap(SAXState.explicitFlag)
        case .type: state.channel.type = state.value.flatMap { PodcastType(rawValue: $0.lowercased()) }
        case .newFeedURL:
            if let value = state.value { state.channel.newFeedURL = state.resolveURL(value, base: frame.base) }
        case .block: state.channel.block = state.value.map(SAXState.yes)
        case .complete: state.channel.complete = state.value.map(SAXState.yes)
        default: break
        }
    }

    /// `<itunes:owner><itunes:name>` and `<itunes:email>` in the channel.
    static func endChannelChild(parent: SAXState.Frame, _ el: Name, _ state: inout SAXState) {
        guard parent.namespace == .itunes, parent.name == .owner else { return }
        switch el {
        case .name: state.channel.ownerName = state.nonEmptyLine
        case .email: state.channel.ownerEmail = state.nonEmptyLine
        default: break
        }
    }

    // MARK: - Episode

    static func endEpisodeElement(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch el {
        case .title:
            // Used only when the item has no plain title.
            if state.episode.title == nil { state.episode.itunesTitle = state.nonEmptyLine }
        case .summary: state.episode.itunesSummary = state.deferredValue()
        case .subtitle: state.episode.itunesSubtitle = state.deferredValue()
        case .duration:
            guard state.hasValue else { return }
            if let quick = state.withTrimmedText(EpisodeDuration.parseClock(_:)) {
                state.episode.duration = quick
                return
            }
            guard let value = state.value, !value.isEmpty else { return }
            state.episode.duration = EpisodeDuration.parse(value)
            if state.episode.duration == nil { state.warn(.unreadableDuration(text: SAXState.snippet(value))) }
        case .episode: state.episode.itunesEpisode = state.number()
        case .season: state.episode.itunesSeason = state.number()
        case .episodeType:
            guard state.hasValue else { return }
            state.episode.episodeType =
                state.withTrimmedText { bytes -> EpisodeType? in
                    if SAXState.asciiLowercaseEquals(bytes, "full") { return .full }
                    if SAXState.asciiLowercaseEquals(bytes, "trailer") { return .trailer }
                    if SAXState.asciiLowercaseEquals(bytes, "bonus") { return .bonus }
                    return nil
                } ?? state.value.flatMap { EpisodeType(rawValue: $0.lowercased()) }
        case .explicit:
            guard state.hasValue else { return }
            state.episode.explicit =
                state.withTrimmedText(SAXState.explicitFlag(bytes:)) ?? state.value.flatMap(SAXState.explicitFlag)
        case .image:
            if let href = state.attribute(.href, of: frame) {
                state.episode.image = state.resolve(href, base: frame.base)
            } else if state.hasValue {
                state.episode.image = state.resolveText(base: frame.base)
            }
        default: break
        }
    }
}
