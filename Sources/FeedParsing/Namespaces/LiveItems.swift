/// `podcast:liveItem`, a child of the channel read as an episode (its `title`, `guid`, `enclosure` … as an item's),
/// marked with its status, start, end and `podcast:contentLink`s.
enum LiveItems {
    /// The start tag: `status`, `start` and `end` (the episode is already open).
    static func start(_ frame: SAXState.Frame, _ state: inout SAXState) {
        let status = state.cleanAttribute(.status, of: frame).flatMap { LiveItem.Status(rawValue: $0.lowercased()) }
        state.episode.extras.live = LiveItem(
            status: status ?? .pending, start: state.cleanAttribute(.start, of: frame).flatMap(FeedDate.parse),
            end: state.cleanAttribute(.end, of: frame).flatMap(FeedDate.parse))
    }

    /// A `podcast:contentLink` of the open live item: its `href` (http(s)) and its text.
    static func endContentLink(_ frame: SAXState.Frame, _ state: inout SAXState) {
        guard var live = state.episode.extras.live,
            let href = state.attribute(.href, of: frame).flatMap({ state.resolve($0, base: frame.base) })
        else { return }
        guard live.contentLinks.count < state.options.maxItemsPerEpisode else { return state.warnItemLimit() }
        live.contentLinks.append(LiveItem.ContentLink(hrefString: href, text: state.nonEmptyLine))
        state.episode.extras.live = live
    }
}
