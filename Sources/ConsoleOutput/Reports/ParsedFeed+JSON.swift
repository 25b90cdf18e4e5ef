public import FeedParsing
import Foundation

extension ParsedFeed {
    /// The feed as the JSON document `podfresh parse --json` prints (documented in the README): every key always
    /// present (`null` or `[]` when absent), in a stable order, episodes in document order, dates in RFC 3339 UTC,
    /// durations in seconds. The schema lives in ConsoleOutput with every other word and key podfresh prints.
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
            ("medium", .string(medium)),
            ("funding", .array(funding.map { .object([("url", .url($0.url)), ("text", .string($0.text))]) })),
            ("update_frequency", podcastUpdateFrequency.map(Self.json) ?? .null),
            ("license", license.map(Self.json) ?? .null),
            ("locations", .array(locations.map(Self.json))),
            ("trailers", .array(trailers.map(Self.json))),
            ("podroll", .array(podroll.map(Self.json))),
            ("txt", .array(txt.map(Self.json))),
            ("value", .array(value.map(Self.json))),
            ("episodes", .array(episodes.map { $0.jsonValue() })),
            (
                "warnings",
                .array(
                    warnings.map {
                        .object([("line", .int($0.line)), ("message", .string(ParseWarningText.message($0)))])
                    })
            ),
        ])
    }

    // MARK: - Podcast namespace values

    static func json(_ frequency: UpdateFrequency) -> JSONValue {
        .object([
            ("text", .string(frequency.text)), ("rrule", .string(frequency.rrule)),
            ("complete", frequency.complete.map { .bool($0) } ?? .null), ("dtstart", .date(frequency.start)),
        ])
    }

    static func json(_ license: License) -> JSONValue {
        .object([("name", .string(license.name)), ("url", .string(license.urlString))])
    }

    static func json(_ location: Location) -> JSONValue {
        .object([
            ("name", .string(location.name)), ("rel", .string(location.rel)), ("geo", .string(location.geo)),
            ("osm", .string(location.osm)), ("country", .string(location.country)),
        ])
    }

    static func json(_ trailer: Trailer) -> JSONValue {
        .object([
            ("url", .string(trailer.urlString)), ("title", .string(trailer.title)),
            ("published", .date(trailer.published)),
            ("length", trailer.length.map { .int(Int($0)) } ?? .null), ("type", .string(trailer.type)),
            ("season", .int(trailer.season)),
        ])
    }

    static func json(_ item: RemoteItem) -> JSONValue {
        .object([
            ("feed_guid", .string(item.feedGUID)), ("feed_url", .string(item.feedURLString)),
            ("item_guid", .string(item.itemGUID)), ("medium", .string(item.medium)), ("title", .string(item.title)),
        ])
    }

    static func json(_ text: PodcastText) -> JSONValue {
        .object([("purpose", .string(text.purpose)), ("text", .string(text.text))])
    }

    static func json(_ value: ValueBlock) -> JSONValue {
        .object([
            ("type", .string(value.type)), ("method", .string(value.method)), ("suggested", .string(value.suggested)),
            (
                "recipients",
                .array(
                    value.recipients.map { recipient in
                        .object([
                            ("name", .string(recipient.name)), ("type", .string(recipient.type)),
                            ("address", .string(recipient.address)),
                            ("split", .number(recipient.split)), ("fee", .bool(recipient.fee)),
                            ("custom_key", .string(recipient.customKey)),
                            ("custom_value", .string(recipient.customValue)),
                        ])
                    })
            ),
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
            (
                "enclosures",
                .array(
                    enclosures.map {
                        .object([
                            ("url", .string($0.urlString)), ("length", $0.length.map { .int(Int($0)) } ?? .null),
                            ("type", .string($0.type)),
                        ])
                    })
            ),
            ("episode", .int(episode)),
            ("season", .int(season)),
            ("episode_type", .string(episodeType?.rawValue)),
            ("explicit", explicit.map { .bool($0) } ?? .null),
            ("image", .string(imageString)),
            (
                "transcripts",
                .array(transcripts.map { .object([("url", .string($0.urlString)), ("type", .string($0.type))]) })
            ),
            ("chapters", .string(chaptersString)),
            (
                "persons",
                .array(
                    persons.map {
                        .object([
                            ("name", .string($0.name)), ("role", .string($0.role)), ("href", .string($0.hrefString)),
                        ])
                    })
            ),
            (
                "simple_chapters",
                .array(
                    simpleChapters.map {
                        .object([
                            ("start", .number($0.start)), ("title", .string($0.title)),
                            ("href", .string($0.hrefString)),
                            ("image", .string($0.imageString)),
                        ])
                    })
            ),
            (
                "alternate_enclosures",
                .array(
                    alternateEnclosures.map { alternate in
                        .object([
                            ("type", .string(alternate.type)),
                            ("length", alternate.length.map { .int(Int($0)) } ?? .null),
                            ("bitrate", .number(alternate.bitrate)), ("height", .int(alternate.height)),
                            ("lang", .string(alternate.language)),
                            ("title", .string(alternate.title)), ("rel", .string(alternate.rel)),
                            ("codecs", .string(alternate.codecs)),
                            ("default", .bool(alternate.isDefault)),
                            (
                                "sources",
                                .array(
                                    alternate.sources.map {
                                        .object([
                                            ("uri", .string($0.uriString)), ("content_type", .string($0.contentType)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
            (
                "soundbites",
                .array(
                    soundbites.map {
                        .object([
                            ("start", .number($0.start)), ("duration", .number($0.duration)),
                            ("title", .string($0.title)),
                        ])
                    })
            ),
            ("license", license.map(ParsedFeed.json) ?? .null),
            ("locations", .array(locations.map(ParsedFeed.json))),
            ("txt", .array(txt.map(ParsedFeed.json))),
            ("value", .array(value.map(ParsedFeed.json))),
            ("chosen_enclosure", chosenEnclosure.map(EnclosureChoiceJSON.value) ?? .null),
        ])
    }
}

/// `chosen_enclosure` in `parse --json`: which media file is downloaded, where it is in the episode, and why it won.
enum EnclosureChoiceJSON {
    static func value(_ choice: EnclosureChoice) -> JSONValue {
        .object([
            ("url", .string(choice.enclosure.urlString)), ("type", .string(choice.enclosure.type)),
            ("length", choice.enclosure.length.map { .int(Int($0)) } ?? .null),
            ("from", .string(place(choice.origin))), ("kind", .string(choice.kind.rawValue)),
            ("why", .string(why(choice))),
            (
                "passed_over",
                .array(
                    choice.passedOver.map {
                        .object([
                            ("url", .string($0.urlString)), ("from", .string(place($0.origin))),
                            ("kind", .string($0.kind.rawValue)), ("why", .string(loss($0))),
                        ])
                    })
            ),
        ])
    }

    /// `enclosures[1]`, `alternate_enclosures[0].sources[1]`: the path to the candidate in this same document.
    static func place(_ origin: EnclosureChoice.Origin) -> String {
        switch origin {
        case .enclosure(let index): "enclosures[\(index)]"
        case .alternate(let index, let source): "alternate_enclosures[\(index)].sources[\(source)]"
        }
    }

    /// Why the winner won: "the first audio file (by its type audio/mpeg)".
    static func why(_ choice: EnclosureChoice) -> String {
        let evidence: String
        switch choice.evidence {
        case .type: evidence = "by its type \(choice.enclosure.type ?? "")"
        case .fileExtension: evidence = "by its file extension"
        case .nothing: evidence = "neither its type nor its extension says what it is"
        }
        let what: String
        switch choice.kind {
        case .audio: what = "the first audio file"
        case .video: what = "the first video file (no audio file)"
        default: what = "the first file that may be media (no audio or video file)"
        }
        let others = choice.passedOver.isEmpty ? ", the only candidate" : ""
        return "\(what) (\(evidence))\(others)"
    }

    static func loss(_ passed: EnclosureChoice.PassedOver) -> String {
        switch passed.loss {
        case .image: "an image is never the episode"
        case .document: "a document is never the episode"
        case .notHTTP: "not an http(s) URL"
        case .later: "an earlier \(passed.kind.rawValue) file won"
        case .lowerKind: "audio is preferred to video, and either to a file of unknown kind"
        }
    }
}
