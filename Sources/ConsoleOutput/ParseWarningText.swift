public import FeedParsing

/// How a parser warning reads: the one place each ``ParseWarning/Reason`` is worded.
public enum ParseWarningText {
    /// The warning without its line: `unreadable date "not a date" in podcast:trailer pubdate`.
    public static func message(_ warning: ParseWarning) -> String {
        reason(warning.reason)
    }

    /// The reason as a sentence fragment.
    static func reason(_ reason: ParseWarning.Reason) -> String {
        switch reason {
        case .xml(let message): message
        case .undeclaredPrefix(let message):
            "namespace prefix used without a declaration (\(message)); read by its well-known meaning"
        case .tooManyEpisodes(let limit): "more than \(limit) episodes: the rest were ignored"
        case .fieldCut(let limit): "a field longer than \(limit) bytes was cut"
        case .tooManyEpisodeEntries(let limit):
            "an episode has more than \(limit) enclosures, transcripts or persons: the rest were ignored"
        case .tooManyChannelEntries(let limit):
            "the channel has more than \(limit) entries of one kind (podroll, trailers, locations, txt or value): "
                + "the rest were ignored"
        case .unreadableDuration(let text): "unreadable itunes:duration \"\(text)\""
        case .unreadableSoundbite: "podcast:soundbite without a readable startTime and duration was ignored"
        case .unreadableDate(let text, nil): "unreadable date \"\(text)\""
        case .unreadableDate(let text, let attribute?): "unreadable date \"\(text)\" in \(attribute)"
        case .ignoredScheme(let scheme): "ignored a \(scheme): URL (only http and https are followed)"
        case .sharedEpisodeID(let first, let second, let id):
            "items \(first) and \(second) share the episode id \"\(id)\"; the first is kept"
        case .sourceURLsLeftOut(let count, let schemes):
            "\(count) podcast:source URL(s) were left out: only http and https are followed "
                + "(\(schemes.joined(separator: ", ")))"
        case .unknownEncoding(let label, let source, let readAs):
            "unknown encoding \"\(label)\" (\(encodingSource(source))): "
                + (readAs.map { "read as \"\($0)\" instead" }
                    ?? "read as UTF-8, with bytes that are not UTF-8 taken as Windows-1252")
        case .controlCharactersRemoved(let count): "\(count) control character(s) that XML forbids were removed"
        case .readAsWindows1252(let count): "\(count) byte(s) were not valid UTF-8 and were read as Windows-1252"
        case .invalidSequences(let count, let encoding):
            "\(count) byte sequence(s) were not valid \(encoding) and were replaced by U+FFFD"
        case .moreNotShown(let count): "\(count) more warnings not shown"
        case .documentEndedEarly(let root):
            "the document ends early, before its closing </\(root)>: it was cut off; what came before was kept"
        }
    }

    static func encodingSource(_ source: ParseWarning.EncodingSource) -> String {
        switch source {
        case .byteOrderMark: "byte order mark"
        case .server: "named by the server"
        case .document: "declared by the document"
        }
    }
}
