import EpisodeDownloads
import Foundation
import TestSupport
import Testing

/// Tags written into verified files: read back with podfresh's own parser and with mutagen, the audio payload
/// byte-identical, the file untouched when anything goes wrong. The media are small files Debian's ffmpeg encoded
/// (Fixtures/Media; a fresh encode too, where ffmpeg is installed).
@Suite(.serialized) struct TaggingTests {
    static let media = Bundle.module.url(forResource: "Fixtures/Media", withExtension: nil)!
    static let date = Date(timeIntervalSince1970: 1_765_083_600)  // 2025-12-07T05:00:00Z

    static func tags(image: Bool = true) throws -> EpisodeTags {
        EpisodeTags(
            title: "Ep 12: Tides", album: "Sea Show", artist: "Ann Author", track: 12, disc: 3, date: date,
            description: "Notes about the tides, in plain text.", link: "https://sea.example/ep12",
            guid: "sea-ep-12",
            image: image ? Artwork(bytes: Array(try Data(contentsOf: media.appendingPathComponent("cover.jpg")))) : nil)
    }

    /// A copy of a fixture in a fresh folder.
    static func copy(_ name: String, in folder: TemporaryFolder) throws -> URL {
        let url = URL(fileURLWithPath: folder.path(name))
        try FileManager.default.copyItem(at: media.appendingPathComponent(name), to: url)
        return url
    }

    static func bytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }

    /// The bytes after the ID3v2 tag(s).
    static func mp3Payload(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var start = 0
        while let length = ID3v2.tagLength(header: bytes[start...].prefix(10)) { start += length }
        return bytes[start...]
    }

    /// The contents of every top-level `mdat`.
    static func mdatPayload(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i + 8 <= bytes.count {
            let size = bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
            if Array(bytes[(i + 4)..<(i + 8)]) == Array("mdat".utf8) { out += bytes[(i + 8)..<(i + size)] }
            i += size
        }
        return out
    }

    /// The `moov` box.
    static func moov(_ bytes: [UInt8]) -> [UInt8] {
        var i = 0
        while i + 8 <= bytes.count {
            let size = bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
            if Array(bytes[(i + 4)..<(i + 8)]) == Array("moov".utf8) { return Array(bytes[i..<(i + size)]) }
            i += size
        }
        return []
    }

    // MARK: - MP3

    @Test func anMP3GetsOneID3v24TagItsAudioAndID3v1TagUnchanged() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy("tone.mp3", in: folder)
        let before = try Self.bytes(file)
        #expect(before.starts(with: Array("ID3".utf8) + [3]), "the host wrote an ID3v2.3 tag")

        let result = try MediaTagger.tag(file, with: try Self.tags(), merge: false, expectedSize: Int64(before.count))

        #expect(result == .tagged(.id3v24))
        let after = try Self.bytes(file)
        #expect(Self.mp3Payload(after) == Self.mp3Payload(before), "the MPEG frames and the ID3v1 tag, byte for byte")
        #expect(Array(after.suffix(128).prefix(3)) == Array("TAG".utf8))
        #expect(after[3] == 4, "ID3v2.4")
        let frames = try ID3v2.frames(of: Array(after.prefix(ID3v2.tagLength(header: after)!)), path: file.path)
        func text(_ id: String) -> String? { frames.first { $0.id == id }?.text }
        #expect(text("TIT2") == "Ep 12: Tides")
        #expect(text("TALB") == "Sea Show")
        #expect(text("TPE1") == "Ann Author")
        #expect(text("TRCK") == "12")
        #expect(text("TPOS") == "3")
        #expect(text("TDRC") == "2025-12-07T05:00:00")
        #expect(text("TCON") == "Podcast")
        #expect(text("COMM") == "Notes about the tides, in plain text.")
        #expect(text("WXXX") == "https://sea.example/ep12")
        #expect(text("TGID") == "sea-ep-12")
        #expect(frames.contains { $0.id == "APIC" && $0.body.starts(with: [0] + Array("image/jpeg".utf8) + [0, 3]) })
        #expect(!frames.contains { $0.id == "TENC" }, "replaced: the host's other frames are gone")
        #expect(!FileManager.default.fileExists(atPath: file.path + ".tags.part"))
    }

    @Test func mergeKeepsTheHostsOtherFramesAndReplacesOnlyTheSameOnes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy("tone.mp3", in: folder)
        let before = try Self.bytes(file)

        _ = try MediaTagger.tag(file, with: try Self.tags(image: false), merge: true)

        let after = try Self.bytes(file)
        #expect(Self.mp3Payload(after) == Self.mp3Payload(before))
        let frames = try ID3v2.frames(of: Array(after.prefix(ID3v2.tagLength(header: after)!)), path: file.path)
        #expect(frames.filter { $0.id == "TIT2" }.map(\.text) == ["Ep 12: Tides"], "one title: ours")
        #expect(frames.first { $0.id == "TENC" }?.text == "host-cms", "the host's encoder frame stays")
        #expect(frames.filter { $0.id == "COMM" }.count == 1, "the ad server's comment is replaced")
    }

    @Test func taggingTwiceLeavesOneTagAndTheSamePayload() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy("tone.mp3", in: folder)
        let before = try Self.bytes(file)
        _ = try MediaTagger.tag(file, with: try Self.tags(), merge: false)
        let once = try Self.bytes(file)
        _ = try MediaTagger.tag(file, with: try Self.tags(), merge: true)
        let twice = try Self.bytes(file)
        #expect(once == twice, "the same tags again: the same file")
        #expect(Self.mp3Payload(twice) == Self.mp3Payload(before))
    }

    @Test func anMP3WithoutAnyTagGetsOne() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy("tone.mp3", in: folder)
        // The same MPEG frames with no ID3v2 tag in front.
        let bare = Array(Self.mp3Payload(try Self.bytes(file)))
        try Data(bare).write(to: file)
        #expect(try MediaTagger.tag(file, with: try Self.tags(), merge: false) == .tagged(.id3v24))
        #expect(Array(Self.mp3Payload(try Self.bytes(file))) == bare)
    }

    // MARK: - MP4

    @Test(arguments: ["tone-moov-first.m4a", "tone-moov-last.m4a"])
    func anM4AGetsIlstItemsItsMdatUnchangedAndItsChunkOffsetsRight(name: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy(name, in: folder)
        let before = try Self.bytes(file)

        let result = try MediaTagger.tag(file, with: try Self.tags(), merge: false, expectedSize: Int64(before.count))

        #expect(result == .tagged(.mp4))
        let after = try Self.bytes(file)
        #expect(Self.mdatPayload(after) == Self.mdatPayload(before), "mdat byte for byte")
        let items = try MP4Metadata.items(inMoov: Self.moov(after), path: file.path)
        func text(_ name: String) -> String? { items.first { $0.name == name }?.text }
        #expect(text("©nam") == "Ep 12: Tides")
        #expect(text("©alb") == "Sea Show")
        #expect(text("©ART") == "Ann Author")
        #expect(text("©day") == "2025-12-07T05:00:00")
        #expect(text("©gen") == "Podcast")
        #expect(text("desc") == "Notes about the tides, in plain text.")
        #expect(text("purl") == "https://sea.example/ep12")
        #expect(text("egid") == "sea-ep-12")
        #expect(items.first { $0.name == "trkn" }?.data?.bytes == [0, 0, 0, 12, 0, 0, 0, 0])
        #expect(items.first { $0.name == "disk" }?.data?.bytes == [0, 0, 0, 3, 0, 0])
        #expect(items.first { $0.name == "covr" }?.data?.code == 13)
        #expect(!items.contains { $0.name == "©too" }, "replaced: the host's encoder item is gone")
        // Every chunk offset still points at the same audio: the first chunk's bytes are where stco says.
        let offsetsBefore = try Self.chunkOffsets(Self.moov(before))
        let offsetsAfter = try Self.chunkOffsets(Self.moov(after))
        #expect(offsetsBefore.count == offsetsAfter.count && !offsetsAfter.isEmpty)
        for (old, new) in zip(offsetsBefore, offsetsAfter) {
            #expect(Array(after[new..<(new + 16)]) == Array(before[old..<(old + 16)]))
        }
        if name == "tone-moov-first.m4a" {
            #expect(offsetsAfter != offsetsBefore, "moov grew before mdat: the offsets moved")
        } else {
            #expect(offsetsAfter == offsetsBefore)
        }
    }

    @Test func mergeInAnM4AKeepsTheHostsOtherItems() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy("tone-moov-first.m4a", in: folder)
        let host = try MP4Metadata.items(inMoov: Self.moov(try Self.bytes(file)), path: file.path)
        let encoder = try #require(host.first { $0.name == "©too" }?.text, "the host wrote its encoder")
        _ = try MediaTagger.tag(file, with: try Self.tags(image: false), merge: true)
        let items = try MP4Metadata.items(inMoov: Self.moov(try Self.bytes(file)), path: file.path)
        #expect(items.first { $0.name == "©too" }?.text == encoder)
        #expect(items.filter { $0.name == "©nam" }.map(\.text) == ["Ep 12: Tides"])
    }

    /// The `stco` entries of the first track.
    static func chunkOffsets(_ moov: [UInt8]) throws -> [Int] {
        guard let at = moov.indices.first(where: { moov[$0..<min($0 + 4, moov.count)] == ArraySlice("stco".utf8) })
        else { return [] }
        let count = moov[(at + 8)..<(at + 12)].reduce(0) { $0 << 8 | Int($1) }
        return (0..<count).map { k in moov[(at + 12 + 4 * k)..<(at + 16 + 4 * k)].reduce(0) { $0 << 8 | Int($1) } }
    }

    // MARK: - What is left alone

    @Test func anOggFileIsLeftUntouchedAndSaidToTakeNoTags() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = URL(fileURLWithPath: folder.path("ep.ogg"))
        let bytes = Array("OggS".utf8) + [UInt8](repeating: 7, count: 500)
        try Data(bytes).write(to: file)
        #expect(try MediaTagger.tag(file, with: try Self.tags(), merge: false) == .notTaggable(.ogg))
        #expect(try Self.bytes(file) == bytes)
    }

    @Test func aFileOfAnotherSizeThanVerifiedIsNotRewritten() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy("tone.mp3", in: folder)
        let before = try Self.bytes(file)
        #expect(throws: TagWriteError(.changedMeanwhile(path: file.path))) {
            try MediaTagger.tag(file, with: try Self.tags(), merge: false, expectedSize: Int64(before.count + 1))
        }
        #expect(try Self.bytes(file) == before)
    }

    @Test func aTagPartThatIsNotOursStopsTaggingAndIsKept() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy("tone.mp3", in: folder)
        let before = try Self.bytes(file)
        let stranger = file.path + ".tags.part"
        try Data("someone's".utf8).write(to: URL(fileURLWithPath: stranger))
        #expect(throws: TagWriteError(.partExists(path: stranger))) {
            try MediaTagger.tag(file, with: try Self.tags(), merge: false)
        }
        #expect(try Self.bytes(file) == before)
        #expect(try String(contentsOfFile: stranger, encoding: .utf8) == "someone's")
    }

    @Test func aTruncatedMP4IsRefusedAndLeftAsItWas() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy("tone-moov-last.m4a", in: folder)
        let cut = Array(try Self.bytes(file).dropLast(100))
        try Data(cut).write(to: file)
        #expect {
            try MediaTagger.tag(file, with: try Self.tags(), merge: false)
        } throws: { error in
            guard case .malformed = (error as? TagWriteError)?.cause else { return false }
            return true
        }
        #expect(try Self.bytes(file) == cut)
        #expect(!FileManager.default.fileExists(atPath: file.path + ".tags.part"))
    }

    // MARK: - Read back by mutagen

    @Test(
        .enabled("needs mutagen from PyPI in a venv (Scripts/tag-test-venv.sh); PyPI could not be reached") {
            await IndependentTagReader.available()
        },
        arguments: ["tone.mp3", "tone-moov-first.m4a", "tone-moov-last.m4a"])
    func mutagenReadsEveryTagBackAndTheAudioHashIsUnchanged(name: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.copy(name, in: folder)
        let before = try await IndependentTagReader.read(file.path)

        _ = try MediaTagger.tag(file, with: try Self.tags(), merge: false)

        let after = try await IndependentTagReader.read(file.path)
        #expect(after.payloadSHA256 != nil)
        #expect(after.payloadSHA256 == before.payloadSHA256, "the audio payload's SHA-256")
        if name.hasSuffix(".mp3") {
            #expect((after.json["version"] as? [any Sendable])?.map { "\($0)" } == ["2.0", "4.0", "0.0"])
            #expect(after.text("TIT2") == "Ep 12: Tides")
            #expect(after.text("TALB") == "Sea Show")
            #expect(after.text("TPE1") == "Ann Author")
            #expect(after.text("TRCK") == "12")
            #expect(after.text("TPOS") == "3")
            #expect(after.text("TDRC") == "2025-12-07 05:00:00")
            #expect(after.text("TCON") == "Podcast")
            #expect(after.text("TGID") == "sea-ep-12")
            #expect(after.text("WXXX:") == "https://sea.example/ep12")
            let comment = after.tags["COMM::XXX"] as? [String: any Sendable]
            #expect((comment?["text"] as? [any Sendable])?.first as? String == "Notes about the tides, in plain text.")
            let cover = after.tags["APIC:"] as? [String: any Sendable]
            #expect(cover?["mime"] as? String == "image/jpeg")
            #expect(cover?["type"] as? Double == 3)
            #expect(after.json["id3v1"] as? Double == 1, "the ID3v1 tag at the end is still there")
        } else {
            #expect(after.text("©nam") == "Ep 12: Tides")
            #expect(after.text("©alb") == "Sea Show")
            #expect(after.text("©ART") == "Ann Author")
            #expect(after.text("©day") == "2025-12-07T05:00:00")
            #expect(after.text("©gen") == "Podcast")
            #expect(after.text("desc") == "Notes about the tides, in plain text.")
            #expect(after.text("purl") == "https://sea.example/ep12")
            #expect(after.text("egid") == "sea-ep-12")
            #expect("\(after.tags["trkn"] ?? "")" == "\([[12.0, 0.0]])")
            #expect("\(after.tags["disk"] ?? "")" == "\([[3.0, 0.0]])")
            let cover = (after.tags["covr"] as? [any Sendable])?.first as? [String: any Sendable]
            #expect(cover?["format"] as? Double == 13, "JPEG")
            let duration = after.json["duration"] as? Double ?? 0
            #expect(abs(duration - 2) < 0.2, "mutagen still finds the audio: \(duration)s")
        }
    }
}

/// A folder in the temporary directory, removed by ``remove()``.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("podfresh-tags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: url) }
}
