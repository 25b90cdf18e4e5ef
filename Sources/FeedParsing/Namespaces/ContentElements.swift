/// RSS 1.0's Content module (`content:`): `content:encoded`, the episode's full show notes as HTML.
///
/// Stateless: the handler writes the episode builder of the ``SAXState`` it is given.
enum ContentElements {
    static func endEpisodeElement(_ el: Name, _ state: inout SAXState) {
        if el == .encoded { state.episode.contentEncoded = state.deferredValue() }
    }
}
