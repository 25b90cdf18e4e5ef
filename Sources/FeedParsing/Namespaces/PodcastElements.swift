import Foundation

/// Podcasting 2.0 (`podcast:`, the Podcast Index namespace) elements, and the elements it collects while they are
/// open: a `podcast:person`'s attributes, a `podcast:alternateEnclosure` and its sources, a `podcast:value` and its
/// recipients.
///
/// The parse's ``SAXState`` owns one, inline, as `podcast`; the handlers are static because they also write the
/// state's channel and episode builders.
struct PodcastElements {
    struct PersonAttributes {
        var role: String?
        var group: String?
        var href: String?
        var img: String?
    }

    var currentPerson: PersonAttributes?
    var currentAlternate: AlternateEnclosure?
    /// The open `podcast:value` and whether it belongs to the open episode (else to the channel).
    var currentValue: ValueBlock?
    var currentValueInEpisode = false

    // MARK: - Start

    /// Reads what a start tag holds; returns whether the element's text is captured.
    static func startElement(
        _ el: Name, _ frame: SAXState.Frame, base: Int32, inEpisode: Bool, _ state: inout SAXState
    ) -> Bool {
        switch el {
        case .person where inEpisode:
            state.podcast.currentPerson = PersonAttributes(
                role: state.attribute(.role, of: frame), group: state.attribute(.group, of: frame),
                href: state.attribute(.href, of: frame),
                img: state.attribute(.img, of: frame))
            return true
        case .alternateEnclosure where inEpisode:
            state.podcast.currentAlternate = AlternateEnclosure(
                url: nil, type: state.attribute(.type, of: frame),
                length: state.attribute(.length, of: frame).flatMap(SAXState.positiveInt64),
                bitrate: state.attribute(.bitrate, of: frame).flatMap { Double($0.trimmedText) },
                title: state.attribute(.title, of: frame).map(TextCleaning.cleanLine),
                isDefault: ["true", "yes"].contains(state.attribute(.isDefault, of: frame)?.lowercased() ?? ""),
                height: state.attribute(.height, of: frame).flatMap(SAXState.number),
                language: state.cleanAttribute(.lang, of: frame),
                rel: state.cleanAttribute(.rel, of: frame), codecs: state.cleanAttribute(.codecs, of: frame))
            return false
        case .source where state.podcast.currentAlternate != nil:
            startSource(frame, base: base, &state)
            return false
        case .value, .valueRecipient, .remoteItem:
            startAttributeElement(el, frame, base: base, inEpisode: inEpisode, &state)
            return false
        default:
            return el != .other && state.isTextElement(.podcast, el)
        }
    }

    /// A `podcast:source` of the open `podcast:alternateEnclosure`.
    static func startSource(_ frame: SAXState.Frame, base: Int32, _ state: inout SAXState) {
        // Every source with an http(s) URL, in order; the first is also the alternate's `url`. Sources on other
        // transports (IPFS, torrents, onion) are normal here: they are counted in one warning, not one each.
        guard var alternate = state.podcast.currentAlternate, let uri = state.attribute(.uri, of: frame) else {
            return
        }
        let contentType = state.cleanAttribute(.contentType, of: frame)
        if alternate.url == nil {
            if let url = state.resolveURL(uri, base: base, quiet: true) {
                alternate.url = url
                alternate.sources.append(
                    AlternateEnclosure.Source(uriString: url.absoluteString, contentType: contentType))
            }
        } else if let url = state.resolve(uri, base: base, quiet: true),
            alternate.sources.count < state.options.maxItemsPerEpisode,
            !alternate.sources.contains(where: { $0.uriString == url })
        {
            alternate.sources.append(AlternateEnclosure.Source(uriString: url, contentType: contentType))
        }
        state.podcast.currentAlternate = alternate
    }

    /// Elements whose data is all in attributes, read at their start tag.
    static func startAttributeElement(
        _ el: Name, _ frame: SAXState.Frame, base: Int32, inEpisode: Bool, _ state: inout SAXState
    ) {
        let depth = state.depth
        switch el {
        case .value
        where inEpisode ? depth == state.episode.depth + 1 : depth == (state.channelDepth ?? -2) + 1:
            state.podcast.currentValue = ValueBlock(
                type: state.cleanAttribute(.type, of: frame), method: state.cleanAttribute(.method, of: frame),
                suggested: state.cleanAttribute(.suggested, of: frame))
            state.podcast.currentValueInEpisode = inEpisode
        case .valueRecipient where state.podcast.currentValue != nil && state.frames.last?.name == .value:
            guard (state.podcast.currentValue?.recipients.count ?? 0) < state.options.maxItemsPerEpisode else {
                return
            }
            let recipient = ValueRecipient(
                name: state.cleanAttribute(.name, of: frame), type: state.cleanAttribute(.type, of: frame),
                address: state.cleanAttribute(.address, of: frame),
                split: state.attribute(.split, of: frame).flatMap { Double($0.trimmedText) }.flatMap {
                    $0.isFinite && $0 >= 0 ? $0 : nil
                },
                fee: state.attribute(.fee, of: frame).map(SAXState.yes) ?? false,
                customKey: state.cleanAttribute(.customKey, of: frame),
                customValue: state.cleanAttribute(.customValue, of: frame))
            state.podcast.currentValue?.recipients.append(recipient)
        case .remoteItem
        where !inEpisode && state.frames.last?.namespace == .podcast && state.frames.last?.name == .podroll:
            let item = RemoteItem(
                feedGUID: state.cleanAttribute(.feedGuid, of: frame),
                feedURLString: state.attribute(.feedUrl, of: frame).flatMap { state.resolve($0, base: base) },
                itemGUID: state.cleanAttribute(.itemGuid, of: frame), medium: state.cleanAttribute(.medium, of: frame),
                title: state.cleanAttribute(.title, of: frame))
            if item.feedGUID != nil || item.feedURLString != nil { state.appendToChannel(item, \.podroll) }
        default:
            break
        }
    }

    // MARK: - Channel

    static func endChannelElement(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch el {
        case .guid: state.channel.podcastGUID = state.nonEmptyLine
        case .locked: state.channel.locked = state.value.flatMap(SAXState.boolean)
        case .funding:
            if let url = state.attribute(.url, of: frame).flatMap({ state.resolveURL($0, base: frame.base) }) {
                state.channel.funding.append(Funding(url: url, text: state.nonEmptyLine))
            }
        case .updateFrequency:
            state.channel.updateFrequency =
                state.attribute(.rrule, of: frame).map(TextCleaning.cleanLine) ?? state.nonEmptyLine
            state.channel.podcastUpdateFrequency = UpdateFrequency(
                text: state.nonEmptyLine, rrule: state.cleanAttribute(.rrule, of: frame),
                complete: state.attribute(.complete, of: frame).flatMap(SAXState.boolean),
                start: state.attribute(.dtstart, of: frame).flatMap {
                    state.attributeDate($0, name: "podcast:updateFrequency dtstart")
                })
        case .medium: state.channel.medium = state.nonEmptyLine
        case .license: state.channel.license = license(frame, &state) ?? state.channel.license
        case .location:
            if let location = location(frame, state) { state.appendToChannel(location, \.locations) }
        case .txt: if let txt = podcastText(frame, state) { state.appendToChannel(txt, \.txt) }
        case .trailer:
            guard let url = state.attribute(.url, of: frame).flatMap({ state.resolve($0, base: frame.base) }) else {
                return
            }
            state.appendToChannel(
                Trailer(
                    urlString: url, title: state.nonEmptyLine,
                    published: state.attribute(.pubdate, of: frame).flatMap {
                        state.attributeDate($0, name: "podcast:trailer pubdate")
                    },
                    length: state.attribute(.length, of: frame).flatMap(SAXState.positiveInt64),
                    type: state.cleanAttribute(.type, of: frame),
                    season: state.attribute(.season, of: frame).flatMap(SAXState.number)),
                \.trailers)
        default: break
        }
    }

    // MARK: - Episode

    static func endEpisodeElement(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch el {
        case .episode: state.episode.podcastEpisode = state.number()
        case .season: state.episode.podcastSeason = state.number()
        case .transcript:
            guard let url = state.attribute(.url, of: frame).flatMap({ state.resolve($0, base: frame.base) }) else {
                return
            }
            guard state.episode.transcripts.count < state.options.maxItemsPerEpisode else {
                return state.warnItemLimit()
            }
            state.episode.transcripts.append(
                Transcript(
                    urlString: url, type: state.attribute(.type, of: frame),
                    language: state.attribute(.language, of: frame), rel: state.attribute(.rel, of: frame)))
        case .chapters:
            if state.episode.chapters == nil {
                state.episode.chapters = state.attribute(.url, of: frame).flatMap {
                    state.resolve($0, base: frame.base)
                }
            }
        case .person:
            let attributes = state.podcast.currentPerson ?? PersonAttributes()
            state.podcast.currentPerson = nil
            guard let name = state.line, !name.isEmpty else { return }
            guard state.episode.persons.count < state.options.maxItemsPerEpisode else { return state.warnItemLimit() }
            state.episode.persons.append(
                Person(
                    name: name, role: (attributes.role ?? "host").lowercased(), group: attributes.group?.lowercased(),
                    hrefString: attributes.href.flatMap { state.resolve($0, base: frame.base) },
                    imageString: attributes.img.flatMap { state.resolve($0, base: frame.base) }))
        default:
            if el.rawValue >= Name.thumbnail.rawValue { endRareEpisodeElement(el, frame, &state) }
        }
    }

    /// Episode elements that few feeds have: soundbite, license, location and txt.
    @inline(never)
    static func endRareEpisodeElement(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch el {
        case .soundbite:
            guard let start = state.attribute(.startTime, of: frame).flatMap(EpisodeDuration.parse),
                let duration = state.attribute(.duration, of: frame).flatMap(EpisodeDuration.parse), duration > 0
            else {
                state.warn(.unreadableSoundbite)
                return
            }
            guard state.episode.extras.soundbites.count < state.options.maxItemsPerEpisode else {
                return state.warnItemLimit()
            }
            state.episode.extras.soundbites.append(
                Soundbite(start: start, duration: duration, title: state.nonEmptyLine))
        case .license: if let license = license(frame, &state) { state.episode.extras.license = license }
        case .location:
            guard let location = location(frame, state) else { return }
            guard state.episode.extras.locations.count < state.options.maxItemsPerEpisode else {
                return state.warnItemLimit()
            }
            state.episode.extras.locations.append(location)
        case .txt:
            guard let txt = podcastText(frame, state) else { return }
            guard state.episode.extras.txt.count < state.options.maxItemsPerEpisode else {
                return state.warnItemLimit()
            }
            state.episode.extras.txt.append(txt)
        case .contentLink:
            LiveItems.endContentLink(frame, &state)
        default:
            break
        }
    }

    // MARK: - End, wherever they are

    /// Ends the open `podcast:alternateEnclosure`: the episode keeps it, up to the per-list limit.
    static func endAlternateEnclosure(_ state: inout SAXState) {
        guard let alternate = state.podcast.currentAlternate else { return }
        state.podcast.currentAlternate = nil
        if state.episodeOpen {
            if state.episode.alternateEnclosures.count < state.options.maxItemsPerEpisode {
                state.episode.alternateEnclosures.append(alternate)
            } else {
                state.warnItemLimit()
            }
        }
    }

    /// Ends a `podcast:podping`, `podcast:hiveAccount` or open `podcast:value`; false for any other element.
    static func endRareElement(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) -> Bool {
        if el == .podping || el == .hiveAccount { return endPodping(el, frame, &state) }
        if el == .value, let value = state.podcast.currentValue {
            state.podcast.currentValue = nil
            if state.podcast.currentValueInEpisode {
                if state.episodeOpen && !state.episode.ignored {
                    if state.episode.extras.value.count < state.options.maxItemsPerEpisode {
                        state.episode.extras.value.append(value)
                    } else {
                        state.warnItemLimit()
                    }
                }
            } else if !state.episodeOpen {
                state.appendToChannel(value, \.value)
            }
            return true
        }
        return false
    }

    /// `<podcast:podping usesPodping="true"><podcast:hiveAccount account="podping.aaa"/></podcast:podping>` in the
    /// channel: whether the host pings, and the Hive accounts that send its pings (an account may also be the
    /// element's text, or a `hiveAccount` attribute of `podcast:podping`, as feeds in the wild write
    /// `<podcast:podping hiveAccount="podping.spk"/>`, one element per account). Inside an episode it is ignored.
    static func endPodping(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) -> Bool {
        guard !state.episodeOpen else { return true }
        if el == .podping {
            state.channel.declaresPodping = true
            if let uses = state.attribute(.usesPodping, of: frame).flatMap(SAXState.boolean) {
                state.channel.usesPodping = uses
            }
            if let account = state.attribute(.hiveAccount, of: frame).map(TextCleaning.cleanLine), !account.isEmpty,
                state.channel.hiveAccounts.count < 16, !state.channel.hiveAccounts.contains(account)
            {
                state.channel.hiveAccounts.append(account)
            }
        } else if state.frames.last?.namespace == .podcast, state.frames.last?.name == .podping,
            let account = (state.attribute(.account, of: frame).map(TextCleaning.cleanLine) ?? state.nonEmptyLine),
            !account.isEmpty, state.channel.hiveAccounts.count < 16, !state.channel.hiveAccounts.contains(account)
        {
            state.channel.hiveAccounts.append(account)
        }
        return true
    }

    // MARK: - Values

    /// `podcast:license`: its text and `url`.
    static func license(_ frame: SAXState.Frame, _ state: inout SAXState) -> License? {
        let license = License(
            name: state.nonEmptyLine,
            urlString: state.attribute(.url, of: frame).flatMap { state.resolve($0, base: frame.base) })
        return license.name == nil && license.urlString == nil ? nil : license
    }

    /// `podcast:location`: its text (required) and attributes.
    static func location(_ frame: SAXState.Frame, _ state: borrowing SAXState) -> Location? {
        guard let name = state.nonEmptyLine else { return nil }
        return Location(
            name: name, rel: state.cleanAttribute(.rel, of: frame)?.lowercased(),
            geo: state.cleanAttribute(.geo, of: frame), osm: state.cleanAttribute(.osm, of: frame),
            country: state.cleanAttribute(.country, of: frame))
    }

    /// `podcast:txt`: its text (required, line breaks kept) and `purpose`.
    static func podcastText(_ frame: SAXState.Frame, _ state: borrowing SAXState) -> PodcastText? {
        guard let text = state.nonEmptyValue else { return nil }
        return PodcastText(purpose: state.cleanAttribute(.purpose, of: frame), text: text)
    }
}
