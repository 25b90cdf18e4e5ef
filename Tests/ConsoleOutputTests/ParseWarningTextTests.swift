import ConsoleOutput
import FeedParsing
import Testing

/// A parser warning carries facts (the text it could not read, the limit, the encoding label and where it came
/// from); ConsoleOutput alone words them. These pin the wording of every reason, as `parse` and `--json` print it.
struct ParseWarningTextTests {
    static let wordings: [(ParseWarning.Reason, String)] = [
        (.xml(libxml2Message: "Entity 'nbsp' not defined"), "Entity 'nbsp' not defined"),
        (
            .undeclaredPrefix(libxml2Message: "Namespace prefix itunes on author is not defined"),
            "namespace prefix used without a declaration (Namespace prefix itunes on author is not defined); "
                + "read by its well-known meaning"
        ),
        (.tooManyEpisodes(limit: 10), "more than 10 episodes: the rest were ignored"),
        (.fieldCut(limit: 1000), "a field longer than 1000 bytes was cut"),
        (
            .tooManyEpisodeEntries(limit: 5),
            "an episode has more than 5 enclosures, transcripts or persons: the rest were ignored"
        ),
        (
            .tooManyChannelEntries(limit: 100),
            "the channel has more than 100 entries of one kind (podroll, trailers, locations, txt or value): "
                + "the rest were ignored"
        ),
        (.unreadableDuration(text: "about an hour"), "unreadable itunes:duration \"about an hour\""),
        (.unreadableSoundbite, "podcast:soundbite without a readable startTime and duration was ignored"),
        (.unreadableDate(text: "not a date", attribute: nil), "unreadable date \"not a date\""),
        (
            .unreadableDate(text: "soon", attribute: "podcast:trailer pubdate"),
            "unreadable date \"soon\" in podcast:trailer pubdate"
        ),
        (.ignoredScheme("javascript"), "ignored a javascript: URL (only http and https are followed)"),
        (
            .sharedEpisodeID(first: 1, second: 3, id: "same"),
            "items 1 and 3 share the episode id \"same\"; the first is kept"
        ),
        (
            .sourceURLsLeftOut(count: 3, schemes: ["ipfs", "ftp"]),
            "3 podcast:source URL(s) were left out: only http and https are followed (ipfs, ftp)"
        ),
        (
            .unknownEncoding(label: "x-unheard-of", source: .server, readAs: "cp866"),
            "unknown encoding \"x-unheard-of\" (named by the server): read as \"cp866\" instead"
        ),
        (
            .unknownEncoding(label: "klingon", source: .document, readAs: nil),
            "unknown encoding \"klingon\" (declared by the document): read as UTF-8, with bytes that are not UTF-8 "
                + "taken as Windows-1252"
        ),
        (
            .unknownEncoding(label: "utf-9", source: .byteOrderMark, readAs: nil),
            "unknown encoding \"utf-9\" (byte order mark): read as UTF-8, with bytes that are not UTF-8 taken as "
                + "Windows-1252"
        ),
        (.controlCharactersRemoved(count: 2), "2 control character(s) that XML forbids were removed"),
        (.readAsWindows1252(count: 4), "4 byte(s) were not valid UTF-8 and were read as Windows-1252"),
        (
            .invalidSequences(count: 1, encoding: "Shift_JIS"),
            "1 byte sequence(s) were not valid Shift_JIS and were replaced by U+FFFD"
        ),
        (.moreNotShown(count: 7), "7 more warnings not shown"),
    ]

    @Test(arguments: wordings)
    func eachReasonIsWordedOnce(reason: ParseWarning.Reason, message: String) {
        #expect(ParseWarningText.message(ParseWarning(line: 9, reason)) == message)
    }
}
