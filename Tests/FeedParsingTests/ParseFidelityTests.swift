import Foundation
import Testing

@testable import FeedParsing

private func utc(_ text: String) -> Date { FeedDate.parse(text)! }

/// Issue #10 rule 1: every character set the system's iconv knows (and the Mac OS ones it lacks) decodes, under its
/// common aliases, whatever the chunking; Windows-1252 where ISO-8859-1 or UTF-8 is claimed; unknown labels warn.
struct CharsetTests {
    @Test(arguments: [
        ("charset-cp437.xml", "Café ░▒ Ça"), ("charset-cp850.xml", "Café Ça ÿ"), ("charset-cp852.xml", "Łódź Ąę"),
        ("charset-cp855.xml", "Мир ђ"), ("charset-cp857.xml", "İstanbul ğ"), ("charset-cp860.xml", "São João"),
        ("charset-cp861.xml", "Þór ð"), ("charset-cp862.xml", "שלום"), ("charset-cp863.xml", "Québec È"),
        ("charset-cp865.xml", "Øre Æ"), ("charset-cp866.xml", "Мир ё"),
        ("charset-macroman.xml", "Café ™ † ﬁ"), ("charset-macgreek.xml", "Αθήνα"), ("charset-maccyrillic.xml", "Мир ў"),
        ("charset-macturkish.xml", "İstanbul ğş"), ("charset-maciceland.xml", "Þór Ð ý Ý"),
        ("charset-maccentraleurope.xml", "Łódź Ő"),
        ("charset-shift-jis.xml", "日本語のタイトル"), ("charset-euc-kr.xml", "한국어 제목"), ("charset-big5.xml", "中文標題"),
        ("charset-gbk.xml", "中文标题 镕"), ("charset-gb18030.xml", "中文标题 𠀀"),
    ])
    func declaredCharsetsDecodeInEveryChunking(fixture: String, text: String) throws {
        let bytes = try TestFiles.fixture(fixture)
        // One-byte chunks split every multi-byte character.
        for size in [1, 2, 3, 7, .max] {
            let feed = try parseInChunks(bytes, size: size)
            #expect(feed.title == text, "\(fixture) in \(size)-byte chunks")
            #expect(feed.episodes.first?.title == text + " 2", "\(fixture) in \(size)-byte chunks")
            #expect(feed.warnings.isEmpty, "\(feed.warnings)")
        }
    }

    @Test(arguments: [
        ("charset-cp866.xml", "cp866", "dos-866"), ("charset-cp850.xml", "cp850", "ibm-850"),
        ("charset-cp437.xml", "cp437", "437"),
        ("charset-cp437.xml", "cp437", "x-IBM437"), ("charset-macroman.xml", "MacRoman", "x-mac-roman"),
        ("charset-macroman.xml", "MacRoman", "macintosh"), ("charset-maciceland.xml", "MacIceland", "x-mac-iceland"),
        ("charset-macturkish.xml", "MacTurkish", "x-mac-turkish"), ("charset-macgreek.xml", "MacGreek", "x-mac-greek"),
        ("charset-maccentraleurope.xml", "MacCentralEurope", "x-mac-ce"),
        ("charset-maccyrillic.xml", "MacCyrillic", "x-mac-cyrillic"),
        ("charset-shift-jis.xml", "Shift_JIS", "sjis"), ("charset-shift-jis.xml", "Shift_JIS", "windows-31j"),
        ("charset-shift-jis.xml", "Shift_JIS", "csShiftJIS"), ("charset-euc-kr.xml", "EUC-KR", "ks_c_5601-1987"),
        ("charset-euc-kr.xml", "EUC-KR", "cp949"), ("charset-big5.xml", "Big5", "x-x-big5"),
        ("charset-big5.xml", "Big5", "big5-hkscs"),
        ("charset-gbk.xml", "GBK", "gb2312"), ("charset-gbk.xml", "GBK", "cp936"),
        ("charset-gb18030.xml", "GB18030", "gbk"),
    ])
    func commonAliasesNameTheSameCharset(fixture: String, declared: String, alias: String) throws {
        let bytes = try TestFiles.fixture(fixture)
        let expected = try FeedParser.parse(bytes).title
        // The alias in the declaration, and as the transport's charset over a declaration-less document.
        let relabelled = Self.replacing(
            Array("encoding=\"\(declared)\"".utf8), with: Array("encoding=\"\(alias)\"".utf8), in: bytes)
        #expect(try parseInChunks(relabelled, size: 3).title == expected, "\(alias) declared")
        let undeclared = Self.replacing(Array(" encoding=\"\(declared)\"".utf8), with: [], in: bytes)
        #expect(try parseInChunks(undeclared, size: 3, charset: alias).title == expected, "\(alias) from the transport")
    }

    @Test func windows1252BytesAndReferencesInALatin1DocumentAreWhatWindows1252MeansByThem() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("latin1-windows1252-bytes.xml"))
        #expect(feed.title == "Café “quoted” – € …")
        let episode = try #require(feed.episodes.first)
        #expect(episode.title == "“refs” – € ’s")
        // Inside show notes the reference is HTML, kept as written; the plain summary reads it.
        #expect(episode.description == "<p>&#151; held</p>")
        #expect(episode.summary == "— held")
        #expect(feed.warnings.isEmpty)
    }

    @Test func windows1252ReferencesAndC1CharactersInAUTF8Document() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("utf8-windows1252-references.xml"))
        #expect(feed.title == "“Café” – €")
        // U+0081 is unassigned in Windows-1252: dropped like any control.
        #expect(feed.episodes.first?.title == "It’s “quoted” gone")
    }

    @Test func anUnknownEncodingIsAWarningAndABestEffortDecode() throws {
        for size in [1, .max] {
            let feed = try parseInChunks(try TestFiles.fixture("unknown-encoding.xml"), size: size)
            #expect(feed.title == "Unknown café")
            #expect(feed.episodes.first?.title == "bé")
            #expect(
                feed.warnings.map(\.reason).contains(
                    ParseWarning.Reason.unknownEncoding(label: "x-klingon-8", source: .document, readAs: nil)))
        }
    }

    @Test func anUnknownTransportCharsetGivesWayToTheDeclaration() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("charset-cp866.xml"), charset: "x-unheard-of")
        #expect(feed.title == "Мир ё")
        #expect(
            feed.warnings.map(\.reason) == [.unknownEncoding(label: "x-unheard-of", source: .server, readAs: "cp866")])
    }

    @Test func invalidBytesInADoubleByteCharsetBecomeReplacementCharactersNotALostFeed() throws {
        for size in [1, 2, .max] {
            let feed = try parseInChunks(try TestFiles.fixture("shift-jis-invalid-bytes.xml"), size: size)
            #expect(feed.title == "日\u{FFFD}本")
            #expect(feed.episodes.map(\.title) == ["after", "二番目"])
            #expect(
                feed.warnings.contains {
                    if case .invalidSequences(_, let encoding) = $0.reason {
                        encoding.lowercased() == "shift_jis"
                    } else {
                        false
                    }
                })
        }
    }

    @Test func labelsResolveToDecodersWithoutLeavingItToLibxml2() {
        for label in [
            "cp437", "IBM850", "ibm-852", "cp855", "857", "dos-860", "x-IBM861", "cp862", "cp863", "cp865", "866",
            "MacRoman", "MacGreek", "MacCyrillic", "MacTurkish", "MacIceland", "MacCentralEurope",
            "Shift_JIS", "ms_kanji", "EUC-KR", "korean", "Big5", "cn-big5", "GBK", "GB18030", "chinese",
            "iso-8859-1", "latin1", "windows-1252", "windows-1251", "koi8-r", "iso-8859-15",
        ] {
            guard case .decoder = CharsetDecoder.resolve(label) else {
                Issue.record("\(label) has no decoder")
                continue
            }
        }
        for label in ["utf-8", "UTF8", "us-ascii"] {
            guard case .utf8 = CharsetDecoder.resolve(label) else {
                Issue.record("\(label) is not UTF-8")
                continue
            }
        }
        for label in ["utf-16", "UTF-16LE", "ucs-2"] {
            guard case .wide = CharsetDecoder.resolve(label) else {
                Issue.record("\(label) is not wide")
                continue
            }
        }
        // Never an iconv option, a path or a made-up name.
        for label in [
            "x-klingon", "", "utf-8//TRANSLIT", "../../etc/passwd", "CP437//IGNORE", String(repeating: "a", count: 300),
        ] {
            guard case .unknown = CharsetDecoder.resolve(label) else {
                Issue.record("\(label) was accepted")
                continue
            }
        }
    }

    static func replacing(_ needle: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard
            let start = (0...(bytes.count - needle.count)).first(where: {
                Array(bytes[$0..<$0 + needle.count]) == needle
            })
        else {
            return bytes
        }
        return Array(bytes[..<start]) + replacement + Array(bytes[(start + needle.count)...])
    }
}

/// Issue #10 rule 2: the date shapes added, and impossible values.
struct MoreDateTests {
    @Test(arguments: [
        // US zones without the S/D letter
        ("Tue, 12 Nov 2024 05:00:00 ET", "2024-11-12T10:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 CT", "2024-11-12T11:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 MT", "2024-11-12T12:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 PT", "2024-11-12T13:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 AT", "2024-11-12T09:00:00Z"),
        // military letters and names, Etc/ zones (POSIX sign: Etc/GMT+5 is five hours west)
        ("Tue, 12 Nov 2024 05:00:00 Zulu", "2024-11-12T05:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 Q", "2024-11-12T09:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 Etc/GMT+5", "2024-11-12T10:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 Etc/GMT-3", "2024-11-12T02:00:00Z"),
        ("2024-11-12T05:00:00 Etc/UTC", "2024-11-12T05:00:00Z"),
        // GMT±hh:mm
        ("Tue, 12 Nov 2024 05:00:00 GMT+05:30", "2024-11-11T23:30:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 GMT-03:30", "2024-11-12T08:30:00Z"),
        // asctime, also with a zone before the year
        ("Sun Jan  4 16:29:06 2004", "2004-01-04T16:29:06Z"), ("Sun Jan 4 16:29:06 +0100 2004", "2004-01-04T15:29:06Z"),
        ("Sun Jan 4 16:29:06 PST 2004", "2004-01-05T00:29:06Z"), ("Jan 4 16:29:06 2004", "2004-01-04T16:29:06Z"),
        // W3C-DTF reduced precision
        ("2003", "2003-01-01T00:00:00Z"), ("2003-12", "2003-12-01T00:00:00Z"),
        ("2003-12-13T18:30Z", "2003-12-13T18:30:00Z"),
        // ISO 8601 ordinal, week and basic (compact) forms
        ("2003-335", "2003-12-01T00:00:00Z"), ("2004-366T12:00:00Z", "2004-12-31T12:00:00Z"),
        ("2003335", "2003-12-01T00:00:00Z"),
        ("20031201", "2003-12-01T00:00:00Z"), ("20031201T183000Z", "2003-12-01T18:30:00Z"),
        ("20031201T1830+0100", "2003-12-01T17:30:00Z"),
        ("2003-W49-1", "2003-12-01T00:00:00Z"), ("2004W011", "2003-12-29T00:00:00Z"),
        ("2020-W53-7", "2021-01-03T00:00:00Z"),
    ])
    func addedShapesParse(text: String, expected: String) throws {
        let parsed = try #require(FeedDate.parse(text), "could not parse \(text)")
        #expect(RFC3339.string(from: parsed) == expected)
    }

    @Test(arguments: [
        ("2024-11-12T05:00:00,25Z", 0.25), ("20031201T183000.5Z", 0.5), ("Tue, 12 Nov 2024 05:00:00.75 GMT", 0.75),
        ("Sun Jan 4 16:29:06.5 2004", 0.5), ("2024-11-12 05:00:00.125", 0.125),
    ])
    func fractionalSecondsCountInEveryShape(text: String, fraction: Double) throws {
        let parsed = try #require(FeedDate.parse(text), "could not parse \(text)")
        #expect(parsed.timeIntervalSince1970 - parsed.timeIntervalSince1970.rounded(.down) == fraction)
    }

    @Test(arguments: [
        "Tue, 12 Nov 2024 25:00:00 GMT", "Tue, 12 Nov 2024 05:61:00 GMT", "2024-11-99", "Tue, 99 Nov 2024 05:00:00 GMT",
        "2024-11-12T05:00:00+99:99", "Tue, 12 Nov 2024 05:00:00 GMT+99:99", "Tue, 12 Nov 2024 05:00:00 Etc/GMT+99",
        "2003-13",
        "2003-366", "2003-W54-1", "2003-W49-8", "20031232", "20031201T250000Z", "Sun Jan 4 25:29:06 2004",
        "Sun Foo 4 16:29:06 2004",
        "0999", "12345",
    ])
    func impossibleValuesAreNil(text: String) {
        #expect(FeedDate.parse(text) == nil)
    }

    @Test func aFeedsDatesInTheAddedShapesAndImpossibleOnesWithWarnings() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("dates-more-shapes.xml"))
        let dates = feed.episodes.map { $0.published.map(RFC3339.string(from:)) }
        #expect(
            dates == [
                "2024-11-12T10:00:00Z", "2004-01-04T16:29:06Z", "2004-01-04T15:29:06Z", "2003-12-01T00:00:00Z",
                "2003-12-01T10:00:00Z",
                "2003-12-01T18:30:00Z", "2024-11-12T10:00:00Z", "2024-11-12T08:30:00Z", nil, nil, nil, nil,
            ])
        #expect(feed.episodes[5].published == utc("2003-12-01T18:30:00Z").addingTimeInterval(0.25))
        #expect(feed.episodes[7].published == utc("2024-11-12T08:30:00Z").addingTimeInterval(0.5))
        #expect(
            feed.warnings.filter {
                if case .unreadableDate = $0.reason { true } else { false }
            }.map(\.line) == [11, 12, 13, 14])
    }
}

/// Issue #10 rules 3, 4, 6 and 7.
struct StructureFidelityTests {
    @Test func nestedItunesCategoriesBecomeOnePathPerInnermostCategory() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("itunes-categories-nested.xml"))
        #expect(feed.categories == ["Business/Entrepreneurship/Ecommerce", "Business/Marketing", "Technology", "Arts"])
    }

    @Test func categoryPathsStopAtADepthBound() throws {
        let open = (0..<50).map { "<itunes:category text=\"L\($0)\">" }.joined()
        let close = String(repeating: "</itunes:category>", count: 50)
        let feed = try parse(
            "<rss xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel><title>Deep</title>\(open)\(close)</channel></rss>"
        )
        #expect(feed.categories == [(0..<SAXState.maxCategoryDepth).map { "L\($0)" }.joined(separator: "/")])
    }

    @Test func mediaThumbnailsAndImageContentAreTheEpisodeImageWithoutItunesImage() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("media-images.xml"))
        #expect(
            feed.episodes.map(\.imageString) == [
                "https://img.example.com/thumb1.jpg", "https://img.example.com/cover2.png",
                "https://img.example.com/still3.jpg",
                "https://img.example.com/itunes4.jpg", "https://img.example.com/typed5.jpg",
            ])
        // An image is not an enclosure…
        #expect(feed.episodes[1].enclosures.map(\.urlString) == ["https://cdn.example.com/2.mp3"])
        #expect(feed.episodes[4].enclosures.isEmpty)
        // …and the identity key still falls back to it, as it always did.
        let atom = try FeedParser.parse(try TestFiles.fixture("media-images.atom"))
        #expect(atom.episodes.first?.imageString == "https://img.example.com/hq1.jpg")
        #expect(atom.episodes.first?.enclosures.map(\.urlString) == ["https://video.example.com/v/1"])
    }

    @Test func aPermalinkGuidIsTheLinkWhenThereIsNone() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("guid-permalink-link.xml"))
        #expect(
            feed.episodes.map(\.linkString) == [
                "https://show.example.com/episodes/1", "https://show.example.com/two", nil, nil,
            ])
        #expect(
            feed.episodes.map(\.id) == [
                "https://show.example.com/episodes/1", "https://show.example.com/episodes/2",
                "https://show.example.com/episodes/3",
                "episode-4-not-a-url",
            ])
    }

    @Test func anOldRedirectDocumentIsReadLikeNewFeedURL() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("redirect-document.xml"))
        #expect(feed.newFeedURL?.absoluteString == "https://new.example.com/feed.xml")
        #expect(feed.episodes.isEmpty && feed.title == nil)
        let inChannel = try FeedParser.parse(try TestFiles.fixture("redirect-in-channel.xml"))
        #expect(inChannel.newFeedURL?.absoluteString == "https://moved.example.com/rss")
        #expect(inChannel.title == "Moved" && inChannel.episodes.count == 1)
        // itunes:new-feed-url wins over it.
        let both = try parse(
            "<rss xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel><redirect><newLocation>https://a.example.com/</newLocation></redirect><itunes:new-feed-url>https://b.example.com/</itunes:new-feed-url></channel></rss>"
        )
        #expect(both.newFeedURL?.absoluteString == "https://b.example.com/")
    }

    @Test func enclosuresAndMediaContentAlternativesAreAllKeptInDocumentOrderOncePerURL() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("enclosures-and-media-content.xml"))
        let episode = try #require(feed.episodes.first)
        #expect(
            episode.enclosures == [
                Enclosure(urlString: "https://cdn.example.com/1-video.mp4", length: 5000, type: "video/mp4"),
                // length="0" is unknown: the media:content duplicate fills it in.
                Enclosure(urlString: "https://cdn.example.com/1.mp3", length: 1234, type: "audio/mpeg"),
                Enclosure(urlString: "https://cdn.example.com/1.m4a", length: 700, type: "audio/mp4"),
                Enclosure(urlString: "https://cdn.example.com/1-low.mp3", length: 300, type: "audio/mpeg"),
            ])
        #expect(episode.imageString == "https://img.example.com/1.jpg")
        // The identity key is still the first <enclosure>, so stored episodes keep their key.
        #expect(episode.id == "https://cdn.example.com/1.mp3")
    }
}

/// Issue #10 rule 5: more podcast namespace tags and Podlove Simple Chapters, in the model and in `parse --json`.
struct PodcastTagTests {
    @Test func channelTagsAreRead() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("podcast-namespace-more.xml"))
        #expect(feed.funding == [Funding(url: URL(string: "https://donate.example.com/")!, text: "Support us")])
        #expect(feed.updateFrequency == "FREQ=WEEKLY;INTERVAL=2")
        #expect(
            feed.podcastUpdateFrequency
                == UpdateFrequency(
                    text: "Every other week", rrule: "FREQ=WEEKLY;INTERVAL=2", complete: false,
                    start: utc("2023-08-28T00:00:00Z")))
        #expect(feed.medium == "podcast")
        #expect(feed.license == License(name: "cc-by-4.0", urlString: "https://creativecommons.org/licenses/by/4.0/"))
        #expect(
            feed.locations == [
                Location(name: "Austin, TX", rel: "creator", geo: "geo:30.2672,97.7431", osm: "R113314", country: "us")
            ])
        #expect(
            feed.trailers == [
                Trailer(
                    urlString: "https://example.org/trailers/teaser.mp3", title: "Coming April 1st",
                    published: utc("2021-04-01T13:00:00Z"), length: 12_345_678, type: "audio/mpeg", season: 4)
            ])
        #expect(
            feed.podroll == [
                RemoteItem(
                    feedGUID: "917393e3-1b1e-5cef-ace4-edaa54e1f810",
                    feedURLString: "https://feeds.example.org/other.xml", title: "Other show"),
                RemoteItem(feedGUID: "2b6e6d1a-0000-4000-8000-000000000000", medium: "music"),
            ])
        #expect(feed.txt == [PodcastText(purpose: "verify", text: "S6lpp-7ZCn8-dZfGc-OoyVG")])
        #expect(
            feed.value == [
                ValueBlock(
                    type: "lightning", method: "keysend", suggested: "0.00000005000",
                    recipients: [
                        ValueRecipient(name: "Alice", type: "node", address: "02d5c1bf", split: 90),
                        ValueRecipient(
                            name: "Host", type: "node", address: "03ae9f91", split: 10, fee: true, customKey: "696969",
                            customValue: "eChoVKtO1KujpAA5HCoB"),
                    ])
            ])
    }

    @Test func episodeTagsAreRead() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("podcast-namespace-more.xml"))
        let episode = try #require(feed.episodes.first)
        #expect(
            episode.alternateEnclosures == [
                AlternateEnclosure(
                    url: URL(string: "https://cdn.example.com/p1.opus"), type: "audio/opus", length: 800,
                    bitrate: 96000, title: "High quality",
                    isDefault: false,
                    sources: [
                        .init(uriString: "https://cdn.example.com/p1.opus"),
                        .init(uriString: "https://cdn.example.com/p1.torrent", contentType: "application/x-bittorrent"),
                    ],
                    height: 0, language: "en", rel: "default", codecs: "opus")
            ])
        #expect(
            episode.soundbites == [
                Soundbite(start: 73, duration: 60, title: "Why it matters"), Soundbite(start: 1234.5, duration: 42.25),
            ])
        #expect(
            episode.value == [
                ValueBlock(
                    type: "lightning", method: "keysend",
                    recipients: [ValueRecipient(name: "Guest", type: "node", address: "0299", split: 100)])
            ])
        #expect(episode.txt == [PodcastText(text: "free text")])
        #expect(
            episode.locations == [Location(name: "Eiffel Tower, Paris", geo: "geo:48.858093,2.294694", country: "fr")])
        #expect(episode.license == License(name: "cc-by-sa-4.0"))
        #expect(episode.chaptersString == "https://cdn.example.com/p1.json")
        #expect(
            episode.simpleChapters == [
                SimpleChapter(start: 0, title: "Welcome"),
                SimpleChapter(
                    start: 90.5, title: "Topic", hrefString: "https://example.com/topic",
                    imageString: "https://example.com/topic.jpg"),
                SimpleChapter(start: 3723, title: "Outro"),
            ])
        #expect(
            feed.warnings.map(\.reason) == [.unreadableSoundbite, .sourceURLsLeftOut(count: 1, schemes: ["ipfs"])])
    }
}

/// The new paths under hostile input: bounded, chunk-independent, no crash.
struct ParseFidelityLimitTests {
    @Test(arguments: ["Shift_JIS", "GB18030", "Big5", "EUC-KR", "cp437", "MacGreek", "ISO-8859-1"])
    func randomBytesInADeclaredCharsetParseTheSameWhateverTheChunking(charset: String) throws {
        var generator = SplitMix(seed: 0x5EED)
        for round in 0..<20 {
            let junk = (0..<200).map { _ in UInt8(truncatingIfNeeded: generator.next()) }.filter {
                $0 != 0x3C && $0 != 0x26
            }
            let bytes =
                Array("<?xml version=\"1.0\" encoding=\"\(charset)\"?><rss><channel><title>".utf8) + junk
                + Array("</title><item><guid>g</guid></item></channel></rss>".utf8)
            let whole = try parseInChunks(bytes, size: .max)
            for size in [1, 2, 3, 5, 64] {
                #expect(
                    try parseInChunks(bytes, size: size) == whole, "\(charset) round \(round) in \(size)-byte chunks")
            }
            #expect(whole.episodes.count == 1, "\(charset) round \(round): the item after the junk is kept")
        }
    }

    @Test func channelListsAreCappedWithOneWarning() throws {
        let items = (0..<300).map { "<podcast:remoteItem feedGuid=\"g\($0)\"/>" }.joined()
        let txt = (0..<300).map { "<podcast:txt>t\($0)</podcast:txt>" }.joined()
        let feed = try parse(
            "<rss xmlns:podcast=\"https://podcastindex.org/namespace/1.0\"><channel><title>Caps</title><podcast:podroll>\(items)</podcast:podroll>\(txt)</channel></rss>",
            options: FeedParserOptions(maxItemsPerEpisode: 100))
        #expect(feed.podroll.count == 100 && feed.txt.count == 100)
        #expect(feed.warnings.filter { $0.reason == .tooManyChannelEntries(limit: 100) }.count == 1)
    }
}

/// Issue #21 item 6: among `<enclosure>`, `media:content`, `media:group` and `podcast:alternateEnclosure`, the
/// audio file (else the video) is chosen by type, as podcast apps do, never an image.
struct EnclosureChoiceTests {
    @Test func theAudioFileIsChosenByTypeNeverAnImage() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("enclosure-choice.xml"))
        let chosen = feed.episodes.map { $0.chosenEnclosure?.enclosure.urlString }
        #expect(
            chosen == [
                "https://cdn.example.com/1.mp3", "https://cdn.example.com/2.m4a", "https://cdn.example.com/3.webm",
                "https://cdn.example.com/4.opus?token=abc", "https://mirror.example.com/5.mp3", nil,
                "https://cdn.example.com/download?id=7", "https://cdn.example.com/8.mp3",
            ])
        let choices = feed.episodes.map(\.chosenEnclosure)
        #expect(choices[0]?.origin == .enclosure(1))
        #expect(choices[0]?.kind == .audio && choices[0]?.evidence == .type)
        #expect(choices[0]?.passedOver.map(\.loss) == [.lowerKind])
        #expect(choices[2]?.kind == .video)
        #expect(choices[2]?.passedOver.map(\.loss) == [.image])
        #expect(choices[3]?.evidence == .fileExtension)
        #expect(choices[3]?.passedOver.map(\.kind) == [.document])
        // The ipfs:// source (and the ftp:// enclosure below) never reach the list: only http(s) ones do.
        #expect(choices[4]?.origin == .alternate(index: 0, source: 0))
        #expect(choices[4]?.enclosure.type == "audio/mpeg" && choices[4]?.enclosure.length == 2000)
        #expect(choices[4]?.passedOver.map(\.loss) == [.lowerKind])
        #expect(choices[6]?.kind == .unknown && choices[6]?.evidence == .nothing)
        #expect(choices[7]?.passedOver.map(\.loss) == [.later])
    }

    @Test func theEarlierFixturesFirstVideoMediaContentNoLongerWins() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("enclosures-and-media-content.xml"))
        let choice = try #require(feed.episodes.first?.chosenEnclosure)
        #expect(choice.enclosure.urlString == "https://cdn.example.com/1.mp3")
        #expect(choice.origin == .enclosure(1))
        // The identity key is unchanged: the first <enclosure>.
        #expect(feed.episodes.first?.id == "https://cdn.example.com/1.mp3")
    }
}

/// Issue #21 item 8: the fidelity leftovers against gPodder's podcastparser.
struct FidelityLeftoverTests {
    @Test func categoryPathsHaveNoStraySeparators() throws {
        let feed = try parse(
            """
            <rss xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>C</title>
            <itunes:category text="Society &amp; Culture"><itunes:category text=""/></itunes:category>
            <itunes:category text="  "><itunes:category text="History"/></itunes:category>
            <itunes:category text="Arts/"><itunes:category text=" Design "/></itunes:category>
            <category>Technology / Podcasting</category><category>News/</category><category>/</category>
            </channel></rss>
            """)
        #expect(feed.categories == ["Society & Culture", "History", "Arts/Design", "Technology/Podcasting", "News"])
    }

    @Test func showNotesPreferContentEncodedWhereverItStands() throws {
        let feed = try parse(
            """
            <rss xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>N</title>
            <item><guid>1</guid><description>short</description><content:encoded><![CDATA[<p>long</p>]]></content:encoded></item>
            <item><guid>2</guid><content:encoded><![CDATA[<p>long 2</p>]]></content:encoded><description>short 2</description></item>
            <item><guid>3</guid><itunes:summary>summary 3</itunes:summary><description>short 3</description></item>
            </channel></rss>
            """)
        #expect(feed.episodes.map(\.description) == ["<p>long</p>", "<p>long 2</p>", "short 3"])
    }

    @Test func aPermalinkGuidIsTheLinkOnlyWhenThereIsNoneAndItIsAPermalink() throws {
        let feed = try parse(
            """
            <rss><channel><title>G</title>
            <item><guid>https://ex.com/1</guid></item>
            <item><guid isPermaLink="false">https://ex.com/2</guid></item>
            <item><guid>https://ex.com/3</guid><link>https://ex.com/page3</link></item>
            <item><guid>https://ex.com/4</guid><link>  </link></item>
            </channel></rss>
            """)
        #expect(
            feed.episodes.map(\.linkString) == ["https://ex.com/1", nil, "https://ex.com/page3", "https://ex.com/4"])
    }

    /// podcastparser's `permalink` case: a relative guid that says `isPermaLink="true"` is a link against
    /// `xml:base` (or the feed's URL); one left at the default is an identifier, not a guessed page.
    @Test func aRelativeGuidIsTheLinkOnlyWhenItSaysItIsAPermalink() throws {
        let feed = try parse(
            """
            <rss xml:base="http://example.com/podcast/"><channel><title>G</title>
            <item><guid isPermaLink="true">episode/1/</guid></item>
            <item><guid>episode/2/</guid></item>
            <item><guid isPermaLink="true">episode::3</guid></item>
            <item><guid isPermaLink=" TRUE ">/top/4</guid></item>
            <item><guid isPermaLink="true">episode 5</guid></item>
            </channel></rss>
            """)
        #expect(
            feed.episodes.map(\.linkString) == [
                "http://example.com/podcast/episode/1/", nil, nil, "http://example.com/top/4", nil,
            ])
        // The identity key stays the guid as written.
        #expect(feed.episodes.map(\.id) == ["episode/1/", "episode/2/", "episode::3", "/top/4", "episode 5"])

        let noBase = try parse(
            """
            <rss><channel><title>G</title><item><guid isPermaLink="true">e/1</guid></item></channel></rss>
            """)
        #expect(noBase.episodes.first?.linkString == "https://feeds.example.com/e/1")
    }
}
