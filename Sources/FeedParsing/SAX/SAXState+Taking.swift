extension SAXState {
    /// Takes out the episodes that ended so far in document order and before every item still open (so none that
    /// ends later comes before them in the document), first listings only: a repeat of a key already taken is
    /// dropped with the warning ``makeFeed(format:)`` would give it. See ``FeedParser/takeCompletedEpisodes()``.
    mutating func takeEpisodes() -> [ParsedEpisode] {
        var limit = Int.max
        if episodeOpen {
            limit = min(episode.ordinal, suspendedEpisodes.map(\.ordinal).min() ?? Int.max)
        }
        var count = 0
        var previous = lastTakenOrdinal
        while count < episodes.count, episodeOrdinals[count] > previous, episodeOrdinals[count] < limit {
            previous = episodeOrdinals[count]
            count += 1
        }
        guard count > 0 else { return [] }
        var taken: [ParsedEpisode] = []
        taken.reserveCapacity(count)
        for index in 0..<count {
            let id = episodes[index].id
            if let first = takenIDs[id] {
                warn(.sharedEpisodeID(first: first + 1, second: takenCount + 1, id: Self.snippet(id)), line: 0)
            } else {
                takenIDs[id] = takenCount
                taken.append(episodes[index])
            }
            takenCount += 1
        }
        lastTakenOrdinal = previous
        episodes.removeFirst(count)
        episodeOrdinals.removeFirst(count)
        return taken
    }
}
