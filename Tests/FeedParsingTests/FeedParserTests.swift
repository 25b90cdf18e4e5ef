import FeedParsing
import Foundation
import Testing

private func date(_ text: String) -> Date { FeedDate.parse(text)! }

struct FeedParserTests {
    @Test func rss2ChannelFieldsAreAllRead() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("rss2-full.xml"))
        #expect(feed.format == .rss2)
        #expect(feed.title == "Full Show")
        #expect(feed.link?.absoluteString == "https://show.example.com/")
        #expect(feed.description == "The description.")
        #expect(feed.subtitle == "iTunes subtitle")
        #expect(feed.language == "en-us")
        #expect(feed.image?.absoluteString == "https://show.example.com/art.jpg")
        #expect(feed.author == "Jane Host")
        #expect(feed.owner == Owner(name: "Owner Name", email: "owner@example.com"))
        #expect(feed.categories == ["Technology", "Society & Culture/Documentary", "Tech News"])
        #expect(feed.explicit == true)
        #expect(feed.type == .serial)
        #expect(feed.newFeedURL?.absoluteString == "https://new.example.com/feed.xml")
        #expect(feed.block == false)
        #expect(feed.complete == true)
        #expect(feed.podcastGUID == "917393e3-1b1e-5cef-ace4-edaa54e1f810")
        #expect(feed.locked == true)
        #expect(feed.funding == [Funding(url: URL(string: "https://donate.example.com/")!, text: "Support the show")])
        #expect(feed.updateFrequency == "FREQ=WEEKLY")
        #expect(feed.generator == "Handwritten 1.0")
        #expect(feed.lastBuildDate == date("2024-11-13T10:00:00Z"))
        #expect(feed.ttl == 120)
        #expect(feed.syndicationUpdatePeriod == "daily")
        #expect(feed.syndicationUpdateFrequency == 2)
        #expect(feed.selfURL?.absoluteString == "https://show.example.com/feed.xml")
        #expect(feed.nextPage?.absoluteString == "https://show.example.com/feed.xml?page=2")
        #expect(feed.firstPage?.absoluteString == "https://show.example.com/feed.xml?page=1")
        #expect(feed.lastPage?.absoluteString == "https://show.example.com/feed.xml?page=9")
        #expect(feed.warnings.isEmpty)
    }

    @Test func rss2EpisodeFieldsAreAllRead() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("rss2-full.xml"))
        #expect(feed.episodes.count == 2)
        let e = feed.episodes[0]
        #expect(e.id == "ep-2")
        #expect(e.guid == "ep-2")
        #expect(e.guidIsPermaLink == false)
        #expect(e.title == "Episode 2: The \"Sequel\" & more")
        #expect(e.link?.absoluteString == "https://show.example.com/2")
        #expect(e.description == "<p>Rich <b>HTML</b> &amp; notes</p>")
        #expect(e.summary == "Plain description")
        #expect(e.published == date("Tue, 12 Nov 2024 05:00:00 GMT"))
        #expect(e.duration == 3723)
        #expect(
            e.enclosures == [
                Enclosure(
                    url: URL(string: "https://cdn.example.com/ep2.mp3?token=a&b=c")!, length: 24_986_239,
                    type: "audio/mpeg"),
                Enclosure(url: URL(string: "https://cdn.example.com/ep2.m4a")!, length: nil, type: "audio/mp4"),
            ])
        #expect(e.episode == 2 && e.season == 1)
        #expect(e.episodeType == .full)
        #expect(e.explicit == false)
        #expect(e.image?.absoluteString == "https://show.example.com/ep2.jpg")
        #expect(e.transcripts.map(\.type) == ["text/vtt", "application/x-subrip"])
        #expect(e.transcripts.last?.rel == "captions")
        #expect(e.chapters?.absoluteString == "https://show.example.com/ep2.json")
        #expect(
            e.persons == [
                Person(
                    name: "Guest Person", role: "guest", href: URL(string: "https://guest.example.com/"),
                    image: URL(string: "https://guest.example.com/face.jpg")),
                Person(name: "Default Host", role: "host"),
            ])
        #expect(
            e.alternateEnclosures == [
                AlternateEnclosure(
                    url: URL(string: "https://cdn.example.com/ep2.opus"), type: "audio/opus", length: 1000,
                    bitrate: 64000, isDefault: true,
                    sources: [.init(uriString: "https://cdn.example.com/ep2.opus")])
            ])

        let bonus = feed.episodes[1]
        #expect(bonus.guid == nil)
        #expect(bonus.id == "https://cdn.example.com/bonus.mp3")
        #expect(bonus.episodeType == .bonus)
        #expect(bonus.season == 3 && bonus.episode == 7)
        #expect(bonus.description == "Only an itunes summary")
    }

    @Test func atomFeedsWithXMLBaseAndEnclosureLinks() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("atom-podcast.atom"))
        #expect(feed.format == .atom)
        #expect(feed.title == "Atom Show")
        #expect(feed.description == "Atom subtitle")
        #expect(feed.link?.absoluteString == "https://atom.example.org/")
        #expect(feed.selfURL?.absoluteString == "https://atom.example.org/base/feed.atom")
        #expect(feed.nextPage?.absoluteString == "https://atom.example.org/base/feed.atom?page=2")
        #expect(feed.image?.absoluteString == "https://atom.example.org/base/logo.png")
        #expect(feed.author == "Atom Author")
        #expect(feed.categories == ["Science"])
        #expect(feed.episodes.count == 2)
        let first = feed.episodes[0]
        #expect(first.id == "urn:uuid:entry-1")
        #expect(first.link?.absoluteString == "https://atom.example.org/base/entries/1")
        #expect(
            first.enclosures == [
                Enclosure(
                    url: URL(string: "https://atom.example.org/base/audio/1.mp3")!, length: 123, type: "audio/mpeg")
            ])
        #expect(first.published == date("2024-11-15T07:30:00Z").addingTimeInterval(0.25))
        #expect(first.description?.contains("<p>Hello <em>world</em></p>") == true)
        #expect(feed.episodes[1].published == date("2024-11-01T00:00:00Z"))
        #expect(feed.episodes[1].description == "<p>escaped html</p>")
    }

    @Test func rss1ItemsAreSiblingsOfTheChannel() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("rss1-rdf.rdf"))
        #expect(feed.format == .rss1)
        #expect(feed.title == "RDF Channel")
        #expect(feed.language == "de")
        #expect(feed.image?.absoluteString == "https://rdf.example.net/logo.png")
        #expect(feed.episodes.map(\.id) == ["https://rdf.example.net/1", "https://rdf.example.net/2"])
        #expect(feed.episodes[0].published == date("2024-11-10T08:00:00Z"))
    }

    @Test func rss091IsReadAsRSS() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("rss091.xml"))
        #expect(feed.format == .rss2)
        #expect(feed.episodes.map(\.title) == ["Old item"])
    }

    @Test func namespacesAreMatchedByURINotPrefix() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("itunes-prefix-rebound.xml"))
        #expect(feed.author == "Prefix It")
        #expect(feed.explicit == false)
        #expect(feed.locked == false)
        #expect(feed.episodes.first?.duration == 6025)
        #expect(feed.episodes.first?.episode == 4)
    }

    @Test func wellKnownPrefixesWorkWithoutADeclaration() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("undeclared-prefixes.xml"))
        #expect(feed.author == "Nobody Declared Me")
        #expect(feed.image?.absoluteString == "https://undeclared.example.com/art.jpg")
        let episode = try #require(feed.episodes.first)
        #expect(episode.duration == 42)
        #expect(episode.description == "rich")
        #expect(episode.transcripts.count == 1)
        #expect(feed.warnings.count == 1)
    }

    @Test func undeclaredHTMLEntitiesAreRecoveredWithWarnings() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("nbsp-recovered.xml"))
        #expect(feed.episodes.map(\.id) == ["n1", "n2", "n3"])
        #expect(
            feed.warnings.contains {
                if case .xml(let message) = $0.reason { message.contains("nbsp") && $0.line == 2 } else { false }
            })
    }

    @Test func aTruncatedDocumentKeepsItsCompleteItems() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("truncated-tail.xml"))
        #expect(feed.title == "Cut short")
        #expect(Array(feed.episodes.map(\.id).prefix(2)) == ["c1", "c2"])
        #expect(!feed.warnings.isEmpty)
        // Said first, and by name: libxml2's own words ("Extra content at the end of the document") hide it.
        #expect(feed.endedEarly)
        #expect(feed.warnings.first?.reason == .documentEndedEarly(root: "rss"), "\(feed.warnings)")
    }

    @Test(arguments: [
        "<rss version=\"2.0\"><channel><title>Whole</title><item><guid>a</guid></item></channel></rss>\n<!-- ph=1 -->",
        "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Whole</title></feed>",
    ])
    func aWholeDocumentDidNotEndEarly(text: String) throws {
        #expect(try !parse(text).endedEarly)
    }

    @Test func theRealCorpusFeedCutAfterItsChannelHeadEndedEarly() throws {
        let corpus = try #require(TestFiles.corpus)
        let bytes = try Data(contentsOf: corpus.appendingPathComponent("feed-rs__rss_2.0_invalid_1.xml"))
        let feed = try FeedParser.parse(Array(bytes))
        #expect(feed.endedEarly)
        #expect(feed.title == "Reuters: Most Read Articles")
    }

    @Test func externalEntitiesAreNeverLoaded() throws {
        let marker = "PODFRESH-XXE-\(UUID().uuidString)"
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("xxe-\(UUID().uuidString).txt")
        try Data(marker.utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let text = try String(decoding: TestFiles.fixture("xxe-file.xml"), as: UTF8.self).replacingOccurrences(
            of: "file:///etc/hostname", with: secret.absoluteString)
        let feed = try parse(text)
        #expect(!String(describing: feed).contains(marker))
        #expect(feed.episodes.count == 1)
        #expect(
            feed.warnings.contains {
                if case .xml(let message) = $0.reason { message.contains("secret") } else { false }
            })
    }

    @Test func billionLaughsEndsWithoutExpanding() throws {
        let bytes = try TestFiles.fixture("billion-laughs.xml")
        do {
            let feed = try FeedParser.parse(bytes)
            #expect(String(describing: feed).utf8.count < 10_000, "no entity was expanded")
            #expect(!feed.warnings.isEmpty)
        } catch let error as FeedParseError {
            #expect(error.kind == .entityExpansion)
        }
    }

    @Test(arguments: [
        ("html-page.xml", FeedParseError.Kind.notAFeed, FeedParseError.Reason.htmlPage),
        ("json-body.xml", .notXML, .json),
        ("empty.xml", .empty, .empty),
    ])
    func documentsThatAreNotFeedsSaySo(
        fixture: String, kind: FeedParseError.Kind, reason: FeedParseError.Reason
    )
        throws
    {
        do {
            _ = try FeedParser.parse(try TestFiles.fixture(fixture))
            Issue.record("\(fixture) parsed as a feed")
        } catch let error as FeedParseError {
            #expect(error.kind == kind)
            #expect(error.reason == reason)
        }
    }

    @Test func binaryDataAndOPMLAreNotFeeds() throws {
        #expect(throws: FeedParseError.self) {
            _ = try FeedParser.parse([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        }
        let opml = Array("<?xml version=\"1.0\"?><opml version=\"2.0\"><body/></opml>".utf8)
        #expect { _ = try FeedParser.parse(opml) } throws: {
            ($0 as? FeedParseError)?.reason == .subscriptionList && ($0 as? FeedParseError)?.isSubscriptionList == true
        }
    }

    @Test func declaredAndTransportEncodingsAreHonoured() throws {
        #expect(try FeedParser.parse(try TestFiles.fixture("windows-1252.xml")).title == "Café “quoted” €")
        #expect(try FeedParser.parse(try TestFiles.fixture("windows-1251.xml")).episodes.first?.title == "Мир")
        #expect(try FeedParser.parse(try TestFiles.fixture("utf16-bom.xml")).title == "Sixteen ✓")
        #expect(try FeedParser.parse(try TestFiles.fixture("utf8-bom.xml")).title == "BOM ✓")
        // The transport's charset overrides a wrong declaration…
        let mislabelled = Array(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss><channel><title>Caf\u{E9}</title></channel></rss>".utf8
        ).map { $0 }
        let latin1 = mislabelled.flatMap { $0 == 0xC3 ? [] as [UInt8] : [$0 == 0xA9 ? 0xE9 : $0] }
        #expect(try FeedParser.parse(latin1, charset: "iso-8859-1").title == "Café")
        // …but a bare utf-8 label does not override an explicit other declaration.
        #expect(
            try FeedParser.parse(try TestFiles.fixture("windows-1251.xml"), charset: "utf-8").episodes.first?.title
                == "Мир")
    }

    @Test func bytesThatAreNotUTF8AreReadAsWindows1252WithAWarning() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("latin1-undeclared.xml"))
        #expect(feed.title == "Café undeclared")
        #expect(feed.episodes.first?.title == "Crème brûlée")
        #expect(feed.warnings.map(\.reason).contains(.readAsWindows1252(count: 4)))
    }

    @Test func relativeURLsResolveAgainstXMLBaseThenTheDocument() throws {
        let feed = try FeedParser.parse(
            try TestFiles.fixture("relative-urls-xml-base.xml"),
            baseURL: URL(string: "https://doc.example.com/feeds/x.xml"))
        #expect(feed.link?.absoluteString == "https://base.example.com/home")
        #expect(feed.episodes[0].link?.absoluteString == "https://other.example.com/deep/page.html")
        #expect(feed.episodes[0].enclosures.first?.url.absoluteString == "https://other.example.com/deep/media/one.mp3")
        #expect(feed.episodes[1].enclosures.first?.url.absoluteString == "https://base.example.com/abs/two.mp3")
    }

    @Test func javascriptFileAndDataURLsAreDropped() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("hostile-urls.xml"))
        #expect(feed.link == nil)
        let episode = try #require(feed.episodes.first)
        #expect(episode.link == nil)
        #expect(episode.enclosures.map(\.url.absoluteString) == ["https://ok.example.com/one.mp3"])
        #expect(
            feed.warnings.map(\.reason).filter {
                if case .ignoredScheme = $0 { true } else { false }
            }.count >= 3)
    }

    @Test func controlCharactersNeverReachOutput() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("control-chars.xml"))
        let texts = [feed.title ?? ""] + feed.episodes.compactMap(\.title)
        for text in texts {
            #expect(
                !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                "\(text.debugDescription)")
        }
        #expect(feed.title == "Bell and [31mescape[0m")
        // C1 controls are read as Windows-1252 meant them (0x9B, CSI, is "›"), never passed on as controls.
        #expect(feed.episodes.first?.title == "Ctl chars and C1 › here")
    }

    @Test func identityFallsBackFromGuidToEnclosureToLinkToAHash() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("identity-fallbacks.xml"))
        let ids = feed.episodes.map(\.id)
        #expect(ids[0] == "g-1")
        #expect(ids[1] == "https://x.example.com/b.mp3")
        #expect(ids[2] == "https://x.example.com/c")
        #expect(ids[3].hasPrefix("hash:") && ids[4].hasPrefix("hash:"))
        #expect(ids[3] != ids[4], "two untitled-alike episodes with different dates stay distinct")
        #expect(ids[5] == "g-1")
        #expect(
            feed.warnings.contains {
                if case .sharedEpisodeID(_, _, "g-1") = $0.reason { true } else { false }
            })
        // Stable across parses.
        #expect(try FeedParser.parse(try TestFiles.fixture("identity-fallbacks.xml")).episodes.map(\.id) == ids)
    }

    @Test func illegallyNestedItemsAreBothKeptInDocumentOrder() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("illegally-nested.xml"))
        #expect(feed.episodes.map(\.id) == ["outer", "inner", "last"])
        #expect(feed.episodes[0].description == "outer description after inner")
    }

    @Test func unreadableDatesAndDurationsAreNilWithWarnings() throws {
        let feed = try FeedParser.parse(try TestFiles.fixture("bad-dates-durations.xml"))
        #expect(feed.episodes.allSatisfy { $0.published == nil && $0.duration == nil })
        #expect(feed.warnings.filter { if case .unreadableDate = $0.reason { true } else { false } }.count == 3)
        #expect(feed.warnings.filter { if case .unreadableDuration = $0.reason { true } else { false } }.count == 3)
        #expect(feed.warnings.allSatisfy { $0.line > 0 })
    }

    @Test func limitsCapEpisodesFieldsAndItems() throws {
        var items = ""
        for index in 0..<50 {
            let enclosures = (0..<20).map { "<enclosure url=\"https://e.example.com/\(index)/\($0).mp3\"/>" }.joined()
            items +=
                "<item><guid>\(index)</guid><title>\(String(repeating: "x", count: 5000))</title>\(enclosures)</item>"
        }
        let options = FeedParserOptions(maxEpisodes: 10, maxFieldBytes: 1000, maxItemsPerEpisode: 5, maxWarnings: 50)
        let feed = try parse("<rss><channel><title>Limits</title>\(items)</channel></rss>", options: options)
        #expect(feed.episodes.count == 10)
        #expect(feed.episodes.allSatisfy { ($0.title?.utf8.count ?? 0) <= 1000 && $0.enclosures.count == 5 })
        #expect(feed.warnings.map(\.reason).contains(.tooManyEpisodes(limit: 10)))
        #expect(feed.warnings.map(\.reason).contains(.fieldCut(limit: 1000)))
    }

    @Test(arguments: TestFiles.fixtureNames)
    func everyFixtureParsesTheSameWhateverTheChunking(name: String) throws {
        let bytes = try TestFiles.fixture(name)
        let whole: Result<ParsedFeed, FeedParseError> = Result { try parseInChunks(bytes, size: .max) }.mapError {
            $0 as! FeedParseError
        }
        for size in [1, 7, 4096] {
            let chunked: Result<ParsedFeed, FeedParseError> = Result { try parseInChunks(bytes, size: size) }.mapError {
                $0 as! FeedParseError
            }
            #expect(chunked == whole, "\(name) in \(size)-byte chunks")
        }
    }
}

struct FeedDateTests {
    @Test(arguments: [
        ("Tue, 12 Nov 2024 05:00:00 GMT", "2024-11-12T05:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 +0000", "2024-11-12T05:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 -0500", "2024-11-12T10:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 +05:30", "2024-11-11T23:30:00Z"),
        ("Tue, 12 Nov 2024 05:00 EST", "2024-11-12T10:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 PDT", "2024-11-12T12:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 UT", "2024-11-12T05:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 Z", "2024-11-12T05:00:00Z"),
        ("12 Nov 2024 05:00:00 GMT", "2024-11-12T05:00:00Z"),
        ("Mon, 12 Nov 2024 05:00:00 GMT", "2024-11-12T05:00:00Z"),
        ("Tuesday, 12 November 2024 05:00:00 GMT", "2024-11-12T05:00:00Z"),
        ("Tue, 12 Nov 24 05:00:00 GMT", "2024-11-12T05:00:00Z"),
        ("Thu, 07 Dec 17 10:00:29 -0800", "2017-12-07T18:00:29Z"),
        ("Wed, 1 Jan 1997 00:00:00 GMT", "1997-01-01T00:00:00Z"),
        ("  Tue,  12  Nov  2024   05:00:00   GMT  ", "2024-11-12T05:00:00Z"),
        ("Tue, 12 Nov 2024", "2024-11-12T00:00:00Z"),
        ("Nov 12, 2024 05:00:00 GMT", "2024-11-12T05:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 GMT+0100", "2024-11-12T04:00:00Z"),
        ("Tue, 12 Nov 2024 05:00:00 A", "2024-11-12T04:00:00Z"),
        ("2024-11-12T05:00:00Z", "2024-11-12T05:00:00Z"),
        ("2024-11-12T05:00:00+01:00", "2024-11-12T04:00:00Z"),
        ("2024-11-12T05:00:00.123Z", "2024-11-12T05:00:00Z"),
        ("2024-11-12 05:00:00", "2024-11-12T05:00:00Z"),
        ("2024-11-12", "2024-11-12T00:00:00Z"),
        ("2020/1/10 14:33:00", "2020-01-10T14:33:00Z"),
        ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"),
    ])
    func realWorldDateVariantsParse(text: String, expected: String) throws {
        let parsed = try #require(FeedDate.parse(text), "could not parse \(text)")
        #expect(RFC3339.string(from: parsed) == expected)
    }

    @Test(arguments: [
        "", "garbage", "next Tuesday", "Tue, 45 Nov 2024 05:00:00 GMT", "2023-02-29", "Sun, 01 Jan 99999 00:00:00 GMT",
        "2024-13-01", "Tue, 12 Foo 2024 05:00:00 GMT", "Tue, 12 Nov 2024 25:61:00 GMT", "0000-01-01T00:00:00Z",
        "2024-11-12T05:00:00+99:00", String(repeating: "9", count: 500),
    ])
    func unreadableDatesAreNil(text: String) {
        #expect(FeedDate.parse(text) == nil)
    }
}

struct EpisodeDurationTests {
    @Test(arguments: [
        ("3130", 3130.0), ("52:10", 3130), ("01:02:03", 3723), ("1:02:03", 3723), ("100:25", 6025),
        ("1014.708375", 1014.708375), (" 42 ", 42), ("0:90", 90), ("00:00:05.5", 5.5),
    ])
    func durationsParse(text: String, seconds: Double) {
        #expect(EpisodeDuration.parse(text) == seconds)
    }

    @Test(arguments: ["", "abc", "-5", "1:2:3:4", "NaN", "inf", "1e400", "99999999999", "12:", ":30", "1.5:00", "1..2"])
    func garbageDurationsAreNil(text: String) {
        #expect(EpisodeDuration.parse(text) == nil)
    }
}

/// `podcast:podping` and `podcast:hiveAccount` (issue #23).
struct PodpingDeclarationTests {
    func parse(_ channel: String) throws -> ParsedFeed {
        let xml = """
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0" \
            xmlns:p2="https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md">\
            <channel><title>Show</title>\(channel)<item><guid>1</guid><title>One</title>\
            <podcast:podping usesPodping="false"/></item></channel></rss>
            """
        return try FeedParser.parse(Array(xml.utf8))
    }

    @Test func aFeedNamesItsSendersAndSaysItPings() throws {
        let feed = try parse(
            """
            <podcast:podping usesPodping="true"><podcast:hiveAccount account="podping.spk"/>\
            <podcast:hiveAccount> myhost.pinger </podcast:hiveAccount></podcast:podping>
            """)
        #expect(feed.podping == PodpingDeclaration(usesPodping: true, hiveAccounts: ["podping.spk", "myhost.pinger"]))
    }

    @Test func aHiveAccountAttributeOnEachPodpingElementNamesASenderAsFeedsInTheWildWriteIt() throws {
        let feed = try parse(
            "<podcast:podping hiveAccount=\"podping.spk\"/><podcast:podping hiveAccount=\"podping.bol\"/>")
        #expect(feed.podping == PodpingDeclaration(usesPodping: nil, hiveAccounts: ["podping.spk", "podping.bol"]))
    }

    @Test func aFeedOptsOutWithUsesPodpingFalse() throws {
        let feed = try parse("<p2:podping usesPodping=\"false\"/>")
        #expect(feed.podping == PodpingDeclaration(usesPodping: false, hiveAccounts: []))
    }

    @Test func withoutTheElementTheFeedSaysNothingAndAnEpisodesOwnIsIgnored() throws {
        #expect(try parse("").podping == nil)
        let bare = try parse("<podcast:podping/>")
        #expect(bare.podping == PodpingDeclaration(usesPodping: nil, hiveAccounts: []))
    }

    @Test func aHiveAccountOutsidePodpingIsNotASender() throws {
        let feed = try parse("<podcast:hiveAccount>no-agenda</podcast:hiveAccount><podcast:podping/>")
        #expect(feed.podping?.hiveAccounts == [])
    }
}
