import FeedModels
import FeedParsing
import Foundation
import Measures

/// Runs the `--exec` hook for announced episodes one at a time, beside the fetches: a slow hook never holds a fetch
/// slot, and hooks never run at once (their output reaches cron whole, in announcement order).
///
/// ## Why this class is `Sendable`
/// It holds only the stream's continuation (itself `Sendable`) and the task draining it; both are set in `init`.
final class HookQueue: Sendable {
    private struct Job: Sendable {
        var feed: FeedTarget
        var episode: HookEpisode
        var name: String
    }

    private let continuation: AsyncStream<Job>.Continuation
    private let worker: Task<Void, Never>

    /// - Parameters:
    ///   - command: The hook, run with `/bin/sh -c`.
    ///   - timeout: How long one run may take before its process group is stopped (`--exec-timeout`).
    ///   - output: Where the hook's output lines go.
    ///   - clock: The clock the timeout is measured on.
    ///   - report: Called with the feed and a one-line problem when a hook fails.
    init(
        command: String, timeout: Duration, output: HookOutput, clock: AppClock = .system,
        report: @escaping @Sendable (FeedTarget, HookFailure) -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .unbounded)
        self.continuation = continuation
        // Unstructured on purpose: a stopped refresh still runs the hooks of the episodes it announced.
        worker = Task {
            for await job in stream {
                let result = await NewEpisodeHook.run(
                    command: command, episode: job.episode, timeout: timeout, output: output, clock: clock)
                if result.failed { report(job.feed, HookFailure(episode: job.name, result: result)) }
            }
        }
    }

    /// Queues one hook run per episode, in the order given.
    func enqueue(_ episodes: [EpisodeAnnouncement], of feed: FeedTarget, feed parsed: ParsedFeed) {
        for episode in episodes {
            enqueue(Self.hookEpisode(episode, of: feed, feedTitle: parsed.title), of: feed)
        }
    }

    /// Queues one hook run.
    func enqueue(_ episode: HookEpisode, of feed: FeedTarget) {
        let name = episode.episodeTitle.isEmpty ? episode.identity : episode.episodeTitle
        continuation.yield(Job(feed: feed, episode: episode, name: name))
    }

    /// What the hook is told about `episode` (its downloaded file is added later, if there is one).
    static func hookEpisode(_ episode: EpisodeAnnouncement, of feed: FeedTarget, feedTitle: String?) -> HookEpisode {
        HookEpisode(
            feedTitle: feedTitle ?? feed.title ?? "", feedURL: feed.url.absoluteString,
            episodeTitle: episode.title ?? "", episodeURL: episode.link?.absoluteString ?? "",
            enclosureURL: episode.enclosure?.url.absoluteString ?? "",
            enclosureType: episode.enclosure?.type ?? "", published: episode.published,
            guid: episode.guid ?? "", identity: episode.key, duration: episode.duration)
    }

    /// Waits until every queued hook has run.
    func finish() async {
        continuation.finish()
        await worker.value
    }
}

/// The `--exec` hook failed for one episode: which, and how it ended (its feed was stored all the same).
public struct HookFailure: Sendable, Hashable {
    /// The episode's title, or its identity key when it has none.
    public var episode: String
    /// How the hook's run ended.
    public var result: HookResult

    public init(episode: String, result: HookResult) {
        self.episode = episode
        self.result = result
    }
}
