// libFuzzer entry point for the feed parser, compiled into the FeedParsing module by Scripts/fuzz.sh.
//
// The first input byte picks a chunk size, so chunk boundaries land everywhere; the rest is the document. A crash,
// an ASan report, a leak, a hang (-timeout) or a broken invariant below is a finding.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let chunk = Int(data[0]) * 37 + 1
    let body = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    let options = FeedParserOptions(maxEpisodes: 500, maxFieldBytes: 64 * 1024, maxItemsPerEpisode: 20, maxWarnings: 50)
    let parser = FeedParser(options: options)
    var offset = 0
    do {
        while offset < body.count {
            let end = min(body.count, offset + chunk)
            try parser.parse(UnsafeRawBufferPointer(rebasing: body[offset..<end]))
            offset = end
        }
        let feed = try parser.finish()
        // Invariants the limits promise.
        precondition(feed.episodes.count <= options.maxEpisodes, "maxEpisodes exceeded")
        // (This one found FeedParser.finish() inserting input-repair warnings past the cap; regression test
        // HostileDocumentTests.theWarningCapHoldsWhenInputWasRepaired.)
        precondition(feed.warnings.count <= options.maxWarnings + 1, "maxWarnings exceeded")
        for episode in feed.episodes {
            precondition(episode.enclosures.count <= options.maxItemsPerEpisode, "maxItemsPerEpisode exceeded")
            precondition((episode.title?.utf8.count ?? 0) <= options.maxFieldBytes, "maxFieldBytes exceeded")
            if let duration = episode.duration {
                precondition(duration.isFinite && duration >= 0, "bad duration \(duration)")
            }
        }
    } catch is FeedParseError {
        // A clear error is a fine answer to garbage.
    } catch {
        preconditionFailure("unexpected error type: \(error)")
    }
    return 0
}
