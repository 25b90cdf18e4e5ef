import FeedParsing
public import Foundation

/// Turns a file-name template and an episode's plain values into a path inside the download directory.
///
/// The template's own `/` separate folders; a value from the feed never does. Each value is cleaned before it goes in
/// (path separators, control and bidirectional characters dropped, `..` defused), and each rendered component after
/// (no leading dots or spaces, no reserved device names, at most ``maxComponentBytes`` of UTF-8, cut between
/// characters). The result is checked to lie inside the directory whatever the feed says.
///
/// Placeholders: `{feed}`, `{title}`, `{date}` (yyyy-mm-dd, UTC), `{ext}` (from the URL's path, else the type),
/// `{guid}` (8 hex digits of a hash of the episode's identity, to tell apart episodes with one title).
public struct FileNaming: Sendable, Equatable {
    /// The values an episode brings to a template.
    public struct Values: Sendable, Equatable {
        /// The feed's title.
        public var feed: String
        /// The episode's title.
        public var title: String
        /// The episode's publication date.
        public var date: Date?
        /// The enclosure URL (for `{ext}`).
        public var url: URL?
        /// The enclosure's announced type (for `{ext}` when the URL has no usable extension).
        public var type: String?
        /// The episode's guid or identity key (for `{guid}` and `{key}`, as a short hash).
        public var guid: String?
        /// The episode's season and number (`{season}`, `{episode}`; empty when the feed gives none).
        public var season: Int?
        public var episode: Int?

        /// An episode's values.
        public init(
            feed: String, title: String, date: Date? = nil, url: URL? = nil, type: String? = nil, guid: String? = nil,
            season: Int? = nil, episode: Int? = nil
        ) {
            self.season = season
            self.episode = episode
            self.feed = feed
            self.title = title
            self.date = date
            self.url = url
            self.type = type
            self.guid = guid
        }
    }

    /// The placeholders a template may use; any other `{…}` is kept as written.
    public static let placeholders = ["feed", "title", "date", "ext", "guid", "key", "season", "episode"]

    /// The template, e.g. `{feed}/{date} {title}.{ext}`.
    public var template: String
    /// The most UTF-8 bytes in one path component (file systems allow 255; room is left for ` (2)` and `.part`).
    public var maxComponentBytes: Int

    /// The default template: a folder per feed, files named by date and title.
    public static let defaultTemplate = "{feed}/{date} {title}.{ext}"

    /// A naming scheme.
    public init(template: String = FileNaming.defaultTemplate, maxComponentBytes: Int = 200) {
        self.template = template
        self.maxComponentBytes = max(16, maxComponentBytes)
    }

    /// The path components `values` give, each safe on its own (never empty, `.`, `..`, or containing `/`).
    public func components(for values: Values) -> [String] {
        let rendered =
            template.split(separator: "/", omittingEmptySubsequences: true).map { part in
                render(String(part), values)
            }
        let safe = rendered.map { Self.sanitizeComponent($0, maxBytes: maxComponentBytes) }
        return safe.isEmpty ? [Self.sanitizeComponent(values.title, maxBytes: maxComponentBytes)] : safe
    }

    /// The file for `values` inside `directory`.
    ///
    /// - Throws: ``DownloadError/Kind/io`` if the path would leave `directory` (it cannot, by construction; the
    ///   check is the last line of defence).
    public func file(for values: Values, in directory: URL) throws(DownloadError) -> URL {
        let base = directory.standardizedFileURL
        var file = base
        for component in components(for: values) {
            file.appendPathComponent(component)
        }
        file = file.standardizedFileURL
        guard Self.isInside(file, directory: base) else {
            throw DownloadError(.nameLeavesFolder(file: file.path, folder: base.path))
        }
        return file
    }

    /// True when `file` lies strictly inside `directory`, after resolving `.`/`..` and the symbolic links that exist.
    public static func isInside(_ file: URL, directory: URL) -> Bool {
        let root = directory.standardizedFileURL.resolvingSymlinksInPath().path
        let path = file.standardizedFileURL.resolvingSymlinksInPath().path
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) && path.count > prefix.count
    }

    /// `file` itself when `isTaken` says it is free, else `NAME (2).EXT`, `NAME (3).EXT`, … (the first free one).
    public static func distinct(_ file: URL, isTaken: (URL) -> Bool = FileNaming.defaultIsTaken) -> URL {
        guard isTaken(file) else { return file }
        let directory = file.deletingLastPathComponent()
        let name = file.lastPathComponent
        let ext = file.pathExtension
        let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        var number = 2
        while true {
            let candidate = directory.appendingPathComponent(
                ext.isEmpty ? "\(stem) (\(number))" : "\(stem) (\(number)).\(ext)")
            if !isTaken(candidate) { return candidate }
            number += 1
        }
    }

    /// Taken when the file or its `.part` exists.
    public static func defaultIsTaken(_ file: URL) -> Bool {
        FileManager.default.fileExists(atPath: file.path) || FileManager.default.fileExists(atPath: file.path + ".part")
    }

    // MARK: - Rendering

    private func render(_ part: String, _ values: Values) -> String {
        var result = ""
        var rest = Substring(part)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                result += rest[open...]
                return result
            }
            let name = rest[rest.index(after: open)..<close]
            result += value(String(name), values) ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }

    private func value(_ name: String, _ values: Values) -> String? {
        switch name {
        case "feed": return Self.cleanValue(values.feed)
        case "title": return Self.cleanValue(values.title)
        case "date": return values.date.map(Self.day) ?? "undated"
        case "ext": return Self.fileExtension(url: values.url, type: values.type)
        case "guid", "key": return Self.shortHash(values.guid ?? values.url?.absoluteString ?? values.title)
        case "season": return values.season.map(String.init) ?? ""
        case "episode": return values.episode.map(String.init) ?? ""
        default: return nil
        }
    }

    /// A feed value with path separators, control and bidirectional characters removed and runs of dots shortened,
    /// so that it can neither add a folder nor climb out of one.
    static func cleanValue(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if CharacterRules.isWhitespaceControl(value) || CharacterRules.isLineOrParagraphSeparator(value) {
                scalars.append(" ")
            } else if CharacterRules.isControl(value) || CharacterRules.isBidiControl(value) {
                continue
            } else if scalar == "/" || scalar == "\\" || scalar == ":" {
                scalars.append("-")
            } else if value == 0xFEFF || (0x200B...0x200D).contains(value) {
                continue
            } else {
                scalars.append(scalar)
            }
        }
        var cleaned = String(scalars)
        while cleaned.contains("..") { cleaned = cleaned.replacingOccurrences(of: "..", with: ".") }
        return cleaned.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// Makes one path component safe: cleans it like a value, drops leading dots and spaces and trailing dots and
    /// spaces, renames reserved device names (`CON`, `NUL`, `COM1`, …), caps its UTF-8 length at `maxBytes` without
    /// splitting a character (keeping a short extension), and never returns an empty name.
    public static func sanitizeComponent(_ text: String, maxBytes: Int = 200) -> String {
        var name = Substring(cleanValue(text))
        while let first = name.first, first == "." || first == " " { name = name.dropFirst() }
        while let last = name.last, last == "." || last == " " { name = name.dropLast() }
        var result = String(name)
        if result.isEmpty { result = "_" }
        let stem = result.split(separator: ".", maxSplits: 1).first.map(String.init) ?? result
        if reservedNames.contains(stem.uppercased().trimmingCharacters(in: .whitespaces)) {
            result = "_" + result
        }
        return capped(result, maxBytes: max(8, maxBytes))
    }

    private static let reservedNames: Set<String> = {
        var names: Set<String> = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
        for number in 0...9 {
            names.insert("COM\(number)")
            names.insert("LPT\(number)")
        }
        return names
    }()

    /// `name` cut to at most `maxBytes` of UTF-8 between characters, keeping an extension of up to 16 bytes.
    static func capped(_ name: String, maxBytes: Int) -> String {
        guard name.utf8.count > maxBytes else { return name }
        var suffix = ""
        var stem = Substring(name)
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            let ext = name[dot...]
            if ext.utf8.count <= 16 && ext.utf8.count < maxBytes / 2 {
                suffix = String(ext)
                stem = name[..<dot]
            }
        }
        let budget = maxBytes - suffix.utf8.count
        var kept = ""
        var used = 0
        for character in stem {
            let size = character.utf8.count
            if used + size > budget { break }
            kept.append(character)
            used += size
        }
        while let last = kept.last, last == " " || last == "." { kept.removeLast() }
        return (kept.isEmpty ? "_" : kept) + suffix
    }

    /// The extension for a media file: the URL path's (1–5 letters or digits), else one for the announced type, else
    /// `bin`.
    public static func fileExtension(url: URL?, type: String?) -> String {
        if let ext = url?.pathExtension.lowercased(), (1...5).contains(ext.count),
            ext.unicodeScalars.allSatisfy({ (48...57).contains($0.value) || (97...122).contains($0.value) })
        {
            return ext
        }
        let base = type?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        switch base ?? "" {
        case "audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg": return "mp3"
        case "audio/mp4", "audio/x-m4a", "audio/m4a", "audio/aac", "audio/x-aac": return "m4a"
        case "audio/ogg", "audio/vorbis": return "ogg"
        case "audio/opus": return "opus"
        case "audio/flac", "audio/x-flac": return "flac"
        case "audio/wav", "audio/x-wav", "audio/wave": return "wav"
        case "video/mp4", "video/x-m4v": return "mp4"
        case "video/quicktime": return "mov"
        case "video/webm", "audio/webm": return "webm"
        case "application/pdf": return "pdf"
        default: return "bin"
        }
    }

    /// yyyy-mm-dd in UTC.
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))"
    }

    /// 8 hex digits of FNV-1a over the text's UTF-8: stable across runs and machines.
    static func shortHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash & 0xFFFF_FFFF, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
