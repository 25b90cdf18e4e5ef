/// ID3v2 tags at the front of an MP3 (https://id3.org/id3v2.4.0-structure, https://id3.org/id3v2.4.0-frames): read
/// (v2.3 and v2.4; a v2.2 tag's frames are dropped, its 3-letter frames having no safe v2.4 form) and written as
/// v2.4 with UTF-8 text. An ID3v1 tag at the end of the file is never touched: it lies in what follows the v2 tag.
public enum ID3v2 {
    /// One frame as v2.4 lays it out: its id, its two flag bytes and its body.
    public struct Frame: Sendable, Hashable {
        public var id: String
        public var flags: [UInt8]
        public var body: [UInt8]

        public init(id: String, flags: [UInt8] = [0, 0], body: [UInt8]) {
            self.id = id
            self.flags = flags
            self.body = body
        }

        /// The frame's text, for text frames (`T…` but `TXXX`) and `COMM` (its text after the description);
        /// nil for other frames or a body that does not decode.
        public var text: String? {
            guard let encoding = body.first else { return nil }
            var rest = Array(body.dropFirst())
            if id == "COMM" {
                guard rest.count >= 3 else { return nil }
                rest.removeFirst(3)
                guard let end = ID3v2.terminator(in: rest, encoding: encoding) else { return nil }
                rest = Array(rest[(end + (encoding == 1 || encoding == 2 ? 2 : 1))...])
            } else if id == "WXXX" {
                guard let end = ID3v2.terminator(in: rest, encoding: encoding) else { return nil }
                let url = rest[(end + (encoding == 1 || encoding == 2 ? 2 : 1))...]
                return String(decoding: url, as: UTF8.self)
            } else if id.hasPrefix("W") {
                return String(decoding: body, as: UTF8.self)
            } else if !id.hasPrefix("T") || id == "TXXX" {
                return nil
            }
            return ID3v2.decode(rest, encoding: encoding)
        }
    }

    /// The ids of v2.3 frames that v2.4 replaced with TDRC and others: dropped when a v2.3 tag is merged.
    static let onlyInV23: Set<String> = ["TYER", "TDAT", "TIME", "TRDA", "TORY", "TSIZ", "EQUA", "RVAD", "IPLS"]

    /// The length of the ID3v2 tag whose first ten bytes are `header` (header, body and v2.4 footer), or nil when
    /// `header` does not start one.
    public static func tagLength(header: some Collection<UInt8>) -> Int? {
        let h = Array(header.prefix(10))
        guard h.count == 10, h[0] == 0x49, h[1] == 0x44, h[2] == 0x33, h[3] != 0xFF, h[4] != 0xFF,
            h[6] < 0x80, h[7] < 0x80, h[8] < 0x80, h[9] < 0x80
        else { return nil }
        let footer = h[3] == 4 && h[5] & 0x10 != 0 ? 10 : 0
        return 10 + syncsafe(h[6...9]) + footer
    }

    /// The frames of one whole tag (`tag`: header included), as v2.4 frames.
    /// - Throws: ``TagWriteError`` `.malformed` when a frame runs past the tag.
    public static func frames(of tag: [UInt8], path: String) throws(TagWriteError) -> [Frame] {
        guard let length = tagLength(header: tag), length <= tag.count else {
            throw TagWriteError(.malformed(path: path, detail: "the ID3v2 tag runs past the end of the file"))
        }
        let version = tag[3]
        let flags = tag[5]
        guard version == 3 || version == 4 else { return [] }
        var body = Array(tag[10..<(10 + syncsafe(tag[6...9]))])
        // A v2.3 tag unsynchronised as a whole: 0xFF 0x00 stands for 0xFF.
        if version == 3, flags & 0x80 != 0 { body = resynchronised(body) }
        var index = 0
        if flags & 0x40 != 0, body.count >= 4 {
            // The extended header: its size counts itself in v2.4, not in v2.3.
            let size = version == 4 ? syncsafe(body[0...3]) : 4 + bigEndian(body[0...3])
            index = min(size, body.count)
        }
        var frames: [Frame] = []
        while index + 10 <= body.count {
            let idBytes = body[index..<(index + 4)]
            if idBytes.first == 0 { break }  // padding
            guard idBytes.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }) else {
                throw TagWriteError(.malformed(path: path, detail: "the ID3v2 tag holds a frame with no valid id"))
            }
            let id = String(decoding: idBytes, as: UTF8.self)
            let size =
                version == 4 ? syncsafe(body[(index + 4)...(index + 7)]) : bigEndian(body[(index + 4)...(index + 7)])
            let frameFlags = [body[index + 8], body[index + 9]]
            let start = index + 10
            guard start + size <= body.count else {
                throw TagWriteError(.malformed(path: path, detail: "an ID3v2 frame (\(id)) runs past its tag"))
            }
            let frameBody = Array(body[start..<(start + size)])
            index = start + size
            if version == 4 {
                frames.append(Frame(id: id, flags: frameFlags, body: frameBody))
            } else if frameFlags[1] & 0xE0 == 0, !onlyInV23.contains(id) {
                // A compressed, encrypted or grouped v2.3 frame has no v2.4 form we can write without decoding it.
                frames.append(Frame(id: id, body: frameBody))
            }
        }
        return frames
    }

    /// The frames for `tags`.
    public static func frames(for tags: EpisodeTags) -> [Frame] {
        var frames: [Frame] = []
        func text(_ id: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            frames.append(Frame(id: id, body: [3] + Array(value.utf8)))
        }
        text("TIT2", tags.title)
        text("TALB", tags.album)
        text("TPE1", tags.artist)
        text("TRCK", tags.track.map(String.init))
        text("TPOS", tags.disc.map(String.init))
        text("TDRC", tags.dateText)
        text("TCON", tags.genre)
        if let description = tags.description, !description.isEmpty {
            // UTF-8, language unknown ("XXX"), an empty short description, the text.
            frames.append(Frame(id: "COMM", body: [3] + Array("XXX".utf8) + [0] + Array(description.utf8)))
        }
        if let link = tags.link, !link.isEmpty {
            frames.append(Frame(id: "WXXX", body: [0, 0] + Array(link.utf8)))
        }
        text("TGID", tags.guid)
        if let image = tags.image {
            // Latin-1 description, the MIME type, picture type 3 (front cover), an empty description, the image.
            frames.append(Frame(id: "APIC", body: [0] + Array(image.mimeType.utf8) + [0, 3, 0] + image.bytes))
        }
        return frames
    }

    /// The frames to write: `ours`, and with `merge` those of `existing` whose ids are not among ours.
    public static func merged(existing: [Frame], ours: [Frame], merge: Bool) -> [Frame] {
        guard merge else { return ours }
        let replaced = Set(ours.map(\.id))
        return existing.filter { !replaced.contains($0.id) } + ours
    }

    /// A whole v2.4 tag of `frames`, with `padding` zero bytes after them.
    public static func render(_ frames: [Frame], padding: Int = 1024) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(frames.reduce(padding) { $0 + 10 + $1.body.count })
        for frame in frames {
            body += Array(frame.id.utf8)
            body += syncsafeBytes(frame.body.count)
            body += frame.flags.count == 2 ? frame.flags : [0, 0]
            body += frame.body
        }
        body += [UInt8](repeating: 0, count: padding)
        return [0x49, 0x44, 0x33, 4, 0, 0] + syncsafeBytes(body.count) + body
    }

    // MARK: - Numbers and text

    static func syncsafe(_ bytes: some Collection<UInt8>) -> Int {
        bytes.reduce(0) { ($0 << 7) | Int($1 & 0x7F) }
    }

    static func syncsafeBytes(_ value: Int) -> [UInt8] {
        [UInt8((value >> 21) & 0x7F), UInt8((value >> 14) & 0x7F), UInt8((value >> 7) & 0x7F), UInt8(value & 0x7F)]
    }

    static func bigEndian(_ bytes: some Collection<UInt8>) -> Int {
        bytes.reduce(0) { ($0 << 8) | Int($1) }
    }

    static func resynchronised(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if previous == 0xFF && byte == 0 {
                previous = 0
                continue
            }
            out.append(byte)
            previous = byte
        }
        return out
    }

    /// Where the first string terminator of `encoding` is in `bytes`.
    static func terminator(in bytes: [UInt8], encoding: UInt8) -> Int? {
        if encoding == 1 || encoding == 2 {
            var i = 0
            while i + 1 < bytes.count {
                if bytes[i] == 0 && bytes[i + 1] == 0 { return i }
                i += 2
            }
            return nil
        }
        return bytes.firstIndex(of: 0)
    }

    static func decode(_ bytes: [UInt8], encoding: UInt8) -> String? {
        var bytes = bytes
        switch encoding {
        case 0:
            while bytes.last == 0 { bytes.removeLast() }
            return String(bytes.map { Character(Unicode.Scalar($0)) })
        case 3:
            while bytes.last == 0 { bytes.removeLast() }
            return String(validating: bytes, as: UTF8.self)
        case 1, 2:
            var bigEndian = encoding == 2
            if bytes.starts(with: [0xFF, 0xFE]) {
                bigEndian = false
                bytes.removeFirst(2)
            } else if bytes.starts(with: [0xFE, 0xFF]) {
                bigEndian = true
                bytes.removeFirst(2)
            }
            var units: [UInt16] = []
            var i = 0
            while i + 1 < bytes.count {
                let unit =
                    bigEndian
                    ? UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]) : UInt16(bytes[i + 1]) << 8 | UInt16(bytes[i])
                i += 2
                if unit == 0 { break }
                units.append(unit)
            }
            return String(decoding: units, as: UTF16.self)
        default:
            return nil
        }
    }
}
