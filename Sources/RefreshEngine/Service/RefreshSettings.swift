public import FeedParsing
public import FeedScheduling
public import Foundation
public import Measures

/// Which feeds a refresh checks, and how (the cache policies of the design notes).
public enum RefreshPolicy: String, Sendable, Hashable, CaseIterable {
    /// Feeds never checked or whose next check has passed; conditional GET.
    case due
    /// Every subscription now, still with conditional GET.
    case all
    /// Every subscription now, unconditionally: schedule and validators ignored.
    case force
    /// No network at all: answer from the store.
    case offline
}

/// Settings of the ``EpisodeUpdateService``.
public struct EpisodeUpdateConfiguration: Sendable {
    public var parserOptions: FeedParserOptions
    /// Scheduling rules (intervals, backoff, revalidation).
    public var schedulePolicy: SchedulePolicy
    /// `--exec`: a command run once per new episode, with the episode in environment variables.
    public var hookCommand: String?
    /// `--exec-timeout`: how long one run of the hook may take before its process group is stopped.
    public var hookTimeout: Duration = NewEpisodeHook.defaultTimeout
    /// Where the hook's output lines go (podfresh's standard output and error; only standard error for `--json`).
    public var hookOutput: HookOutput = .standardStreams
    /// Retry a transient transport failure (reset, timeout) once within the run.
    public var retryTransientFailures: Bool
    /// The delay before that retry, before jitter (a random 50–150 % of it is used).
    public var retryDelay: Duration
    /// The clock every timestamp, schedule and retry wait of the refresh reads (a manual one in tests).
    public var clock: AppClock
    /// The clock's date now, as a function to hand to the refresh's parts.
    public var now: @Sendable () -> Date {
        let clock = clock
        return { clock.date }
    }
    /// While podping is followed (`--podping`): the feeds whose pings are seen, asked once per refresh; their polls
    /// are only a safety net (``SchedulePolicy/maxInterval``). Nil: podping is not followed.
    public var pingedFeeds: (@Sendable () async -> Set<Int64>)?
    /// A number in 0..<1 for each schedule decision, spreading feeds' checks (a fixed one in tests).
    public var jitter: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// `--download`: after each feed's merge, download its new episodes (feeds whose downloads are on); nil: none.
    public var downloads: EpisodeDownloadSettings?
    /// How many fetched feeds are read, parsed and stored at once (``ProcessingSlots``); nil: as many as are fetched.
    public var processingSlots: Int? = ProcessingSlots.defaultCount
    /// `--full`: read every body to its end and parse it, even when its leading episodes are all stored or it is
    /// identical to the last one (issue #36). Otherwise a body is read whole when it was last read whole longer ago
    /// than ``SchedulePolicy/revalidateEvery``, and identical bodies are not parsed.
    public var readsWhole = false
    /// How much of a long body is read between early merges of its episodes (``EarlyMerging``): a big feed's
    /// episodes are stored as it is read, so no more than about this much of it is held at once; nil: each feed is
    /// merged in one piece at its end.
    public var earlyMergeBytes: Int? = 4 << 20

    public init(
        parserOptions: FeedParserOptions = .init(),
        schedulePolicy: SchedulePolicy = .init(),
        hookCommand: String? = nil,
        retryTransientFailures: Bool = true,
        retryDelay: Duration = .milliseconds(500),
        clock: AppClock = .system
    ) {
        self.parserOptions = parserOptions
        self.schedulePolicy = schedulePolicy
        self.hookCommand = hookCommand
        self.retryTransientFailures = retryTransientFailures
        self.retryDelay = retryDelay
        self.clock = clock
    }
}

/// How a worker of a fleet claims feeds from a store several workers share (``FeedClaiming``).
public struct FleetSettings: Sendable, Hashable {
    /// This worker's name in leases (host name and process id).
    public var worker: String
    /// How long a lease lasts before other workers may take the feed (`--lease`).
    public var lease: Duration

    public init(worker: String, lease: Duration) {
        self.worker = worker
        self.lease = lease
    }

    /// This machine's host name and this process's id.
    public static var thisProcess: String {
        "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
    }
}
