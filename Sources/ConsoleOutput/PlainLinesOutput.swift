import Foundation
import RefreshEngine

/// Not a terminal (a pipe, a file, a dumb terminal): one line per finished feed and per new episode, then a summary.
final class PlainLinesOutput: HumanStyle, OutputStyle {
    func refreshed(_ outcome: RefreshOutcome) {
        printLine(EventText.outcomeLine(outcome))
        movedLines(outcome, showMove: true)
    }

    func newEpisode(_ episode: EpisodeAnnouncement, of feed: FeedTarget) {
        printLine(EventText.episodeLine(episode, of: feed, prefix: "  + "))
    }

    func finished(_ summary: RefreshSummary) {
        printLine(EventText.summaryLine(summary))
    }

    func idle(until next: Date?) {
        printLine(EventText.idle(until: next, now: now()))
    }
}
