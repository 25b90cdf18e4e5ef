public import FeedParsing
import Foundation

/// A feed's download filters (`podfresh set FEED --include/--exclude/--match/--min-duration`): which of its episodes
/// `download` and `refresh --download` fetch, and which files `--keep` and `--delete-played` consider.
///
/// An episode passes when it matches at least one `include` pattern (or there is none), matches no `exclude`
/// pattern, and is not known to be shorter than `minimumDuration` (an episode whose duration the feed does not give
/// passes). Patterns are regular expressions (ICU syntax, as `NSRegularExpression` reads them), matched
/// case-insensitively anywhere in the episode's title, and with ``Field/description`` in its description too.
///
/// Stored as JSON in one text column (``storedText``), so that a new kind of filter needs no schema change.
public struct DownloadFilter: Sendable, Hashable, Codable {
    /// What the patterns are matched against.
    public enum Field: String, Sendable, Hashable, Codable, CaseIterable {
        /// The episode's title only (the default).
        case title
        /// Its title and its description (plain text when the feed gives HTML).
        case description
    }

    /// Patterns of which an episode must match one (none: every episode is included).
    public var include: [String]
    /// Patterns of which an episode must match none.
    public var exclude: [String]
    /// What the patterns are matched against.
    public var match: Field
    /// The shortest episode downloaded, in seconds; nil: any length.
    public var minimumDuration: Int?

    /// - Parameters:
    ///   - include: Patterns of which an episode must match one (empty: any episode).
    ///   - exclude: Patterns of which an episode must match none.
    ///   - match: What the patterns are matched against.
    ///   - minimumDuration: The shortest episode downloaded, in seconds (nil: any).
    public init(include: [String] = [], exclude: [String] = [], match: Field = .title, minimumDuration: Int? = nil) {
        self.include = include
        self.exclude = exclude
        self.match = match
        self.minimumDuration = minimumDuration
    }

    /// No filter: every episode passes.
    public static let none = DownloadFilter()

    /// True when the filter leaves nothing out (the match field alone filters nothing).
    public var isEmpty: Bool { include.isEmpty && exclude.isEmpty && minimumDuration == nil }

    /// The filter as a store keeps it: JSON, or nil when it filters nothing.
    public var storedText: String? {
        guard !isEmpty || match != .title else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The filter a store kept (``storedText``); no filter for nil or text that is not one.
    public init(storedText: String?) {
        guard let storedText, let data = storedText.data(using: .utf8),
            let filter = try? JSONDecoder().decode(DownloadFilter.self, from: data)
        else {
            self = .none
            return
        }
        self = filter
    }

    /// Why `pattern` cannot be used as a filter, or nil when it can: "is not a regular expression (expected ')')".
    /// The patterns are matched by `NSRegularExpression` (ICU), which decides; Swift's own regex parser, when it
    /// refuses the pattern too, says why (ICU's error names only the pattern).
    public static func problem(in pattern: String) -> String? {
        guard (try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive])) == nil else { return nil }
        do {
            _ = try Regex(pattern)
            return "is not a regular expression"
        } catch {
            return "is not a regular expression (\(String(describing: error)))"
        }
    }
}

/// Why a filter leaves an episode out.
public enum FilterExclusion: Sendable, Hashable {
    /// There are include patterns and the episode matches none.
    case notIncluded
    /// It matches this exclude pattern.
    case excluded(pattern: String)
    /// It lasts `seconds`, less than the shortest allowed.
    case tooShort(seconds: Int)
}

/// A ``DownloadFilter`` with its patterns compiled once, to judge many episodes.
///
/// ## Why this type is `Sendable`
/// `NSRegularExpression` is immutable once made and safe to use from several threads (Foundation documents it so);
/// the matcher holds nothing else that changes.
public struct DownloadFilterMatcher: @unchecked Sendable {
    /// The filter matched.
    public let filter: DownloadFilter
    private let include: [NSRegularExpression]
    private let exclude: [(String, NSRegularExpression)]

    /// A pattern stored in a filter that cannot be compiled (only a store edited by hand holds one).
    public struct BadPattern: Error, Sendable, Hashable {
        /// The pattern.
        public var pattern: String
        /// Why it cannot be used (``DownloadFilter/problem(in:)``).
        public var reason: String
    }

    /// Compiles `filter`'s patterns, case-insensitively.
    /// - Throws: ``BadPattern`` for the first pattern that is not a regular expression.
    public init(_ filter: DownloadFilter) throws(BadPattern) {
        func compile(_ pattern: String) throws(BadPattern) -> NSRegularExpression {
            do {
                return try NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
            } catch {
                throw BadPattern(
                    pattern: pattern, reason: DownloadFilter.problem(in: pattern) ?? "is not a regular expression")
            }
        }
        self.filter = filter
        var include: [NSRegularExpression] = []
        for pattern in filter.include { include.append(try compile(pattern)) }
        var exclude: [(String, NSRegularExpression)] = []
        for pattern in filter.exclude { exclude.append((pattern, try compile(pattern))) }
        self.include = include
        self.exclude = exclude
    }

    /// Why the filter leaves `episode` out, or nil when the episode passes.
    public func exclusion(of episode: ParsedEpisode) -> FilterExclusion? {
        if filter.isEmpty { return nil }
        var texts = [episode.title ?? ""]
        if filter.match == .description, let text = episode.summary ?? episode.description { texts.append(text) }
        func matches(_ expression: NSRegularExpression) -> Bool {
            texts.contains { text in
                expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            }
        }
        if !include.isEmpty, !include.contains(where: matches) { return .notIncluded }
        if let hit = exclude.first(where: { matches($0.1) }) { return .excluded(pattern: hit.0) }
        if let minimum = filter.minimumDuration, let duration = episode.duration, duration > 0,
            duration < Double(minimum)
        {
            return .tooShort(seconds: Int(duration.rounded()))
        }
        return nil
    }

    /// True when `episode` passes the filter.
    public func passes(_ episode: ParsedEpisode) -> Bool { exclusion(of: episode) == nil }
}

/// How many episodes a feed's filters left out, by reason.
public struct FilteredCounts: Sendable, Hashable {
    /// Episodes that match no include pattern.
    public var notIncluded = 0
    /// Episodes that match an exclude pattern.
    public var excluded = 0
    /// Episodes shorter than the shortest allowed.
    public var tooShort = 0

    public init(notIncluded: Int = 0, excluded: Int = 0, tooShort: Int = 0) {
        self.notIncluded = notIncluded
        self.excluded = excluded
        self.tooShort = tooShort
    }

    /// Every episode left out.
    public var total: Int { notIncluded + excluded + tooShort }

    /// Counts one more episode left out for `exclusion`.
    public mutating func count(_ exclusion: FilterExclusion) {
        switch exclusion {
        case .notIncluded: notIncluded += 1
        case .excluded: excluded += 1
        case .tooShort: tooShort += 1
        }
    }
}

extension DownloadPlan {
    /// The files retention may delete on a feed with filters: of the feed's records, those of episodes the filter
    /// lets through, ordered as `episodesNewestFirst`, on disk past the newest `keepNewest`. The files of episodes the
    /// filter leaves out are neither counted nor deleted: a filter added later never deletes a file by itself.
    public static func pastRetention(
        _ records: [DownloadRecord], episodesNewestFirst: [StoredEpisode], matcher: DownloadFilterMatcher,
        keepNewest: Int
    ) -> [DownloadRecord] {
        let byKey = Dictionary(records.map { ($0.episodeKey, $0) }, uniquingKeysWith: { first, _ in first })
        let ordered = episodesNewestFirst.compactMap { episode in
            matcher.passes(episode.episode) ? byKey[episode.key] : nil
        }
        return pastRetention(ordered, keepNewest: keepNewest)
    }
}
