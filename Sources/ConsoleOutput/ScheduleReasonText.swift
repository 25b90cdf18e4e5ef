public import FeedModels
import Measures

/// How the reason for a feed's next check reads in `list`, `status` and outcomes: the one place each
/// ``ScheduleReason`` is worded.
public enum ScheduleReasonText {
    /// The reason on one line, not sanitised: `every 6h (no publishing rhythm yet)`, `backoff after 3 failures`,
    /// `Retry-After`; a sentence an older podfresh stored, as it was written.
    public static func line(_ reason: ScheduleReason) -> String {
        switch reason {
        case .cadence(let interval, let basis): "every \(Measure.duration(interval)) (\(text(basis)))"
        case .backoff(let failures): "backoff after \(failures) failure\(failures == 1 ? "" : "s")"
        case .retryAfter: "Retry-After"
        case .complete: "complete (itunes:complete)"
        case .gone: "gone (410)"
        case .networkOffline: "network offline"
        case .podping: "podping"
        case .syncServer: "added by sync"
        case .stored(let text): text
        }
    }

    /// What set a cadence's interval.
    static func text(_ basis: ScheduleReason.Basis) -> String {
        switch basis {
        case .noRhythmYet: "no publishing rhythm yet"
        case .medianGap(let episodes): "half the median gap of \(episodes) episodes"
        case .hint(let hint): text(hint)
        case .shortestAllowed: "the shortest interval allowed"
        case .longestAllowed: "the longest interval allowed"
        }
    }

    /// Who asked for the interval, as the header or element is spelled.
    static func text(_ hint: ScheduleReason.PollingHint) -> String {
        switch hint {
        case .maxAge: "Cache-Control max-age"
        case .expires: "Expires"
        case .ttl: "ttl"
        case .syndicationUpdatePeriod: "sy:updatePeriod"
        case .podcastUpdateFrequency: "podcast:updateFrequency"
        }
    }
}
