public import FeedParsing

extension ParsedFeed {
    /// The identity keys of this feed's `count` newest episodes: by published date, undated ones after dated ones in
    /// document order (feeds list newest first far more often than not).
    ///
    /// A feed's first merge announces only these (``FeedCheck/announceLimit``); the rest is back catalogue.
    public func newestEpisodeKeys(count: Int) -> Set<String> {
        guard count > 0 else { return [] }
        let ordered = episodes.indices.sorted { a, b in
            switch (episodes[a].published, episodes[b].published) {
            case (let x?, let y?): return x != y ? x > y : a < b
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a < b
            }
        }
        return Set(ordered.prefix(count).map { episodes[$0].id })
    }
}
