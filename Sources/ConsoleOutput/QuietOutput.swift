import Foundation
import RefreshEngine

/// Cron mode: one line per new episode on standard output, problems on standard error, and nothing at all when
/// nothing happened.
final class QuietOutput: HumanStyle, OutputStyle {
    func refreshed(_ outcome: RefreshOutcome) {
        movedLines(outcome, showMove: false)
        if case .gone(let message) = outcome.result {
            let name = TerminalText.sanitize(outcome.feed.displayName)
            printError(
                "\(name): gone: \(TerminalText.sanitize(message)) (\(outcome.feed.url.absoluteString)); it will not be checked again"
            )
        }
        if case .dropped(let reason) = outcome.result {
            printError("\(TerminalText.sanitize(outcome.feed.displayName)): \(TerminalText.sanitize(reason))")
        }
    }

    func newEpisode(_ episode: EpisodeAnnouncement, of feed: FeedTarget) {
        printLine(EventText.episodeLine(episode, of: feed, prefix: ""))
    }

    func finished(_ summary: RefreshSummary) {}
    func idle(until next: Date?) {}
    // Cron hears of files downloaded and of failures (standard error), not of retention or totals.
    override func fileRemoved(_ removal: DownloadRemoval) {}
    override func downloadSkipped(_ target: DownloadTarget, reason: String) {}
    override func downloadsFinished(_ summary: DownloadSummary) {}
}
