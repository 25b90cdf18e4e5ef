import CLibXML2
import Foundation

extension SAXState {
    // MARK: - Errors

    mutating func recordError(_ error: UnsafePointer<xmlError>) {
        let code = Int32(error.pointee.code)
        let line = Int(error.pointee.line)
        var message = error.pointee.message.map { String(cString: $0) } ?? "XML error \(code)"
        message = TextCleaning.cleanLine(message)
        if code == XML_ERR_ENTITY_LOOP.rawValue { sawEntityLoop = true }
        if firstError == nil { firstError = (line, message, code) }
        // Namespace warnings for undeclared well-known prefixes are handled, not worth a warning each.
        if error.pointee.domain == Int32(XML_FROM_NAMESPACE.rawValue) && code == XML_NS_ERR_UNDEFINED_NAMESPACE.rawValue
        {
            if sawNamespaceWarning { return }
            let before = warnings.count
            warn(.undeclaredPrefix(libxml2Message: message), line: line)
            sawNamespaceWarning = warnings.count > before
            return
        }
        warn(.xml(libxml2Message: message), line: line)
    }

    // MARK: - Result

    mutating func makeFeed(format: FeedFormat) -> ParsedFeed {
        // Items still open at the end of a truncated document count, outermost first.
        if episodeOpen {
            var open = suspendedEpisodes
            open.append(episode)
            for builder in open where !builder.ignored {
                episodes.append(builder.build(text: text))
                episodeOrdinals.append(builder.ordinal)
            }
            suspendedEpisodes.removeAll()
            episodeOpen = false
        }
        var all = episodes
        episodes.removeAll()
        if zip(episodeOrdinals, episodeOrdinals.dropFirst()).contains(where: { $0 > $1 }) {
            // Illegally nested items end inside out: put them back in document order.
            all = zip(episodeOrdinals, all).sorted { $0.0 < $1.0 }.map(\.1)
        }
        var seen: [String: Int] = [:]
        seen.reserveCapacity(all.count)
        var repeatsTaken = false
        for index in all.indices {
            let id = all[index].id
            if let first = takenIDs[id] {
                repeatsTaken = true
                warn(.sharedEpisodeID(first: first + 1, second: takenCount + index + 1, id: Self.snippet(id)), line: 0)
            } else if let first = seen.updateValue(index, forKey: id) {
                seen[id] = first
                warn(
                    .sharedEpisodeID(
                        first: takenCount + first + 1, second: takenCount + index + 1, id: Self.snippet(id)),
                    line: 0)
            }
        }
        // A repeat of an episode taken out earlier is left out here: its first listing was handed on already.
        if repeatsTaken { all.removeAll { takenIDs[$0.id] != nil } }
        if quietlyIgnoredURLs > 0 {
            warn(.sourceURLsLeftOut(count: quietlyIgnoredURLs, schemes: quietlyIgnoredSchemes), line: 0)
        }
        if suppressedWarnings > 0 {
            warnings.append(ParseWarning(line: 0, .moreNotShown(count: suppressedWarnings)))
        }
        let c = channel
        var feed = ParsedFeed(
            format: format,
            title: c.title,
            link: c.link,
            description: c.description ?? c.atomSubtitle ?? c.itunesSummary ?? c.itunesSubtitle,
            subtitle: c.itunesSubtitle,
            language: c.language,
            image: c.itunesImage ?? c.rssImage ?? c.atomLogo ?? c.atomIcon,
            author: c.itunesAuthor ?? c.otherAuthor,
            owner: c.ownerName == nil && c.ownerEmail == nil ? nil : Owner(name: c.ownerName, email: c.ownerEmail),
            categories: c.categories,
            explicit: c.explicit,
            type: c.type,
            newFeedURL: c.newFeedURL ?? c.redirectLocation,
            block: c.block,
            complete: c.complete,
            podcastGUID: c.podcastGUID,
            locked: c.locked,
            funding: c.funding,
            updateFrequency: c.updateFrequency,
            generator: c.generator,
            lastBuildDate: c.lastBuildDate,
            ttl: c.ttl,
            syndicationUpdatePeriod: c.syPeriod,
            syndicationUpdateFrequency: c.syFrequency,
            selfURL: c.selfURL,
            nextPage: c.nextPage,
            firstPage: c.firstPage,
            lastPage: c.lastPage,
            podcastUpdateFrequency: c.podcastUpdateFrequency,
            medium: c.medium,
            license: c.license,
            locations: c.locations,
            trailers: c.trailers,
            podroll: c.podroll,
            txt: c.txt,
            value: c.value,
            episodes: all,
            warnings: warnings)
        if c.declaresPodping {
            feed.podping = PodpingDeclaration(usesPodping: c.usesPodping, hiveAccounts: c.hiveAccounts)
        }
        return feed
    }
}
