import FeedParsing
import Foundation
import Testing

/// Where test inputs live.
enum TestFiles {
    /// The package root (the folder holding Package.swift), found from this file's path.
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// `../shared/corpus/real`, or nil when it is absent.
    static let corpus: URL? = {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/real")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    /// A fixture's bytes.
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(
            Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil), "missing fixture \(name)")
        return Array(try Data(contentsOf: url))
    }

    static var fixtureNames: [String] {
        guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.filter { $0.hasSuffix(".xml") || $0.hasSuffix(".atom") || $0.hasSuffix(".rdf") }.sorted()
    }

    /// One manifest row of the real corpus.
    struct CorpusFile: Sendable, CustomStringConvertible {
        var name: String
        var format: String
        var items: Int
        var quirks: String
        var description: String { name }
    }

    static var corpusFiles: [CorpusFile] {
        guard let corpus,
            let manifest = try? String(contentsOf: corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return [] }
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 9, let items = Int(fields[6]) else { return nil }
            return CorpusFile(name: fields[0], format: fields[5], items: items, quirks: fields[8])
        }
    }

    static func corpusBytes(_ file: CorpusFile) throws -> [UInt8] {
        let corpus = try #require(corpus)
        return Array(try Data(contentsOf: corpus.appendingPathComponent(file.name)))
    }
}

/// Parses bytes split into chunks of `size` bytes.
func parseInChunks(
    _ bytes: [UInt8], size: Int, baseURL: URL? = URL(string: "https://feeds.example.com/feed.xml"),
    charset: String? = nil, options: FeedParserOptions = .init()
) throws -> ParsedFeed {
    let parser = FeedParser(baseURL: baseURL, charset: charset, options: options)
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + size)
        try bytes[start..<end].withUnsafeBytes { try parser.parse($0) }
        start = end
    }
    return try parser.finish()
}

func parse(
    _ text: String, baseURL: URL? = URL(string: "https://feeds.example.com/feed.xml"), charset: String? = nil,
    options: FeedParserOptions = .init()
) throws -> ParsedFeed {
    try FeedParser.parse(Array(text.utf8), baseURL: baseURL, charset: charset, options: options)
}
