import Foundation
import RefreshEngine

/// Cron mode: one line per new episode on standard output, problems on standard error, and nothing at all when
/// nothing happened. A feed's failure is said once, and again only when it changes; its recovery once.
final class QuietOutput: HumanStyle {
    override var showsPodpingNews: Bool { false }

    /// A cron job that has nothing else to say stays silent: feeds still failing as before are counted only under
    /// other news.
    override var countsRepeatsAlways: Bool { false }

    /// Cron hears of podping only when it cannot be read at all, or skipped blocks; not of one node failing over.
    override func drawPodping(_ event: PodpingEvent) {
        switch event {
        case .unavailable, .storeFailed, .skippedAhead: super.drawPodping(event)
        default: break
        }
    }

    override func drawFetch(_ event: DataFetchEvent) {
        switch event {
        // The `where` binds to the second pattern only: a finished feed, or a "failed" one without a failure.
        case .fetchCompleted(let outcome),
            .fetchFailed(let outcome) where outcome.failure == nil:
            movedLines(outcome, showMove: false)
            recoveryLine(outcome)
            let name = TerminalText.sanitize(outcome.feed.displayName)
            if case .gone(let error) = outcome.result {
                printError(
                    "\(name): gone: \(TerminalText.sanitize(FetchFailureText.line(error))) (\(outcome.feed.url.absoluteString)); it will not be checked again"
                )
            }
            if case .dropped(let error) = outcome.result {
                printError("\(name): \(TerminalText.sanitize(StoreErrorText.line(error)))")
            }
            episodeLines(outcome, prefix: "")
        case .batchCompleted:
            break
        default:
            super.drawFetch(event)
        }
    }

    /// Cron hears of files downloaded and of failures (standard error), not of summaries, retention or totals; and
    /// of a broken link once, and again when its failure changes, not on every run.
    override func drawDownload(_ event: DownloadEvent) {
        switch event {
        case .removed, .skipped, .filtered, .olderLeftOut, .finished, .extraSaved:
            break
        case .extraFailed(let outcome) where outcome.failure?.isRepeat == true:
            break
        case .tagged(let outcome):
            if case .failed = outcome.result { super.drawDownload(event) }
        case .failed(let outcome) where outcome.failure?.isRepeat == true:
            break
        default:
            super.drawDownload(event)
        }
    }
}
