import EpisodeDownloads
import Foundation
import Testing

@Suite("FileNaming: names from feed text stay safe and inside the folder")
struct FileNamingTests {
    let directory = URL(fileURLWithPath: "/srv/podcasts")
    let date = Date(timeIntervalSince1970: 1_731_387_600)  // 2024-11-12 05:00 UTC

    @Test("the default template gives feed/date title.ext")
    func defaultTemplate() throws {
        let values = FileNaming.Values(
            feed: "Tech Talk", title: "Episode 1: Hello", date: date,
            url: URL(string: "https://cdn.example.com/a/b/ep1.MP3?x=1"), type: "audio/mpeg")
        let file = try FileNaming().file(for: values, in: directory)
        #expect(file.path == "/srv/podcasts/Tech Talk/2024-11-12 Episode 1- Hello.mp3")
    }

    @Test("the extension comes from the type when the URL has none")
    func extensionFromType() {
        #expect(FileNaming.fileExtension(url: URL(string: "https://x.example/track/123"), type: "audio/mp4") == "m4a")
        #expect(FileNaming.fileExtension(url: URL(string: "https://x.example/e.opus"), type: "audio/mpeg") == "opus")
        #expect(FileNaming.fileExtension(url: nil, type: nil) == "bin")
    }

    @Test("path separators in feed text add no folder")
    func separators() throws {
        let values = FileNaming.Values(feed: "a/b\\c", title: "x/y/z", date: date, type: "audio/mpeg")
        let components = FileNaming().components(for: values)
        #expect(components == ["a-b-c", "2024-11-12 x-y-z.mp3"])
    }

    @Test("'..' in feed text cannot climb out", arguments: ["..", "../../etc/passwd", "../..", "...", "./."])
    func dotDot(title: String) throws {
        let naming = FileNaming(template: "{feed}/{title}.{ext}")
        let values = FileNaming.Values(feed: title, title: title, type: "audio/mpeg")
        let components = naming.components(for: values)
        for component in components {
            #expect(component != "." && component != ".." && !component.contains("/"))
            #expect(!component.hasPrefix("."))
        }
        let file = try naming.file(for: values, in: directory)
        #expect(file.path.hasPrefix("/srv/podcasts/"))
        #expect(FileNaming.isInside(file, directory: directory))
    }

    @Test("control and bidi characters are dropped")
    func controlAndBidi() {
        let name = FileNaming.sanitizeComponent("evil\u{202E}3pm.exe\u{0007}\u{0000}\u{200F}\u{2066}x\ny")
        #expect(name == "evil3pm.exex y")
    }

    @Test("reserved device names are renamed", arguments: ["CON", "nul", "COM1.mp3", "lpt9", "Aux.txt"])
    func reservedNames(name: String) {
        let safe = FileNaming.sanitizeComponent(name)
        #expect(safe == "_" + name)
    }

    @Test("leading dots and spaces go; an empty name becomes _")
    func leadingDots() {
        #expect(FileNaming.sanitizeComponent("  .hidden") == "hidden")
        #expect(FileNaming.sanitizeComponent("   ") == "_")
        #expect(FileNaming.sanitizeComponent("\u{202E}") == "_")
    }

    @Test("the length cap counts UTF-8 bytes and never splits a character, keeping the extension")
    func lengthCap() {
        let title = String(repeating: "日本語🎙️é", count: 60) + ".mp3"
        let name = FileNaming.sanitizeComponent(title, maxBytes: 200)
        #expect(name.utf8.count <= 200)
        #expect(name.hasSuffix(".mp3"))
        #expect(title.hasPrefix(String(name.dropLast(4))))
        // Every character survived whole: the result is a prefix of whole characters of the original.
        #expect(String(decoding: Array(name.utf8), as: UTF8.self) == name)
        let naming = FileNaming(template: "{title}.{ext}", maxComponentBytes: 50)
        let file = naming.components(
            for: .init(feed: "f", title: String(repeating: "ü", count: 100), type: "audio/mpeg"))
        #expect(file.count == 1)
        #expect(file[0].utf8.count <= 50)
        #expect(file[0].hasSuffix(".mp3"))
    }

    @Test("two episodes that map to one name get distinct names")
    func collisions() {
        let taken: Set<String> = ["/d/ep.mp3", "/d/ep (2).mp3"]
        let file = FileNaming.distinct(URL(fileURLWithPath: "/d/ep.mp3")) { taken.contains($0.path) }
        #expect(file.path == "/d/ep (3).mp3")
        let free = FileNaming.distinct(URL(fileURLWithPath: "/d/new.mp3")) { taken.contains($0.path) }
        #expect(free.path == "/d/new.mp3")
        let noExtension = FileNaming.distinct(URL(fileURLWithPath: "/d/ep")) { $0.path == "/d/ep" }
        #expect(noExtension.path == "/d/ep (2)")
    }

    @Test("collisions on disk: a file or its .part takes the name")
    func collisionsOnDisk() async throws {
        try await withTemporaryDirectory { directory in
            let first = directory.appendingPathComponent("ep.mp3")
            try Data([1]).write(to: first)
            try Data([1]).write(to: directory.appendingPathComponent("ep (2).mp3.part"))
            #expect(FileNaming.distinct(first).lastPathComponent == "ep (3).mp3")
        }
    }

    @Test("a guid hash tells apart episodes with one title")
    func guidHash() throws {
        let naming = FileNaming(template: "{feed}/{title} {guid}.{ext}")
        let a = naming.components(for: .init(feed: "f", title: "Bonus", guid: "guid-1"))
        let b = naming.components(for: .init(feed: "f", title: "Bonus", guid: "guid-2"))
        #expect(a != b)
        #expect(a[1].utf8.count == "Bonus 12345678.bin".utf8.count)
    }

    @Test("the path stays inside the folder, and a path outside is recognised")
    func staysInside() throws {
        let values = FileNaming.Values(feed: "/", title: "/../../../../root/.ssh/authorized_keys", type: "audio/mpeg")
        let file = try FileNaming().file(for: values, in: directory)
        #expect(FileNaming.isInside(file, directory: directory))
        #expect(file.deletingLastPathComponent().deletingLastPathComponent().path == directory.path)
        #expect(!FileNaming.isInside(URL(fileURLWithPath: "/srv/podcasts/../x.mp3"), directory: directory))
        #expect(!FileNaming.isInside(URL(fileURLWithPath: "/srv/podcasts-other/x.mp3"), directory: directory))
        #expect(!FileNaming.isInside(directory, directory: directory))
    }
}

@Suite("FreeSpace: refuse a download that would not fit")
struct FreeSpaceTests {
    let directory = URL(fileURLWithPath: "/srv/podcasts")

    @Test("the check refuses with needed and free named, and passes when it fits")
    func injectedNumbers() throws {
        #expect(throws: Never.self) {
            try FreeSpace.check(needed: 50_000_000, available: 200_000_000, directory: directory)
        }
        do {
            try FreeSpace.check(needed: 2_000_000_000, available: 2_080_000_000, directory: directory)
            Issue.record("2 GB fitted into 2.08 GB with a 100 MB margin")
        } catch {
            #expect(error.kind == .notEnoughSpace)
            #expect(
                error.cause
                    == .notEnoughSpace(
                        directory: directory.path, needed: 2_000_000_000, required: 2_100_000_000,
                        available: 2_080_000_000))
        }
        // The margin scales with the file: 10%, at least 1 MiB, at most 100 MB.
        #expect(FreeSpace.Margin.standard.bytes(for: 1_000) == 1 << 20)
        #expect(FreeSpace.Margin.standard.bytes(for: 50_000_000) == 5_000_000)
        #expect(FreeSpace.Margin.standard.bytes(for: 10_000_000_000) == 100_000_000)
        // A 1 MiB episode fits on a disk with 20 MiB free (the fixed 100 MB margin refused it)…
        #expect(throws: Never.self) {
            try FreeSpace.check(needed: 1 << 20, available: 20 << 20, directory: directory)
        }
        // …but not where it would leave less than its margin.
        #expect(throws: DownloadError.self) {
            try FreeSpace.check(needed: 1 << 20, available: (2 << 20) - 1, directory: directory)
        }
        #expect(throws: Never.self) {
            try FreeSpace.check(needed: 0, available: 0, directory: directory)
        }
    }

    @Test("statvfs reports free bytes, also for a folder not created yet")
    func realStatvfs() async throws {
        try await withTemporaryDirectory { directory in
            let free = try FreeSpace.availableBytes(at: directory)
            #expect(free > 0)
            let later = try FreeSpace.availableBytes(at: directory.appendingPathComponent("not/yet"))
            #expect(later > 0)
            #expect(throws: Never.self) { try FreeSpace.check(needed: 1, margin: .none, directory: directory) }
        }
    }
}
