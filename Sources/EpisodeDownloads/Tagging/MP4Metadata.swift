/// iTunes-style metadata in an MP4's `moov/udta/meta/ilst` (as mutagen, ffmpeg, AtomicParsley and Apple write it),
/// and the chunk offsets (`stco`, `co64`) a larger `moov` moves when it comes before the media data.
///
/// Works on the `moov` box in memory (its tables are small beside `mdat`, which is never read here).
public enum MP4Metadata {
    /// One box: its four-byte type and where it lies in a buffer (`start` at its size field, `end` past it).
    struct Box {
        var type: [UInt8]
        var start: Int
        var headerLength: Int
        var end: Int
        var payloadStart: Int { start + headerLength }
    }

    /// One `ilst` item: its type (`©nam`, `trkn`, `covr`, …) and its whole box.
    public struct Item: Sendable, Hashable {
        public var type: [UInt8]
        public var box: [UInt8]

        /// The item's first `data` value: its type code (1 UTF-8, 0 implicit, 13 JPEG, 14 PNG, 21 integer) and bytes.
        public var data: (code: UInt8, bytes: [UInt8])? {
            guard let children = try? MP4Metadata.boxes(in: box, from: 8, to: box.count, path: ""),
                let data = children.first(where: { $0.type == Array("data".utf8) }),
                data.end - data.payloadStart >= 8
            else { return nil }
            return (box[data.payloadStart + 3], Array(box[(data.payloadStart + 8)..<data.end]))
        }

        /// The item's text, for a UTF-8 item.
        public var text: String? {
            guard let data, data.code == 1 else { return nil }
            return String(decoding: data.bytes, as: UTF8.self)
        }

        /// The item's type as text (`©nam` for `A9 6E 61 6D`).
        public var name: String { MP4Metadata.name(type) }
    }

    static let copyright: UInt8 = 0xA9

    /// The boxes between `from` and `to` in `bytes`.
    /// - Throws: ``TagWriteError`` `.malformed` when one runs past `to`.
    static func boxes(in bytes: [UInt8], from: Int, to: Int, path: String) throws(TagWriteError) -> [Box] {
        var result: [Box] = []
        var index = from
        while index + 8 <= to {
            var size = ID3v2.bigEndian(bytes[index..<(index + 4)])
            var header = 8
            if size == 1 {
                guard index + 16 <= to else { throw malformed(path, "a box's 64-bit size runs past its parent") }
                size = ID3v2.bigEndian(bytes[(index + 8)..<(index + 16)])
                header = 16
            } else if size == 0 {
                size = to - index
            }
            guard size >= header, index + size <= to else {
                throw malformed(path, "a box (\(name(Array(bytes[(index + 4)..<(index + 8)])))) runs past its parent")
            }
            result.append(
                Box(
                    type: Array(bytes[(index + 4)..<(index + 8)]), start: index, headerLength: header, end: index + size
                ))
            index += size
        }
        return result
    }

    static func malformed(_ path: String, _ detail: String) -> TagWriteError {
        TagWriteError(.malformed(path: path, detail: detail))
    }

    static func name(_ type: [UInt8]) -> String {
        String(type.map { Character(Unicode.Scalar($0)) })
    }

    /// A box of `type` around `payload`.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        box(Array(type.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }), payload)
    }

    static func box(_ type: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        let size = payload.count + 8
        return [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + type + payload
    }

    /// An `ilst` item holding one `data` box of `code`.
    static func item(_ type: [UInt8], code: UInt8, _ value: [UInt8]) -> Item {
        Item(type: type, box: box(type, box("data", [0, 0, 0, code, 0, 0, 0, 0] + value)))
    }

    /// The items for `tags`.
    public static func items(for tags: EpisodeTags) -> [Item] {
        var items: [Item] = []
        func text(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            let type = name.hasPrefix("©") ? [copyright] + Array(name.dropFirst().utf8) : Array(name.utf8)
            items.append(item(type, code: 1, Array(value.utf8)))
        }
        func pair(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        text("©nam", tags.title)
        text("©alb", tags.album)
        text("©ART", tags.artist)
        if let track = tags.track, (0...0xFFFF).contains(track) {
            items.append(item(Array("trkn".utf8), code: 0, [0, 0] + pair(track) + [0, 0, 0, 0]))
        }
        if let disc = tags.disc, (0...0xFFFF).contains(disc) {
            items.append(item(Array("disk".utf8), code: 0, [0, 0] + pair(disc) + [0, 0]))
        }
        text("©day", tags.dateText)
        text("©gen", tags.genre)
        text("desc", tags.description)
        text("purl", tags.link)
        text("egid", tags.guid)
        items.append(item(Array("pcst".utf8), code: 21, [1]))
        if let image = tags.image {
            items.append(item(Array("covr".utf8), code: image.mimeType == "image/png" ? 14 : 13, image.bytes))
        }
        return items
    }

    /// The items of `moov`'s `udta/meta/ilst`, in order; empty when it has none.
    public static func items(inMoov moov: [UInt8], path: String) throws(TagWriteError) -> [Item] {
        guard let ilst = try ilstBox(inMoov: moov, path: path) else { return [] }
        return try boxes(in: moov, from: ilst.payloadStart, to: ilst.end, path: path).map {
            Item(type: $0.type, box: Array(moov[$0.start..<$0.end]))
        }
    }

    private static func ilstBox(inMoov moov: [UInt8], path: String) throws(TagWriteError) -> Box? {
        guard let udta = try boxes(in: moov, from: 8, to: moov.count, path: path).first(where: { is_($0, "udta") }),
            let meta = try boxes(in: moov, from: udta.payloadStart, to: udta.end, path: path).first(where: {
                is_($0, "meta")
            })
        else { return nil }
        let first = metaChildrenStart(moov, meta)
        return try boxes(in: moov, from: first, to: meta.end, path: path).first(where: { is_($0, "ilst") })
    }

    static func is_(_ box: Box, _ type: String) -> Bool { box.type == Array(type.utf8) }

    /// Where a `meta` box's children begin: after its version and flags (ISO), or at once (QuickTime's form, whose
    /// first child, `hdlr`, starts where the version would be).
    static func metaChildrenStart(_ bytes: [UInt8], _ meta: Box) -> Int {
        let p = meta.payloadStart
        if meta.end - p >= 8, Array(bytes[(p + 4)..<(p + 8)]) == Array("hdlr".utf8),
            ID3v2.bigEndian(bytes[p..<(p + 4)]) != 0
        {
            return p
        }
        return p + 4
    }

    /// `moov` with its `ilst` made of `ours` (and, with `merge`, the existing items whose types are not among ours),
    /// and, when `shift` is not zero, every chunk offset at or past `shiftFrom` moved by `shift`.
    ///
    /// - Returns: The new `moov`; its length minus the old one's is the shift the caller must pass in a second call
    ///   when the media data follows `moov` (the tags first, then the offsets; a shift does not change the length).
    ///
    /// A fragmented MP4 (`mvex` in `moov`) is rewritten only when `fragmentsRelative`: the caller checked that every
    /// fragment's data offsets are relative to its own `moof`, which a larger `moov` does not move.
    public static func rewrite(
        moov: [UInt8], ours: [Item], merge: Bool, shift: Int, shiftFrom: Int, path: String,
        fragmentsRelative: Bool = false
    ) throws(TagWriteError) -> [UInt8] {
        var moov = moov
        if shift != 0 { try shiftChunkOffsets(&moov, from: 8, to: moov.count, by: shift, at: shiftFrom, path: path) }
        let children = try boxes(in: moov, from: 8, to: moov.count, path: path)
        if children.contains(where: { is_($0, "mvex") }) && !fragmentsRelative {
            throw TagWriteError(
                .unsupportedLayout(
                    path: path, detail: "a fragmented MP4 whose fragments give absolute file offsets"))
        }
        var payload: [UInt8] = []
        var wroteUdta = false
        for child in children {
            if is_(child, "udta") {
                payload += try rewriteUdta(moov, child, ours: ours, merge: merge, path: path)
                wroteUdta = true
            } else {
                payload += moov[child.start..<child.end]
            }
        }
        if !wroteUdta { payload += box("udta", newMeta(existing: [], ours: ours, merge: false)) }
        return box("moov", payload)
    }

    private static func rewriteUdta(
        _ moov: [UInt8], _ udta: Box, ours: [Item], merge: Bool, path: String
    ) throws(TagWriteError) -> [UInt8] {
        var payload: [UInt8] = []
        var wroteMeta = false
        for child in try boxes(in: moov, from: udta.payloadStart, to: udta.end, path: path) {
            guard is_(child, "meta"), !wroteMeta else {
                payload += moov[child.start..<child.end]
                continue
            }
            wroteMeta = true
            let start = metaChildrenStart(moov, child)
            var metaPayload: [UInt8] = [0, 0, 0, 0]
            var wroteIlst = false
            var hasHandler = false
            for inner in try boxes(in: moov, from: start, to: child.end, path: path) {
                if is_(inner, "hdlr") { hasHandler = true }
                if is_(inner, "ilst") {
                    let existing = try boxes(in: moov, from: inner.payloadStart, to: inner.end, path: path).map {
                        Item(type: $0.type, box: Array(moov[$0.start..<$0.end]))
                    }
                    metaPayload += ilst(existing: existing, ours: ours, merge: merge)
                    wroteIlst = true
                } else {
                    metaPayload += moov[inner.start..<inner.end]
                }
            }
            if !hasHandler { metaPayload.insert(contentsOf: handler, at: 4) }
            if !wroteIlst { metaPayload += ilst(existing: [], ours: ours, merge: false) }
            payload += box("meta", metaPayload)
        }
        if !wroteMeta { payload += newMeta(existing: [], ours: ours, merge: false) }
        return box("udta", payload)
    }

    /// `hdlr` naming the iTunes metadata handler (`mdir`, `appl`), as every reader expects before `ilst`.
    static var handler: [UInt8] {
        box("hdlr", [0, 0, 0, 0, 0, 0, 0, 0] + Array("mdirappl".utf8) + [UInt8](repeating: 0, count: 9))
    }

    static func newMeta(existing: [Item], ours: [Item], merge: Bool) -> [UInt8] {
        box("meta", [0, 0, 0, 0] + handler + ilst(existing: existing, ours: ours, merge: merge))
    }

    static func ilst(existing: [Item], ours: [Item], merge: Bool) -> [UInt8] {
        let replaced = Set(ours.map(\.type))
        let kept = merge ? existing.filter { !replaced.contains($0.type) } : []
        return box("ilst", (kept + ours).flatMap(\.box))
    }

    /// True when the `moof` box `bytes` gives its data only relative to itself: no `tfhd` with an explicit base data
    /// offset (flag 0x000001).
    static func fragmentIsRelative(_ moof: [UInt8], path: String) throws(TagWriteError) -> Bool {
        for traf in try boxes(in: moof, from: 8, to: moof.count, path: path) where is_(traf, "traf") {
            for tfhd in try boxes(in: moof, from: traf.payloadStart, to: traf.end, path: path) where is_(tfhd, "tfhd") {
                guard tfhd.end - tfhd.payloadStart >= 4 else { throw malformed(path, "a tfhd box is cut short") }
                if moof[tfhd.payloadStart + 3] & 0x01 != 0 { return false }
            }
        }
        return true
    }

    /// Adds `shift` to every `stco`/`co64` entry at or past `at`, in the tracks' sample tables under `bytes[from..<to]`.
    static func shiftChunkOffsets(
        _ bytes: inout [UInt8], from: Int, to: Int, by shift: Int, at: Int, path: String
    ) throws(TagWriteError) {
        for child in try boxes(in: bytes, from: from, to: to, path: path) {
            if ["trak", "mdia", "minf", "stbl"].contains(where: { is_(child, $0) }) {
                try shiftChunkOffsets(&bytes, from: child.payloadStart, to: child.end, by: shift, at: at, path: path)
            } else if is_(child, "stco") || is_(child, "co64") {
                let wide = is_(child, "co64")
                let width = wide ? 8 : 4
                let p = child.payloadStart
                guard child.end - p >= 8 else { throw malformed(path, "a chunk offset table is cut short") }
                let count = ID3v2.bigEndian(bytes[(p + 4)..<(p + 8)])
                guard count <= (child.end - p - 8) / width else {
                    throw malformed(path, "a chunk offset table holds more entries than it has room for")
                }
                for entry in 0..<count {
                    let position = p + 8 + entry * width
                    let offset = ID3v2.bigEndian(bytes[position..<(position + width)])
                    guard offset >= at else { continue }
                    let moved = offset + shift
                    guard moved >= 0, wide || moved <= Int(UInt32.max) else {
                        throw TagWriteError(
                            .unsupportedLayout(path: path, detail: "its chunk offsets would pass 4 GB (stco)"))
                    }
                    for k in 0..<width {
                        bytes[position + k] = UInt8(truncatingIfNeeded: moved >> (8 * (width - 1 - k)))
                    }
                }
            }
        }
    }
}
