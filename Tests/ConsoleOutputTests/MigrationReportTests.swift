import ConsoleOutput
import FeedModels
import Testing

/// What `podfresh migrate` prints for a copy: one line per table, downloads included, and the same counts in JSON.
struct MigrationReportTests {
    let merged = MigrationSummary(
        subscriptions: .init(source: 5, copied: 4, alreadyPresent: 1),
        episodes: .init(source: 12, copied: 9, alreadyPresent: 3), runs: .init(source: 3, copied: 3),
        downloads: .init(source: 4, copied: 3, alreadyPresent: 1), merged: true, keptIDs: false)

    @Test func theTextReportCountsDownloadRecordsLikeTheOtherTables() {
        let lines = MigrationReport(summary: merged, source: "/data/podfresh.sqlite", target: "postgres://db/pods")
            .lines()

        #expect(
            lines == [
                "merged /data/podfresh.sqlite into postgres://db/pods",
                "  subscriptions: 4 copied, 1 already present",
                "  episodes:      9 copied, 3 already present",
                "  refresh runs:  3 copied",
                "  downloads:     3 copied, 1 already present",
                "counts checked: the target holds all 5 subscriptions, 12 episodes, 3 runs and 4 download records of the source; the source was not changed",
            ])
    }

    @Test func theJSONReportEndsWithTheDownloadsTheSyncAndTheNewFeedSettings() {
        let json = MigrationReport(summary: merged, source: "/data/podfresh.sqlite", target: "postgres://db/pods")
            .json()

        #expect(
            json
                == #"{"source":"/data/podfresh.sqlite","target":"postgres://db/pods","merged":true,"kept_ids":false,"subscriptions":{"source":5,"copied":4,"already_present":1},"episodes":{"source":12,"copied":9,"already_present":3},"runs":{"source":3,"copied":3,"already_present":0},"downloads":{"source":4,"copied":3,"already_present":1},"sync":"none","new_feed_settings":"none"}"#
        )
    }

    @Test func settingsForNewFeedsCarriedOrKeptByTheTargetAreSaid() {
        var summary = merged
        summary.newFeedSettings = .carried
        let carried = MigrationReport(summary: summary, source: "/data/podfresh.sqlite", target: "postgres://db/pods")
        #expect(
            carried.lines().contains("  new feeds:     the settings new subscriptions start with (set --new-feeds)"))
        #expect(carried.json().hasSuffix(#","new_feed_settings":"carried"}"#))
        summary.newFeedSettings = .targetHasThem
        let kept = MigrationReport(summary: summary, source: "/data/podfresh.sqlite", target: "postgres://db/pods")
        #expect(kept.lines().contains { $0.hasPrefix("  new feeds:     settings not carried: the target has") })
    }
}
