import Foundation

/// The audio or video container a body's first bytes show.
public enum MediaContainer: String, Sendable, Hashable, CaseIterable {
    /// An ID3v2 tag (`ID3`), almost always in front of MPEG audio (MP3).
    case id3
    /// MPEG audio frames (MP3, MP2) without a tag: an 11-bit frame sync and a valid layer.
    case mpegAudio = "mpeg-audio"
    /// AAC in ADTS frames (a 12-bit sync, layer 0).
    case aac
    /// ISO base media (MP4, M4A, M4V, MOV): a `ftyp` (or `moov`, `mdat`, `free`, `wide`) box first.
    case mp4
    /// Ogg (Vorbis, Opus, Theora): `OggS`.
    case ogg
    /// FLAC: `fLaC`.
    case flac
    /// Matroska or WebM: the EBML magic `1A 45 DF A3`.
    case matroska
    /// WAV: `RIFF` … `WAVE`.
    case wav
}

/// A document where media was expected: what an error page, an API answer or a captive portal sends.
public enum DocumentKind: String, Sendable, Hashable, Codable {
    case html
    case xml
    case json
    case text
    /// An HLS playlist (`#EXTM3U`, `application/vnd.apple.mpegurl`): the list of an episode's segments, not the
    /// episode. podfresh does not assemble HLS episodes, and never saves the playlist as the episode.
    case playlist
}

/// What the first bytes of a media body, or its `Content-Type`, say it is.
public enum MediaSniffing {
    /// The bytes looked at: enough for every signature and for telling a document from binary data.
    public static let sampleSize = 64

    /// The container `bytes` (the body's first bytes) start with, or nil when none is recognised.
    public static func container(_ bytes: some Collection<UInt8>) -> MediaContainer? {
        let b = Array(bytes.prefix(sampleSize))
        func at(_ offset: Int, _ text: String) -> Bool {
            let pattern = Array(text.utf8)
            return b.count >= offset + pattern.count && Array(b[offset..<offset + pattern.count]) == pattern
        }
        if at(0, "ID3") { return .id3 }
        if at(0, "OggS") { return .ogg }
        if at(0, "fLaC") { return .flac }
        if at(0, "RIFF") && at(8, "WAVE") { return .wav }
        if b.count >= 4 && b[0] == 0x1A && b[1] == 0x45 && b[2] == 0xDF && b[3] == 0xA3 { return .matroska }
        if ["ftyp", "moov", "mdat", "free", "wide", "skip"].contains(where: { at(4, $0) }) { return .mp4 }
        if b.count >= 2 && b[0] == 0xFF {
            if b[1] & 0xF6 == 0xF0 { return .aac }
            if b[1] & 0xE0 == 0xE0 && (b[1] >> 1) & 0x03 != 0 && (b.count < 3 || b[2] >> 4 != 0x0F) {
                return .mpegAudio
            }
        }
        return nil
    }

    /// The kind of document `bytes` (the body's first bytes) are, when they are text that opens like markup or JSON;
    /// nil for anything else (binary data, or text that is not plainly a document).
    public static func document(_ bytes: some Collection<UInt8>) -> DocumentKind? {
        var sample = Array(bytes.prefix(sampleSize))
        if sample.starts(with: [0xEF, 0xBB, 0xBF]) { sample.removeFirst(3) }
        // Text only: a control byte other than whitespace means binary data that happens to start with `<` or `{`.
        guard !sample.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D || $0 == 0x7F }) else {
            return nil
        }
        let text = sample.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        guard let first = text.first else { return nil }
        let lowered = String(decoding: text, as: UTF8.self).lowercased()
        if lowered.hasPrefix("#extm3u") { return .playlist }
        switch first {
        case UInt8(ascii: "<"):
            if ["<!doctype html", "<html", "<head", "<body", "<title", "<meta", "<p>", "<h1", "<div"].contains(
                where: lowered.hasPrefix)
            {
                return .html
            }
            guard let second = text.dropFirst().first else { return nil }
            let isLetter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(second | 0x20)
            return isLetter || second == UInt8(ascii: "?") || second == UInt8(ascii: "!") ? .xml : nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let next = text.dropFirst().first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D })
            guard let next else { return text.count < sampleSize ? .json : nil }
            return "\"{}[]-0123456789tfn".utf8.contains(next) ? .json : nil
        default:
            return nil
        }
    }

    /// The kind of document a `Content-Type` names (`text/*`, JSON, XML, problem+json, XHTML, an HLS playlist), or nil
    /// for anything else.
    public static func document(contentType: String?) -> DocumentKind? {
        guard let type = contentType.map(mediaType), !type.isEmpty else { return nil }
        if ["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"].contains(type)
        {
            return .playlist
        }
        if type == "text/html" || type == "application/xhtml+xml" { return .html }
        if type == "application/json" || type.hasSuffix("+json") || type == "text/json" { return .json }
        if type == "application/xml" || type == "text/xml" || type.hasSuffix("+xml") { return .xml }
        if type.hasPrefix("text/") { return .text }
        return nil
    }

    /// The media type of a `Content-Type` value, lower-cased, without parameters.
    static func mediaType(_ value: String) -> String {
        String(value.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
            .lowercased()
    }
}
