public import Foundation

/// A file podfresh saves beside an episode's media file (`podfresh set FEED --extras on`): a transcript, the chapters
/// or the artwork, with what became of it. The stores keep an episode's list as JSON with its download record
/// (``DownloadRepository/recordExtraFiles(subscriptionID:episodeKey:_:)``); only the paths listed here are ever
/// deleted with the episode.
public struct ExtraFile: Sendable, Hashable, Codable {
    /// What the file is.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A `podcast:transcript` (VTT, SRT, JSON or HTML, by its type).
        case transcript
        /// The `podcast:chapters` JSON.
        case chapters
        /// The episode's image, else the feed's.
        case image
    }

    public var kind: Kind
    /// Where it is fetched from.
    public var url: URL
    /// The file on disk, once complete; nil while it has not been saved.
    public var path: String?
    /// Its size once saved.
    public var bytes: Int64?
    /// Permanent failures in a row (a 404, a page instead of the file, a file too large): it waits
    /// ``DownloadBackoff/wait(afterFailures:)`` before the next try, as a broken media link does.
    public var failures: Int
    /// Not tried again before this time; nil: no wait.
    public var retryAfter: Date?
    /// The last failure's cause as stored (the typed facts as JSON, worded when shown).
    public var lastError: String?

    public init(
        kind: Kind, url: URL, path: String? = nil, bytes: Int64? = nil, failures: Int = 0, retryAfter: Date? = nil,
        lastError: String? = nil
    ) {
        self.kind = kind
        self.url = url
        self.path = path
        self.bytes = bytes
        self.failures = failures
        self.retryAfter = retryAfter
        self.lastError = lastError
    }

    /// True when the file was saved and is podfresh's to delete.
    public var isSaved: Bool { path != nil }

    /// True when it is not to be tried at `now`: saved, or waiting after a failure.
    public func isSettled(at now: Date) -> Bool {
        if isSaved { return true }
        guard let retryAfter else { return false }
        return retryAfter > now
    }

    /// The same file after a failed try at `at`: counted, and waiting (``DownloadBackoff``) before the next.
    /// `permanent` is false for a failure that may pass by itself (a timeout, a cut connection): it is counted too,
    /// so that a host that never answers is not asked on every run.
    public func failed(error: String, at: Date) -> ExtraFile {
        var next = self
        next.path = nil
        next.bytes = nil
        next.failures += 1
        next.retryAfter = at.addingTimeInterval(DownloadBackoff.wait(afterFailures: next.failures))
        next.lastError = error
        return next
    }

    /// The list as a store keeps it: JSON, or nil for none.
    public static func storedText(_ files: [ExtraFile]) -> String? {
        guard !files.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        guard let data = try? encoder.encode(files) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The list a store kept (``storedText(_:)``); none for nil or text that is not one.
    public static func files(stored text: String?) -> [ExtraFile] {
        guard let text, let data = text.data(using: .utf8) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return (try? decoder.decode([ExtraFile].self, from: data)) ?? []
    }
}
