import EpisodeDownloads
import Foundation
import Measures
import Synchronization

/// Lets a download's progress through a few times a second, and measures its rate.
final class ProgressThrottle: Sendable {
    private struct State {
        var last: AppClock.Instant?
        var first: (AppClock.Instant, Int64)?
    }

    private let interval: Duration
    private let clock: AppClock
    private let state = Mutex(State())

    init(interval: Duration, clock: AppClock = .system) {
        self.interval = interval
        self.clock = clock
    }

    /// The rate (bytes per second) when this report is due, else nil. The last chunk of a known length is always due.
    func due(_ progress: DownloadProgress) -> Double? {
        let now = clock.now
        return state.withLock { state -> Double? in
            if state.first == nil { state.first = (now, progress.receivedBytes - Int64(progress.chunkBytes)) }
            let complete = progress.expectedBytes == progress.receivedBytes
            if let last = state.last, last.duration(to: now) < interval, !complete { return nil }
            state.last = now
            guard let (start, startBytes) = state.first else { return 0 }
            let elapsed = start.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return seconds > 0 ? Double(progress.receivedBytes - startBytes) / seconds : 0
        }
    }
}
