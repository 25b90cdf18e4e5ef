extension ParsedFeed {
    /// The feed as the JSON document `podfresh parse --json` prints (documented in the README): every key always
    /// present (`null` or `[]` when absent), in a stable order, episodes in document order, dates in RFC 3339 UTC,
    /// durations in seconds.
    public func jsonDocument() -> String {
        jsonValue().serialized()
    }

    /// The JSON document as a value.
    public func jsonValue() -> JSONValue {
        .object([
            ("format", .string(format.rawValue)),
            ("title", .string(title)),
            ("link", .url(link)),
            ("description", .string(description)),
            ("language", .string(language)),
            ("image", .url(image)),
            ("author", .string(author)),
            ("explicit", explicit.map { .bool($0) } ?? .null),
            ("type", .string(type?.rawValue)),
            ("new_feed_url", .url(newFeedURL)),
            ("podcast_guid", .string(podcastGUID)),
            ("locked", locked.map { .bool($0) } ?? .null),
            ("complete", complete.map { .bool($0) } ?? .null),
            ("categories", .array(categories.map { .string($0) })),
            ("next_page", .url(nextPage)),
            ("episodes", .array(episodes.map { $0.jsonValue() })),
            ("warnings", .array(warnings.map { .object([("line", .int($0.line)), ("message", .string($0.message))]) })),
        ])
    }
}

extension ParsedEpisode {
    /// One episode of ``ParsedFeed/jsonDocument()``.
    public func jsonValue() -> JSONValue {
        .object([
            ("id", .string(id)),
            ("guid", .string(guid)),
            ("title", .string(title)),
            ("link", .string(linkString)),
            ("description", .string(description)),
            ("summary", .string(summary)),
            ("published", .date(published)),
            ("duration", .number(duration)),
            ("enclosures", .array(enclosures.map {
                .object([("url", .string($0.urlString)), ("length", $0.length.map { .int(Int($0)) } ?? .null), ("type", .string($0.type))])
            })),
            ("episode", .int(episode)),
            ("season", .int(season)),
            ("episode_type", .string(episodeType?.rawValue)),
            ("explicit", explicit.map { .bool($0) } ?? .null),
            ("image", .string(imageString)),
            ("transcripts", .array(transcripts.map { .object([("url", .string($0.urlString)), ("type", .string($0.type))]) })),
            ("chapters", .string(chaptersString)),
            ("persons", .array(persons.map { .object([("name", .string($0.name)), ("role", .string($0.role)), ("href", .string($0.hrefString))]) })),
        ])
    }
}
