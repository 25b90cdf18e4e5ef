public import Foundation

/// An HLS playlist (RFC 8216): a multivariant playlist naming variants and audio renditions, or a media playlist
/// naming an episode's segments. Only what saving an episode as one file needs is read.
public enum HLSPlaylist: Sendable, Hashable {
    case multivariant(variants: [Variant], audio: [Rendition])
    case media(MediaPlaylist)

    /// One `#EXT-X-STREAM-INF` variant.
    public struct Variant: Sendable, Hashable {
        public var url: URL
        public var bandwidth: Int
        /// `CODECS`, split (`mp4a.40.2`, `avc1.64001f`).
        public var codecs: [String]
        /// `AUDIO`: the group of its audio renditions.
        public var audioGroup: String?

        /// True when every codec named is an audio codec (no codecs named: unknown, not audio-only).
        public var isAudioOnly: Bool {
            !codecs.isEmpty && codecs.allSatisfy { HLSPlaylist.isAudioCodec($0) }
        }
    }

    /// One `#EXT-X-MEDIA:TYPE=AUDIO` rendition with a `URI`.
    public struct Rendition: Sendable, Hashable {
        public var url: URL
        public var group: String?
        public var isDefault: Bool
    }

    /// A media playlist.
    public struct MediaPlaylist: Sendable, Hashable {
        public struct Segment: Sendable, Hashable {
            public var url: URL
            /// `#EXTINF`, in seconds.
            public var duration: Double
        }

        public var segments: [Segment]
        /// `#EXT-X-MAP`: the initialisation section of fMP4 segments; nil for MPEG-TS.
        public var initSection: URL?
        /// `#EXT-X-ENDLIST`: no segment will be added (video on demand). Without it the playlist is live.
        public var isComplete: Bool
        /// The first `#EXT-X-KEY` method other than `NONE` (`AES-128`, `SAMPLE-AES`, …); nil when unencrypted.
        public var encryption: String?
        /// A `#EXT-X-BYTERANGE` or a `BYTERANGE` on the map: segments that are parts of one file (not supported).
        public var usesByteRanges: Bool

        /// The summed `#EXTINF`: the episode's duration.
        public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
    }

    /// Why a body is not a playlist podfresh can read.
    public enum ParseError: Error, Sendable, Hashable {
        /// It does not start with `#EXTM3U`.
        case notAPlaylist
        /// A segment's or variant's URI does not resolve to an http(s) URL.
        case badURI(String)
    }

    /// Audio codecs as `CODECS` names them.
    static func isAudioCodec(_ codec: String) -> Bool {
        let lowered = codec.lowercased()
        return ["mp4a", "ac-3", "ec-3", "opus", "flac", "mp3", "alac", "fLaC".lowercased()].contains {
            lowered.hasPrefix($0)
        }
    }

    /// Parses `text`, resolving URIs against `base` (the playlist's URL after redirects).
    public static func parse(_ text: String, base: URL) throws(ParseError) -> HLSPlaylist {
        var lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = String(first.dropFirst()) }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { throw .notAPlaylist }
        func resolve(_ uri: String) throws(ParseError) -> URL {
            guard let url = URL(string: uri, relativeTo: base)?.absoluteURL,
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else { throw .badURI(uri) }
            return url
        }
        var variants: [Variant] = []
        var audio: [Rendition] = []
        var segments: [MediaPlaylist.Segment] = []
        var initSection: URL?
        var isComplete = false
        var encryption: String?
        var usesByteRanges = false
        var pendingVariant: [String: String]?
        var pendingDuration: Double?
        for line in lines.dropFirst() where !line.isEmpty {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pendingVariant = attributes(line.dropFirst("#EXT-X-STREAM-INF:".count))
            } else if line.hasPrefix("#EXT-X-MEDIA:") {
                let a = attributes(line.dropFirst("#EXT-X-MEDIA:".count))
                if a["TYPE"] == "AUDIO", let uri = a["URI"] {
                    audio.append(
                        Rendition(url: try resolve(uri), group: a["GROUP-ID"], isDefault: a["DEFAULT"] == "YES"))
                }
            } else if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", maxSplits: 1).first ?? ""
                pendingDuration = Double(value.trimmingCharacters(in: .whitespaces)) ?? 0
            } else if line.hasPrefix("#EXT-X-MAP:") {
                let a = attributes(line.dropFirst("#EXT-X-MAP:".count))
                if let uri = a["URI"] { initSection = try resolve(uri) }
                if a["BYTERANGE"] != nil { usesByteRanges = true }
            } else if line.hasPrefix("#EXT-X-KEY:") {
                let method = attributes(line.dropFirst("#EXT-X-KEY:".count))["METHOD"] ?? "NONE"
                if method != "NONE", encryption == nil { encryption = method }
            } else if line.hasPrefix("#EXT-X-BYTERANGE") {
                usesByteRanges = true
            } else if line.hasPrefix("#EXT-X-ENDLIST") {
                isComplete = true
            } else if line.hasPrefix("#") {
                continue
            } else if let variant = pendingVariant {
                pendingVariant = nil
                variants.append(
                    Variant(
                        url: try resolve(line), bandwidth: Int(variant["BANDWIDTH"] ?? "") ?? 0,
                        codecs: (variant["CODECS"] ?? "").split(separator: ",").map {
                            $0.trimmingCharacters(in: .whitespaces)
                        }.filter { !$0.isEmpty },
                        audioGroup: variant["AUDIO"]))
            } else {
                segments.append(MediaPlaylist.Segment(url: try resolve(line), duration: pendingDuration ?? 0))
                pendingDuration = nil
            }
        }
        if !variants.isEmpty { return .multivariant(variants: variants, audio: audio) }
        return .media(
            MediaPlaylist(
                segments: segments, initSection: initSection, isComplete: isComplete, encryption: encryption,
                usesByteRanges: usesByteRanges))
    }

    /// The media playlist to save from a multivariant playlist: an audio-only variant (the highest bandwidth of
    /// them), else an audio rendition with its own URI (the default one first), else the variant of the lowest
    /// bandwidth (the least video to carry for the sound).
    public static func choose(variants: [Variant], audio: [Rendition]) -> URL? {
        if let best = variants.filter(\.isAudioOnly).max(by: { $0.bandwidth < $1.bandwidth }) { return best.url }
        if let rendition = audio.first(where: \.isDefault) ?? audio.first { return rendition.url }
        return variants.min(by: { $0.bandwidth < $1.bandwidth })?.url
    }

    /// `KEY=VALUE,KEY="quoted, value"` attribute lists.
    static func attributes(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text[...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            var value: Substring
            if rest.first == "\"" {
                rest = rest.dropFirst()
                let close = rest.firstIndex(of: "\"") ?? rest.endIndex
                value = rest[..<close]
                rest = close < rest.endIndex ? rest[rest.index(after: close)...] : rest[rest.endIndex...]
                if rest.first == "," { rest = rest.dropFirst() }
            } else {
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<comma]
                rest = comma < rest.endIndex ? rest[rest.index(after: comma)...] : rest[rest.endIndex...]
            }
            result[key] = String(value)
        }
        return result
    }
}
