/// Podlove Simple Chapters (`psc:`): `<psc:chapters><psc:chapter start="00:01:02" title="…"/></psc:chapters>` in an
/// episode, read at the start tag since the data is all in attributes.
///
/// Stateless: the handler writes the episode builder of the ``SAXState`` it is given.
enum PodloveElements {
    static func startChapter(_ frame: SAXState.Frame, base: Int32, inEpisode: Bool, _ state: inout SAXState) {
        guard
            inEpisode && !state.episode.ignored && state.depth == state.episode.depth + 2
                && state.frames.last?.namespace == .psc && state.frames.last?.name == .chapters,
            let start = state.attribute(.start, of: frame).flatMap(EpisodeDuration.parse),
            let title = state.cleanAttribute(.title, of: frame)
        else { return }
        guard state.episode.extras.simpleChapters.count < state.options.maxItemsPerEpisode else {
            state.warnItemLimit()
            return
        }
        state.episode.extras.simpleChapters.append(
            SimpleChapter(
                start: start, title: title,
                hrefString: state.attribute(.href, of: frame).flatMap { state.resolve($0, base: base) },
                imageString: state.attribute(.image, of: frame).flatMap { state.resolve($0, base: base) }))
    }
}
