import FeedModels
import FeedParsing
import Foundation
import Testing

/// `podfresh set FEED --include/--exclude/--match/--min-duration`: which episodes a feed's filters let through.
struct DownloadFilterTests {
    private func episode(
        _ title: String?, description: String? = nil, duration: Double? = nil, key: String = "e"
    ) -> ParsedEpisode {
        ParsedEpisode(id: key, guid: key, title: title, summary: description, duration: duration)
    }

    private func matcher(_ filter: DownloadFilter) throws -> DownloadFilterMatcher {
        try DownloadFilterMatcher(filter)
    }

    @Test func noFilterLetsEveryEpisodeThrough() throws {
        let none = try matcher(.none)
        #expect(none.passes(episode("Trailer")))
        #expect(none.passes(episode(nil)))
        #expect(DownloadFilter.none.isEmpty)
    }

    @Test func anEpisodeMustMatchOneIncludePatternIgnoringCase() throws {
        let filter = try matcher(DownloadFilter(include: ["full episode", "^interview"]))
        #expect(filter.passes(episode("Ep. 12 (Full Episode)")))
        #expect(filter.passes(episode("INTERVIEW with a guest")))
        #expect(filter.exclusion(of: episode("Trailer: season 3")) == .notIncluded)
        #expect(filter.exclusion(of: episode("A talk, interview later")) == .notIncluded, "anchored at the start")
        #expect(filter.exclusion(of: episode(nil)) == .notIncluded, "an episode without a title matches nothing")
    }

    @Test func anEpisodeMustMatchNoExcludePatternAndTheOneItMatchesIsNamed() throws {
        let filter = try matcher(DownloadFilter(exclude: ["trailer", "re-?run"]))
        #expect(filter.passes(episode("Episode 4")))
        #expect(filter.exclusion(of: episode("Season 2 TRAILER")) == .excluded(pattern: "trailer"))
        #expect(filter.exclusion(of: episode("Rerun: episode 1")) == .excluded(pattern: "re-?run"))
    }

    @Test func includeAndExcludeTogether() throws {
        let filter = try matcher(DownloadFilter(include: ["episode"], exclude: ["bonus"]))
        #expect(filter.passes(episode("Episode 5")))
        #expect(filter.exclusion(of: episode("Bonus episode")) == .excluded(pattern: "bonus"))
        #expect(filter.exclusion(of: episode("Bonus")) == .notIncluded)
    }

    @Test func theDescriptionIsMatchedOnlyWhenAsked() throws {
        let byTitle = try matcher(DownloadFilter(include: ["full episode"]))
        let both = try matcher(DownloadFilter(include: ["full episode"], match: .description))
        let item = episode("Ep. 7", description: "The full episode, uncut.")
        #expect(byTitle.exclusion(of: item) == .notIncluded)
        #expect(both.passes(item))
        #expect(both.passes(episode("Full episode 8")), "the title still counts")
        let excludeBoth = try matcher(DownloadFilter(exclude: ["sponsored"], match: .description))
        #expect(
            excludeBoth.exclusion(of: episode("Ep. 9", description: "A sponsored hour"))
                == .excluded(pattern: "sponsored"))
    }

    @Test func aShortestDurationLeavesOutShorterEpisodesAndKeepsThoseOfUnknownLength() throws {
        let filter = try matcher(DownloadFilter(minimumDuration: 600))
        #expect(filter.exclusion(of: episode("Teaser", duration: 95)) == .tooShort(seconds: 95))
        #expect(filter.passes(episode("Exactly ten", duration: 600)))
        #expect(filter.passes(episode("Long", duration: 3_600)))
        #expect(filter.passes(episode("No duration given", duration: nil)), "unknown length: kept")
        #expect(filter.passes(episode("Zero", duration: 0)), "a duration of 0 is no duration")
    }

    @Test func aPatternThatIsNotARegularExpressionIsNamedWithWhy() throws {
        #expect(DownloadFilter.problem(in: "full episode") == nil)
        let problem = try #require(DownloadFilter.problem(in: "(unclosed"))
        #expect(problem == "is not a regular expression (expected ')')")
        #expect(DownloadFilter.problem(in: "[z-a]")?.contains("'z' must compare less than or equal to 'a'") == true)
        #expect(throws: DownloadFilterMatcher.BadPattern.self) {
            _ = try DownloadFilterMatcher(DownloadFilter(exclude: ["ok", "[z-a]"]))
        }
        do {
            _ = try DownloadFilterMatcher(DownloadFilter(exclude: ["ok", "[z-a]"]))
        } catch {
            #expect(error.pattern == "[z-a]")
        }
    }

    @Test func theStoredFormRoundTripsAndNoFilterIsStoredAsNothing() {
        let filter = DownloadFilter(
            include: ["full episode", "\"quoted\" / slash"], exclude: ["trailer"], match: .description,
            minimumDuration: 600)
        #expect(DownloadFilter(storedText: filter.storedText) == filter)
        #expect(DownloadFilter.none.storedText == nil)
        #expect(DownloadFilter(storedText: nil) == .none)
        #expect(DownloadFilter(storedText: "not json") == .none)
        let matchOnly = DownloadFilter(match: .description)
        #expect(DownloadFilter(storedText: matchOnly.storedText) == matchOnly, "the match field alone is kept")
    }

    @Test func settingsReplacePatternsClearThemAndLeaveWhatIsNotGiven() {
        var feed = Subscription(id: 1, url: URL(string: "https://a.example/feed")!, addedAt: Date())
        feed.downloadFilter = DownloadFilter(include: ["a"], exclude: ["b"], minimumDuration: 60)
        var change = DownloadSettings()
        change.include = ["c", "d"]
        #expect(change.filter(after: feed) == DownloadFilter(include: ["c", "d"], exclude: ["b"], minimumDuration: 60))
        change = DownloadSettings()
        change.exclude = []
        change.minimumDuration = .reset
        #expect(change.filter(after: feed) == DownloadFilter(include: ["a"]))
        change = DownloadSettings()
        change.clearFilters = true
        change.match = .description
        #expect(change.filter(after: feed) == DownloadFilter(match: .description))
        #expect(!change.isEmpty)
        #expect(DownloadSettings().filter(after: feed) == feed.downloadFilter)
    }

    @Test func retentionOnAFilteredFeedCountsAndDeletesOnlyTheFilesOfEpisodesItLetsThrough() throws {
        let feedID: Int64 = 1
        let titles = ["Full episode 4", "Trailer", "Full episode 3", "Full episode 2", "Full episode 1"]
        let episodes = titles.enumerated().map { index, title in
            StoredEpisode(
                subscriptionID: feedID, key: "k\(index)",
                episode: episode(title, key: "k\(index)"), firstSeenAt: Date(), lastSeenAt: Date())
        }
        let records = episodes.map { stored in
            DownloadRecord(
                subscriptionID: feedID, episodeKey: stored.key, state: .complete, filePath: "/m/\(stored.key).mp3",
                bytes: 1)
        }
        let filter = try matcher(DownloadFilter(include: ["full episode"]))
        let past = DownloadPlan.pastRetention(
            records, episodesNewestFirst: episodes, matcher: filter, keepNewest: 2)
        // Kept: full episodes 4 and 3; past: 2 and 1; the trailer's file is neither counted nor deleted.
        #expect(past.map(\.episodeKey) == ["k3", "k4"])
    }
}
