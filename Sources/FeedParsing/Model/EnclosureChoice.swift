import Foundation

/// The media file of an episode that a podcast app would play and podfresh downloads, and why it won.
///
/// The candidates are every `<enclosure>`, Atom enclosure link and `media:content` (also inside `media:group`) in
/// document order (``ParsedEpisode/enclosures``), then every `podcast:alternateEnclosure` source. Only http(s) URLs
/// can win; images and documents never do. Among the rest the first audio file wins, else the first video, else the
/// first whose kind neither its type nor its file extension tells. A type says the kind (`audio/*`, `video/*`,
/// `application/ogg`); without a type, or with a generic one (`application/octet-stream`), the file extension does.
public struct EnclosureChoice: Sendable, Hashable {
    /// Where a candidate is in the episode.
    public enum Origin: Sendable, Hashable {
        /// ``ParsedEpisode/enclosures`` at this index.
        case enclosure(Int)
        /// ``ParsedEpisode/alternateEnclosures`` at `index`, its source at `source`.
        case alternate(index: Int, source: Int)
    }

    /// What a candidate is.
    public enum Kind: String, Sendable, Hashable {
        case audio
        case video
        /// Neither its type nor its extension says (a bare `/download` URL, `application/octet-stream`).
        case unknown
        case image
        /// Text, HTML, JSON, XML, PDF, a torrent: not something to play.
        case document
    }

    /// What told a candidate's kind.
    public enum Evidence: String, Sendable, Hashable {
        /// Its MIME type.
        case type
        /// Its URL's file extension (no type, or a generic one).
        case fileExtension = "extension"
        /// Nothing did.
        case nothing
    }

    /// Why a candidate did not win.
    public enum Loss: String, Sendable, Hashable {
        /// An image is never the episode.
        case image
        /// A document is never the episode.
        case document
        /// Not an http(s) URL.
        case notHTTP = "not-http"
        /// An earlier candidate of the same kind won.
        case later
        /// A candidate of a kind ranked higher won (audio over video, audio or video over unknown).
        case lowerKind = "lower-kind"
    }

    /// A candidate that did not win.
    public struct PassedOver: Sendable, Hashable {
        public var urlString: String
        public var type: String?
        public var origin: Origin
        public var kind: Kind
        public var loss: Loss
    }

    /// The winner; for an alternate enclosure, its source's URL with the alternate's type and length.
    public var enclosure: Enclosure
    public var origin: Origin
    public var kind: Kind
    public var evidence: Evidence
    /// Every other candidate, in order, with why it lost.
    public var passedOver: [PassedOver]
}

extension ParsedEpisode {
    /// The media file to play and download (``EnclosureChoice``), nil when no candidate is an http(s) audio, video or
    /// unknown file.
    public var chosenEnclosure: EnclosureChoice? { EnclosureChoice.choose(self) }
}

extension EnclosureChoice {
    private struct Candidate {
        var enclosure: Enclosure
        var origin: Origin
        var kind: Kind
        var evidence: Evidence
        var isHTTP: Bool
    }

    static func choose(_ episode: ParsedEpisode) -> EnclosureChoice? {
        var candidates: [Candidate] = []
        for (index, enclosure) in episode.enclosures.enumerated() {
            candidates.append(candidate(enclosure, origin: .enclosure(index)))
        }
        for (index, alternate) in episode.alternateEnclosures.enumerated() {
            for (position, source) in alternate.sources.enumerated() {
                let type = source.contentType ?? alternate.type
                let enclosure = Enclosure(urlString: source.uriString, length: alternate.length, type: type)
                candidates.append(candidate(enclosure, origin: .alternate(index: index, source: position)))
            }
        }
        let playable: [Kind] = [.audio, .video, .unknown]
        guard
            let kind = playable.first(where: { kind in candidates.contains { $0.isHTTP && $0.kind == kind } }),
            let winner = candidates.firstIndex(where: { $0.isHTTP && $0.kind == kind })
        else { return nil }
        let rank = { (kind: Kind) in playable.firstIndex(of: kind) ?? playable.count }
        let losers = candidates.indices.filter { $0 != winner }.map { index -> PassedOver in
            let candidate = candidates[index]
            let loss: Loss
            switch candidate.kind {
            case .image: loss = .image
            case .document: loss = .document
            case _ where !candidate.isHTTP: loss = .notHTTP
            case _ where rank(candidate.kind) > rank(kind): loss = .lowerKind
            default: loss = .later
            }
            return PassedOver(
                urlString: candidate.enclosure.urlString, type: candidate.enclosure.type, origin: candidate.origin,
                kind: candidate.kind, loss: loss)
        }
        let chosen = candidates[winner]
        return EnclosureChoice(
            enclosure: chosen.enclosure, origin: chosen.origin, kind: chosen.kind, evidence: chosen.evidence,
            passedOver: losers)
    }

    private static func candidate(_ enclosure: Enclosure, origin: Origin) -> Candidate {
        let (kind, evidence) = classify(type: enclosure.type, urlString: enclosure.urlString)
        let scheme = enclosure.urlString.prefix(8).lowercased()
        return Candidate(
            enclosure: enclosure, origin: origin, kind: kind, evidence: evidence,
            isHTTP: scheme.hasPrefix("http://") || scheme.hasPrefix("https://"))
    }

    /// A candidate's kind: by its type when the type says one, else by its URL's extension.
    static func classify(type: String?, urlString: String) -> (Kind, Evidence) {
        let mediaType =
            (type?.split(separator: ";", maxSplits: 1).first).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            } ?? ""
        if let kind = kind(ofType: mediaType) { return (kind, .type) }
        if let kind = kind(ofExtension: fileExtension(urlString)) { return (kind, .fileExtension) }
        return (.unknown, .nothing)
    }

    private static func kind(ofType type: String) -> Kind? {
        if type.hasPrefix("audio/") || type == "application/ogg" || type == "application/x-ogg" { return .audio }
        if type.hasPrefix("video/") { return .video }
        if type.hasPrefix("image/") { return .image }
        if type.hasPrefix("text/") || type.hasSuffix("+xml") || type.hasSuffix("+json") { return .document }
        let documents: Set<String> = [
            "application/json", "application/xml", "application/pdf", "application/x-bittorrent",
            "application/xhtml+xml", "application/javascript", "application/srt", "application/x-subrip",
        ]
        return documents.contains(type) ? .document : nil
    }

    private static let extensions: [String: Kind] = {
        var map: [String: Kind] = [:]
        for ext in [
            "mp3", "m4a", "m4b", "aac", "oga", "ogg", "opus", "flac", "wav", "mp2", "wma", "aif", "aiff", "amr",
        ] {
            map[ext] = .audio
        }
        for ext in ["mp4", "m4v", "mov", "webm", "mkv", "avi", "ogv", "3gp", "wmv", "mpg", "mpeg"] { map[ext] = .video }
        for ext in ["jpg", "jpeg", "png", "gif", "webp", "svg", "bmp", "avif", "heic"] { map[ext] = .image }
        for ext in ["pdf", "html", "htm", "txt", "json", "xml", "srt", "vtt", "torrent"] { map[ext] = .document }
        return map
    }()

    private static func kind(ofExtension ext: String) -> Kind? { extensions[ext] }

    /// The lower-cased extension of a URL's path, without query or fragment; empty when it has none.
    private static func fileExtension(_ urlString: String) -> String {
        var path = Substring(urlString)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        let name = path[path.index(after: slash)...]
        guard let dot = name.lastIndex(of: ".") else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
