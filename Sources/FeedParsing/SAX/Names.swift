/// The namespaces podfresh reads, identified by URI (never by prefix), with the variants real feeds use.
enum Namespace: UInt8 {
    case none, atom, itunes, podcast, content, dc, media, sy, rdf, rss1, xml, googleplay, psc, other

    /// Maps a namespace URI to the namespace it means.
    static func from(uri: String) -> Namespace {
        var text = uri.lowercased()
        while text.hasSuffix("/") || text.hasSuffix("#") { text.removeLast() }
        if text.hasPrefix("https://") { text = "http://" + text.dropFirst(8) }
        switch text {
        case "http://www.w3.org/2005/atom", "http://purl.org/atom/ns": return .atom
        case "http://www.itunes.com/dtds/podcast-1.0.dtd": return .itunes
        case "http://podcastindex.org/namespace/1.0",
            "http://github.com/podcastindex-org/podcast-namespace/blob/main/docs/1.0.md":
            return .podcast
        case "http://purl.org/rss/1.0/modules/content": return .content
        case "http://purl.org/dc/elements/1.1", "http://purl.org/dc/terms": return .dc
        case "http://search.yahoo.com/mrss", "http://search.yahoo.com/rss": return .media
        case "http://purl.org/rss/1.0/modules/syndication": return .sy
        case "http://www.w3.org/1999/02/22-rdf-syntax-ns": return .rdf
        case "http://purl.org/rss/1.0", "http://my.netscape.com/rdf/simple/0.9", "http://backend.userland.com/rss2",
            "http://blogs.law.harvard.edu/tech/rss":
            return .rss1
        case "http://www.w3.org/xml/1998/namespace": return .xml
        case "http://www.google.com/schemas/play-podcasts/1.0": return .googleplay
        case "http://podlove.org/simple-chapters": return .psc
        default:
            // Podcast Index namespace URLs copied from the docs in other shapes.
            if text.contains("podcastindex") && text.contains("namespace") { return .podcast }
            return .other
        }
    }

    /// The namespace a well-known prefix stands for when a feed uses it without declaring it.
    static func fromUndeclared(prefix: String) -> Namespace {
        switch prefix.lowercased() {
        case "itunes": return .itunes
        case "podcast": return .podcast
        case "atom", "atom10": return .atom
        case "content": return .content
        case "dc": return .dc
        case "media": return .media
        case "sy": return .sy
        case "rdf": return .rdf
        case "googleplay": return .googleplay
        case "psc": return .psc
        default: return .other
        }
    }
}

/// The element local names podfresh cares about.
enum Name: UInt8 {
    case other
    // structure
    case rss, channel, item, feed, entry, RDF, image, textinput
    // RSS
    case title, link, description, language, url, guid, pubDate, lastBuildDate, ttl, generator, category, enclosure
    case managingEditor, author, source
    // Atom
    case id, updated, published, summary, content, subtitle, logo, icon, name, email
    // iTunes
    case owner, explicit, type, newFeedURL, block, complete, duration, episode, season, episodeType
    // Podcast Index
    case locked, funding, updateFrequency, transcript, chapters, person, alternateEnclosure
    // content, dc, sy, media
    case encoded, date, creator, updatePeriod, group
    // Added for issue #10, kept last (``SAXState/isRareTextElement(_:_:)`` relies on it): media, Podcast Index, Podlove Simple Chapters (`chapter`), UserLand redirects (`redirect`, `newLocation`)
    case thumbnail, soundbite, value, valueRecipient, podroll, remoteItem, txt, trailer, location, license, medium,
        chapter
    case redirect, newLocation
    // Added for issue #23 (podping), kept after the rare names: `podcast:podping`, `podcast:hiveAccount`
    case podping, hiveAccount
    // `podcast:liveItem` and its `podcast:contentLink`s, kept after the rare names.
    case liveItem, contentLink

    static let table: [String: Name] = [
        "rss": .rss, "channel": .channel, "item": .item, "feed": .feed, "entry": .entry, "RDF": .RDF,
        "image": .image, "textinput": .textinput, "textInput": .textinput,
        "title": .title, "link": .link, "description": .description, "language": .language, "url": .url,
        "guid": .guid, "pubDate": .pubDate, "pubdate": .pubDate, "lastBuildDate": .lastBuildDate, "ttl": .ttl,
        "generator": .generator, "category": .category, "enclosure": .enclosure, "managingEditor": .managingEditor,
        "author": .author, "source": .source,
        "id": .id, "updated": .updated, "published": .published, "summary": .summary, "content": .content,
        "subtitle": .subtitle, "logo": .logo, "icon": .icon, "name": .name, "email": .email,
        "owner": .owner, "explicit": .explicit, "type": .type, "new-feed-url": .newFeedURL, "block": .block,
        "complete": .complete, "duration": .duration, "episode": .episode, "season": .season,
        "episodeType": .episodeType, "locked": .locked, "funding": .funding, "updateFrequency": .updateFrequency,
        "transcript": .transcript, "chapters": .chapters, "person": .person,
        "alternateEnclosure": .alternateEnclosure, "encoded": .encoded, "date": .date, "creator": .creator,
        "updatePeriod": .updatePeriod, "group": .group, "thumbnail": .thumbnail,
        "soundbite": .soundbite, "value": .value, "valueRecipient": .valueRecipient, "podroll": .podroll,
        "remoteItem": .remoteItem, "txt": .txt, "trailer": .trailer, "location": .location, "license": .license,
        "medium": .medium, "chapter": .chapter, "redirect": .redirect, "newLocation": .newLocation,
        "podping": .podping, "hiveAccount": .hiveAccount, "liveItem": .liveItem, "contentLink": .contentLink,
    ]
}

/// The attribute local names podfresh reads (`rdf:about` and `xml:base` are told apart by namespace).
enum AttributeKey: UInt8 {
    case other
    case url, length, type, href, rel, text, isPermaLink, term, label, uri, title, bitrate, isDefault, role, group
    case img, language, rrule, fileSize, about, base
    case medium, contentType, height, lang, codecs, startTime, duration, start, image, purpose, geo, osm, country
    case pubdate, season, feedGuid, feedUrl, itemGuid, method, suggested, name, address, split, fee, customKey
    case customValue, complete, dtstart
    case usesPodping, account, hiveAccount
    case status, end

    static let table: [String: AttributeKey] = [
        "url": .url, "length": .length, "type": .type, "href": .href, "rel": .rel, "text": .text,
        "isPermaLink": .isPermaLink, "term": .term, "label": .label, "uri": .uri, "title": .title, "bitrate": .bitrate,
        "default": .isDefault, "role": .role, "group": .group, "img": .img, "language": .language, "rrule": .rrule,
        "fileSize": .fileSize, "about": .about, "base": .base,
        "medium": .medium, "contentType": .contentType, "height": .height, "lang": .lang, "codecs": .codecs,
        "startTime": .startTime, "duration": .duration, "start": .start, "image": .image, "purpose": .purpose,
        "geo": .geo, "osm": .osm, "country": .country, "pubdate": .pubdate, "season": .season, "feedGuid": .feedGuid,
        "feedUrl": .feedUrl, "itemGuid": .itemGuid, "method": .method, "suggested": .suggested, "name": .name,
        "address": .address, "split": .split, "fee": .fee, "customKey": .customKey, "customValue": .customValue,
        "complete": .complete, "dtstart": .dtstart, "usesPodping": .usesPodping, "account": .account,
        "hiveAccount": .hiveAccount, "status": .status, "end": .end,
    ]
}
